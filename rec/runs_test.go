package rec

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/runcompare"
	"github.com/contactmap/contactmap/scnn"
)

// ScanRuns tells a finished run (its model read) from one still training
// (inside its first epoch too), one that cannot be read (a bad
// checkpoint, a model without a checkpoint, a truncated model, a model
// of other users) and a directory that holds no run, in name order;
// files beside the runs are passed over. The reasons name no
// command-line flag.
func TestScanRuns(t *testing.T) {
	d := syntheticData(t, 40, 30, 30)
	runs := t.TempDir()
	opts := func(d *Dataset, name string, kind scnn.Kind) TrainOptions {
		cfg := smallConfig(kind, 0, 0)
		return TrainOptions{Data: d, Out: filepath.Join(runs, name), Kind: kind, Seed: 2, Epochs: 1, Batch: 64, LR: 1e-2, Workers: 1, Config: &cfg}
	}
	if _, err := Train(context.Background(), opts(d, "scosrec-seed2", SCosRec)); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), opts(syntheticData(t, 41, 30, 30), "otherdata", CosRec)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	o := opts(d, "going", CosRec)
	o.OnBatch = func(float64) { cancel() }
	if _, err := Train(ctx, o); err != ErrInterrupted {
		t.Fatalf("cancelled run: %v", err)
	}
	cancel()
	os.MkdirAll(filepath.Join(runs, "broken"), 0o755)
	os.WriteFile(filepath.Join(runs, "broken", CheckpointFile), []byte("not a checkpoint"), 0o644)
	model, err := os.ReadFile(filepath.Join(runs, "scosrec-seed2", ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(runs, "modelonly"), 0o755)
	os.WriteFile(filepath.Join(runs, "modelonly", ModelFile), model, 0o644)
	os.MkdirAll(filepath.Join(runs, "truncated"), 0o755)
	ckpt, _ := os.ReadFile(filepath.Join(runs, "scosrec-seed2", CheckpointFile))
	os.WriteFile(filepath.Join(runs, "truncated", CheckpointFile), ckpt, 0o644)
	os.WriteFile(filepath.Join(runs, "truncated", ModelFile), model[:len(model)/2], 0o644)
	os.MkdirAll(filepath.Join(runs, "notes"), 0o755)
	os.WriteFile(filepath.Join(runs, "report.md"), []byte("x"), 0o644)

	dirs, err := ScanRuns(runs, d)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name  string
		state runcompare.RunState
		why   string
	}{
		{"broken", runcompare.Unreadable, ""},
		{"going", runcompare.Training, ""},
		{"modelonly", runcompare.Unreadable, "no checkpoint.scnn beside it"},
		{"notes", runcompare.NoRun, ""},
		{"otherdata", runcompare.Unreadable, "trained on 41 users"},
		{"scosrec-seed2", runcompare.Finished, ""},
		{"truncated", runcompare.Unreadable, ""},
	}
	if len(dirs) != len(want) {
		t.Fatalf("%d directories, want %d: %+v", len(dirs), len(want), dirs)
	}
	for i, w := range want {
		g := dirs[i]
		if g.Name != w.name || g.State != w.state || g.Path != filepath.Join(runs, w.name) {
			t.Errorf("%d: %s %v, want %s %v", i, g.Name, g.State, w.name, w.state)
		}
		if (g.State == runcompare.Unreadable) != (g.Err != nil) || g.Err != nil && !strings.Contains(g.Err.Error(), w.why) {
			t.Errorf("%s: state %v, error %v (want %q)", g.Name, g.State, g.Err, w.why)
		}
		if g.Err != nil && strings.Contains(g.Err.Error(), "--") {
			t.Errorf("%s: the library's error names a flag: %v", g.Name, g.Err)
		}
		if (g.State == runcompare.Finished) != (g.Run.Model != nil) {
			t.Errorf("%s: state %v, model %v", g.Name, g.State, g.Run.Model != nil)
		}
	}
	f := dirs[5].Run
	if f.Epochs != 1 || f.Seconds <= 0 || f.Model.Kind != SCosRec || f.Record.Seed != 2 {
		t.Errorf("finished run: %d epochs, %g s, %s seed %d", f.Epochs, f.Seconds, f.Model.Kind, f.Record.Seed)
	}
	if _, err := ScanRuns(filepath.Join(runs, "none"), d); !os.IsNotExist(err) {
		t.Errorf("missing directory: %v", err)
	}

	// The finished run, evaluated as a comparison run: one item per user
	// of the split, every metric, the run's kind, seed and cost.
	r, err := EvaluateRun(d, Test, f)
	if err != nil {
		t.Fatal(err)
	}
	um, err := Evaluate(d, Test, f.Model.Scorer(d, 0), 256)
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != "scosrec" || r.Seed != 2 || r.Params != f.Model.Trainable() || r.TrainSec != f.Seconds || r.Epochs != 1 ||
		len(r.Items) != len(um) || len(r.Scores) != len(CompareMetrics()) {
		t.Fatalf("%s seed %d, %d params, %g s, %d epochs, %d items of %d, %d metrics", r.Kind, r.Seed, r.Params, r.TrainSec, r.Epochs, len(r.Items), len(um), len(r.Scores))
	}
}

// UserRun puts the per-user metrics under CompareMetrics, users by raw
// ID.
func TestUserRun(t *testing.T) {
	if got := CompareMetrics(); !slices.Equal(got, []string{"MAP", "Prec@1", "Prec@5", "Prec@10", "Recall@1", "Recall@5", "Recall@10"}) {
		t.Fatalf("metrics %q", got)
	}
	var a, b UserMetrics
	a.User, a.AP, a.Prec.At5, a.Recall.At10 = 7, 0.5, 0.2, 1
	b.User, b.AP = 12, 0.25
	r := UserRun(runcompare.Run{Kind: "cosrec", Seed: 1}, []UserMetrics{a, b})
	if r.Kind != "cosrec" || !slices.Equal(r.Items, []string{"7", "12"}) || !slices.Equal(r.Scores["MAP"], []float64{0.5, 0.25}) ||
		!slices.Equal(r.Scores["Prec@5"], []float64{0.2, 0}) || !slices.Equal(r.Scores["Recall@10"], []float64{1, 0}) {
		t.Fatalf("%+v", r)
	}
}

// SameData tells a model of other users or items.
func TestSameData(t *testing.T) {
	d := syntheticData(t, 5, 8, 6)
	r := &Record{UserRaw: slices.Clone(d.UserRaw), ItemRaw: slices.Clone(d.ItemRaw)}
	if err := SameData(r, d); err != nil {
		t.Fatal(err)
	}
	r.UserRaw[2] = 99
	if err := SameData(r, d); err == nil || !strings.Contains(err.Error(), "other users") {
		t.Errorf("other users: %v", err)
	}
	r.UserRaw = slices.Clone(d.UserRaw)
	r.ItemRaw[1] = 99
	if err := SameData(r, d); err == nil || !strings.Contains(err.Error(), "other items") {
		t.Errorf("other items: %v", err)
	}
	r.ItemRaw = r.ItemRaw[:3]
	if err := SameData(r, d); err == nil || !strings.Contains(err.Error(), "trained on 5 users and 2 items") {
		t.Errorf("fewer items: %v", err)
	}
}
