package train

import (
	"context"
	"reflect"
	"testing"

	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
)

// trainModel trains a run of o and loads its best model.
func trainModel(t *testing.T, o Options) *model.Model {
	t.Helper()
	res, err := Train(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.LoadModel(res.Model)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func tinyModels(t *testing.T, seeds ...uint64) ([]*model.Model, []*model.Sample) {
	t.Helper()
	var ms []*model.Model
	for _, seed := range seeds {
		o := tinyOptions(t, model.SCNN)
		o.Seed, o.MaxEpochs = seed, 2
		ms = append(ms, trainModel(t, o))
	}
	samples, _, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	return ms, samples
}

func TestEnsemble(t *testing.T) {
	ms, samples := tinyModels(t, 3, 4)
	single, err := EvaluateChains(ms[0], samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	// PredictChains and metrics.Evaluate are what EvaluateChains scores.
	probs, err := PredictChains(ms[0], samples, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		if got := metrics.Evaluate(s.ID, probs[i], s.Labels); !reflect.DeepEqual(got, single[i]) {
			t.Fatalf("%s: PredictChains scores %+v, EvaluateChains %+v", s.ID, got, single[i])
		}
		l := s.L()
		for a := 0; a < l; a++ {
			for b := 0; b < l; b++ {
				if probs[i][a*l+b] != probs[i][b*l+a] {
					t.Fatalf("%s: probabilities not symmetric at %d,%d", s.ID, a, b)
				}
			}
		}
	}
	// An ensemble of one model, or of one model twice, is that model.
	for _, members := range [][]*model.Model{{ms[0]}, {ms[0], ms[0]}} {
		got, err := EvaluateEnsemble(members, samples, 5)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, single) {
			t.Fatalf("ensemble of %d copies differs from the model", len(members))
		}
	}
	// Two different models: order does not matter, and the ensemble is not
	// either member.
	ab, err := EvaluateEnsemble(ms, samples, 5)
	if err != nil {
		t.Fatal(err)
	}
	ba, err := EvaluateEnsemble([]*model.Model{ms[1], ms[0]}, samples, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ab, ba) {
		t.Error("the ensemble depends on the members' order")
	}
	if reflect.DeepEqual(ab, single) {
		t.Error("the ensemble of two different models scores as the first")
	}
	if _, err := EvaluateEnsemble(nil, samples, 5); err == nil {
		t.Error("an empty ensemble was accepted")
	}
}
