package ssnet

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// The prior adds the channel's clamped log-odds pixel by pixel, in
// either layout, and leaves the logits it is given alone.
func TestAddEnsemblePrior(t *testing.T) {
	for _, packed := range []bool{false, true} {
		b, l, c := 2, 3, 4
		var z, x2 *scnn.Tensor
		if packed {
			z, x2 = scnn.NewPacked(b, l, 1), scnn.NewPacked(b, l, c)
		} else {
			z, x2 = scnn.New(b, l, l, 1), scnn.New(b, l, l, c)
		}
		for k := range z.Data {
			z.Data[k] = float32(k) / 10
			x2.Data[k*c+c-1] = []float32{0, 0.25, 0.5, 1, 0.9}[k%5]
			x2.Data[k*c] = 0.7 // another channel: not read
		}
		z0 := slices.Clone(z.Data)
		out, err := addEnsemblePrior(z, x2, c-1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(z.Data, z0) || out.Layout != z.Layout {
			t.Fatal("the logits were modified, or the layout changed")
		}
		for k := range z.Data {
			p := min(max(float64(x2.Data[k*c+c-1]), PriorFloor), 1-PriorFloor)
			want := z0[k] + float32(math.Log(p/(1-p)))
			if out.Data[k] != want {
				t.Fatalf("packed %v pixel %d: %g, want %g", packed, k, out.Data[k], want)
			}
		}
		if _, err := addEnsemblePrior(z, x2, c); err == nil {
			t.Fatal("no error for a channel past the input's")
		}
		if _, err := addEnsemblePrior(z, nil, 0); err == nil {
			t.Fatal("no error without a 2D input")
		}
		other := scnn.New(b, l+1, l+1, c)
		if packed {
			other = scnn.NewPacked(b, l+1, c)
		}
		if _, err := addEnsemblePrior(z, other, c-1); err == nil {
			t.Fatal("no error for a 2D input of another length")
		}
	}
}

// A network under the prior whose parameters are all zero outputs logits
// of 0, so it predicts the ensemble's pair probabilities themselves
// (clamped to PriorFloor): the correction starts from McCaskill. The
// record keeps the prior through a file, and one without the ensemble
// channel is refused.
func TestEnsemblePriorInference(t *testing.T) {
	for _, k := range []Kind{SCNN, CNN} {
		m, err := NewModel(k, FamiliesEnsemblePrior, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Net.Params() {
			clear(p.Value)
		}
		back := saveLoad(t, m)
		if !back.Record.EnsemblePrior {
			t.Fatal("the prior is lost in the file")
		}
		got, err := back.ProbabilitiesWith(yeastPhe, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := EnsemblePairs(context.Background(), yeastPhe, 1)
		if err != nil {
			t.Fatal(err)
		}
		l := len(yeastPhe)
		want := make([]float64, l*l)
		for i := range want {
			want[i] = PriorFloor
		}
		for _, p := range ps {
			want[int(p.I)*l+int(p.J)] = min(float64(p.P), 1-PriorFloor)
		}
		for i := 0; i < l; i++ {
			for j := i + 1; j < l; j++ {
				if d := math.Abs(float64(got[i*l+j]) - want[i*l+j]); d > 1e-6 {
					t.Fatalf("%s (%d, %d): %g, want the ensemble's %g", k, i, j, got[i*l+j], want[i*l+j])
				}
			}
		}
	}
	bad := withName(FamiliesEnsemblePrior, "bad", func(p *Protocol) { p.Ensemble, p.Energy = false, false })
	if _, err := NewModel(SCNN, bad, 1); err == nil || !strings.Contains(err.Error(), "prior") {
		t.Fatalf("%v, want the prior without the channel refused", err)
	}
	// A file whose record claims the prior for a network without the
	// channel is refused when read.
	m, err := NewModel(SCNN, Families, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.Record.EnsemblePrior = true
	path := filepath.Join(t.TempDir(), "bad.scnn")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "ensemble_prior") {
		t.Fatalf("%v, want the record refused", err)
	}
}

// Training under the prior runs, its losses are finite and differ from
// the same run without it, and the model it returns records the prior.
func TestTrainEnsemblePrior(t *testing.T) {
	train, valid := realSets(t)
	run := func(prior bool) []float64 {
		p := tinyProtocol
		p.Steps, p.EvalEvery = 4, 2
		p.Template, p.MinIdentity, p.Energy, p.Ensemble, p.EnsemblePrior = true, 0.5, true, true, prior
		var losses []float64
		o := TrainOptions{Train: slices.Clone(train), Valid: slices.Clone(valid), Out: filepath.Join(t.TempDir(), "run"), Kind: SCNN, Protocol: p, Seed: 5, Workers: 1,
			OnStep: func(_ int, l float64) { losses = append(losses, l) }}
		m, _, err := Train(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if m.Record.EnsemblePrior != prior {
			t.Fatalf("record's prior %v, want %v", m.Record.EnsemblePrior, prior)
		}
		return losses
	}
	with, without := run(true), run(false)
	if len(with) != 4 {
		t.Fatalf("losses %v", with)
	}
	for _, l := range with {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			t.Fatalf("losses %v", with)
		}
	}
	if slices.Equal(with, without) {
		t.Fatal("the prior changed nothing")
	}
}

// The gradient of a training step under the prior is the gradient of
// its loss (the loss of the logits plus the prior): a central difference
// on the output convolution's bias agrees with the step's gradient, and
// that gradient is not the one of the loss without the prior.
func TestEnsemblePriorGradient(t *testing.T) {
	train, valid := realSets(t)
	ctx := context.Background()
	if err := AttachTemplates(ctx, train, TemplateRefs(valid), false, 0.5); err != nil {
		t.Fatal(err)
	}
	if err := AttachMFE(ctx, train, nil, 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := AttachEnsemble(ctx, train, nil, "", 1, nil); err != nil {
		t.Fatal(err)
	}
	step := func(prior bool, shift float32) (loss float64, grad float32) {
		p := tinyProtocol
		p.Template, p.MinIdentity, p.Energy, p.Ensemble, p.EnsemblePrior = true, 0.5, true, true, prior
		m, err := NewModel(SCNN, p, 9)
		if err != nil {
			t.Fatal(err)
		}
		ps := m.Net.Params()
		bias := ps[len(ps)-1] // the output convolution's bias, one value
		if len(bias.Value) != 1 {
			t.Fatalf("last parameter %s has %d values, want the output bias", bias.Name, len(bias.Value))
		}
		bias.Value[0] += shift
		o := TrainOptions{Train: train, Protocol: p, Seed: 3, Workers: 1}
		loss, err = trainStep(scnn.Training(1), m, scnn.WeightedBCE{PosWeight: p.PosWeight, Workers: 1}, o, rand.New(rand.NewPCG(3, 1)), 0)
		if err != nil {
			t.Fatal(err)
		}
		return loss, bias.Grad[0]
	}
	const h = 1e-2
	_, g := step(true, 0)
	up, _ := step(true, h)
	down, _ := step(true, -h)
	fd := (up - down) / (2 * h)
	if math.Abs(fd-float64(g)) > 1e-3*max(1, math.Abs(fd)) {
		t.Fatalf("the bias gradient %g, a central difference %g", g, fd)
	}
	if _, g0 := step(false, 0); math.Abs(float64(g0)-float64(g)) < 1e-3*max(1, math.Abs(fd)) {
		t.Fatalf("the gradient with the prior, %g, is the one without it, %g", g, g0)
	}
}

// A record field this build does not know (a newer build's: a prior, a
// channel rule) is refused with the file's name, not dropped, so that a
// network never runs without what its record says it computes.
func TestReadModelUnknownField(t *testing.T) {
	m, err := NewModel(SCNN, FamiliesEnsemble, 1)
	if err != nil {
		t.Fatal(err)
	}
	arch, err := json.Marshal(m.Record)
	if err != nil {
		t.Fatal(err)
	}
	arch = append(arch[:len(arch)-1], []byte(`,"ensemble_future":true}`)...)
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, arch, m.Net.Params()); err != nil {
		t.Fatal(err)
	}
	_, err = ReadModel(bytes.NewReader(buf.Bytes()), "new.scnn")
	if err == nil || !strings.Contains(err.Error(), "new.scnn") || !strings.Contains(err.Error(), "ensemble_future") {
		t.Fatalf("%v, want the unknown field refused", err)
	}
}

// saveLoad writes m to a file and reads it back.
func saveLoad(t *testing.T, m *Model) *Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.scnn")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return back
}
