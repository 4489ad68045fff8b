package train

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
)

// A model's row carries its kind, size and scores; several members are
// one predictor, the mean of their probabilities, "mixed" where their
// kinds differ; rows of one name are told apart by their models, and
// the rows sort by long-range top-L/5 precision, stably.
func TestReportRows(t *testing.T) {
	samples, _, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := tinyModel(t, model.SCNN, 1), tinyModel(t, model.SCNN, 2), tinyModel(t, model.CNN, 3)
	row, err := ModelRow("a.scnn", []*model.Model{a}, filepath.Join(t.TempDir(), "a.scnn"), samples)
	if err != nil {
		t.Fatal(err)
	}
	chains, err := EvaluateChains(a, samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := ReportRow{Name: "scnn (default)", Kind: "scnn", Config: "default", Params: a.Trainable(), Summary: metrics.Summarize(chains)}
	if !reflect.DeepEqual(row, want) {
		t.Errorf("model row %+v\nwant %+v", row, want)
	}
	ens, err := ModelRow("pair", []*model.Model{a, b}, "", samples)
	if err != nil {
		t.Fatal(err)
	}
	chains, err = EvaluateEnsemble([]*model.Model{a, b}, samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	want = ReportRow{Name: "pair (shipped; mean of 2 models)", Kind: "scnn", Config: "default", Params: a.Trainable() + b.Trainable(), Summary: metrics.Summarize(chains)}
	if !reflect.DeepEqual(ens, want) {
		t.Errorf("ensemble row %+v\nwant %+v", ens, want)
	}
	mixed, err := EnsembleRow("mixed", []*model.Model{a, c}, samples)
	if err != nil {
		t.Fatal(err)
	}
	if mixed.Kind != "mixed" || mixed.Config != "mixed" || mixed.Params != a.Trainable()+c.Trainable() {
		t.Errorf("mixed ensemble row %+v", mixed)
	}

	rep := &Report{Rows: []ReportRow{row, row, ens, mixed}}
	rep.NameApart([]string{"a.scnn", "b.scnn", "pair"})
	var names []string
	for _, r := range rep.Rows {
		names = append(names, r.Name)
	}
	if want := []string{"scnn (default): a.scnn", "scnn (default): b.scnn", "pair (shipped; mean of 2 models)", "mixed"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	rep.Rows = make([]ReportRow, 4)
	for i, v := range []float64{0.1, 0.3, 0.1, 0.2} {
		rep.Rows[i].Name = string(rune('a' + i))
		rep.Rows[i].Summary.TopL[metrics.Long][metrics.TopL5] = v
	}
	rep.SortByLong()
	names = names[:0]
	for _, r := range rep.Rows {
		names = append(names, r.Name)
	}
	if want := []string{"b", "d", "a", "c"}; !reflect.DeepEqual(names, want) {
		t.Errorf("sorted %q, want %q", names, want)
	}
}

// LoadRunModels reads the models a glob matches, with their runs'
// training time, and leaves out, with a line, a run still training.
func TestLoadRunModels(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"a", "b"} {
		p := filepath.Join(dir, name, ModelFile)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := tinyModel(t, model.SCNN, uint64(i+1)).Save(p); err != nil {
			t.Fatal(err)
		}
	}
	// A run interrupted in its first epoch: a checkpoint not marked done.
	ctx, cancel := context.WithCancel(context.Background())
	o := tinyOptions(t, model.SCNN)
	o.Out = filepath.Join(dir, "c")
	o.OnBatch = func(float64) { cancel() }
	if _, err := Train(ctx, o); err == nil {
		t.Fatal("the interrupted run succeeded")
	}
	if err := tinyModel(t, model.SCNN, 3).Save(filepath.Join(o.Out, ModelFile)); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	paths, ms, secs, err := LoadRunModels(filepath.Join(dir, "*", ModelFile), &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || len(ms) != 2 || len(secs) != 2 || filepath.Base(filepath.Dir(paths[1])) != "b" {
		t.Errorf("paths %q, %d models, seconds %v", paths, len(ms), secs)
	}
	if want := filepath.Join(o.Out, ModelFile) + ": still training (checkpoint present), left out\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	if _, _, _, err := LoadRunModels("[", &log); err == nil {
		t.Error("a bad pattern was accepted")
	}
}
