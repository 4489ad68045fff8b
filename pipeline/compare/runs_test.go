package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/train"
)

// tinyRuns writes the features of the training package's tiny list and,
// in a directory of runs, a small untrained model per kind and seed, a
// directory without a model and a run still training (interrupted in
// its first epoch).
func tinyRuns(t *testing.T) (runs string, samples []*model.Sample) {
	t.Helper()
	dir := t.TempDir()
	feat := filepath.Join(dir, "features")
	if _, err := features.Run(context.Background(), features.Config{List: "../train/testdata/tiny.list", PDBDir: "../../data/pdb",
		Out: feat, MinLen: 1, MaxLen: 1000, Workers: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	samples, mode, err := train.LoadSplit(feat, "all")
	if err != nil {
		t.Fatal(err)
	}
	arch := func(kind model.Kind, seed uint64) model.Arch {
		a := model.DefaultArch(kind)
		a.Blocks, a.Width, a.Head, a.HeadWidth, a.LSTMHidden = [][]int{{3}}, 4, []int{3}, 4, 4
		a.Mode, a.Labels, a.Seed = mode, samples[0].Labels.Def, seed
		return a
	}
	runs = filepath.Join(dir, "runs")
	for _, kind := range []model.Kind{model.CNN, model.SCNN} {
		for seed := uint64(1); seed <= 2; seed++ {
			m, err := model.NewModel(arch(kind, seed), seed)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(runs, fmt.Sprintf("%s-seed%d", kind, seed), train.ModelFile)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := m.Save(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	os.MkdirAll(filepath.Join(runs, "empty"), 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	o := train.Options{Features: feat, Out: filepath.Join(runs, "training"), Arch: arch(model.CNN, 3), Seed: 3, MaxEpochs: 2,
		Workers: 1, TrainSplit: "all", ValSplit: "all", BatchSize: 5, OnBatch: func(float64) { cancel() }}
	if _, err := train.Train(ctx, o); err == nil {
		t.Fatal("the interrupted run succeeded")
	}
	return runs, samples
}

// A directory of runs: the finished runs are evaluated, a line each, the
// run still training named and left out, the directory without a model
// skipped; two named sides compare run by run or as one ensemble each.
func TestRuns(t *testing.T) {
	runs, samples := tinyRuns(t)
	dirs, err := ScanDir(runs)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	got, err := EvaluateDirs(dirs, samples, &log)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range got {
		kinds = append(kinds, fmt.Sprintf("%s %d", r.Kind, r.Seed))
		if len(r.Items) != len(samples) || r.Params == 0 {
			t.Errorf("%s seed %d: %d items, %d parameters", r.Kind, r.Seed, len(r.Items), r.Params)
		}
	}
	if want := []string{"cnn 1", "cnn 2", "scnn 1", "scnn 2"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("runs %q, want %q", kinds, want)
	}
	want := "compare: cnn-seed1: cnn seed 1, 0 epochs\ncompare: cnn-seed2: cnn seed 2, 0 epochs\n" +
		"compare: scnn-seed1: scnn seed 1, 0 epochs\ncompare: scnn-seed2: scnn seed 2, 0 epochs\n" +
		"compare: training: still training (checkpoint present), left out\n"
	if log.String() != want {
		t.Errorf("log %q\nwant %q", log.String(), want)
	}
	res, err := CompareChains(got, "cnn", "scnn", 50, "all", "features")
	if err != nil {
		t.Fatal(err)
	}
	if res.Unit != "chains" || res.Split != "all" || res.Features != "features" || !reflect.DeepEqual(res.Seeds, []int{1, 2}) {
		t.Errorf("result: unit %q, split %q, features %q, seeds %v", res.Unit, res.Split, res.Features, res.Seeds)
	}

	log.Reset()
	paths, members, secs, err := train.LoadRunModels(filepath.Join(runs, "cnn-seed*", train.ModelFile), &log)
	if err != nil {
		t.Fatal(err)
	}
	side, err := SideRuns("a", paths, members, secs, samples, false, &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(side) != 2 || side[0].Kind != "a" || side[1].Seed != 2 || !reflect.DeepEqual(side[0].Scores, got[0].Scores) {
		t.Errorf("side runs %+v", side)
	}
	ens, err := SideRuns("b", paths, members, []float64{1, 2}, samples, true, &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(ens) != 1 || ens[0].Seed != 0 || ens[0].Params != got[0].Params+got[1].Params || ens[0].TrainSec != 3 {
		t.Errorf("ensemble side %+v", ens)
	}
	if want := "compare: a: 2 models\ncompare: b: ensemble of 2 models\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
}
