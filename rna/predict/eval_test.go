package predict_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contactmap/contactmap/rna/predict"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// evalFixture writes into dir an untrained families-ensemble CNN, the
// evaluated set (dot-bracket text) and a one-molecule training set, and
// returns their paths.
func evalFixture(t *testing.T, dir, setText string) (modelFile, set, train string) {
	t.Helper()
	m, err := ssnet.NewModel(ssnet.CNN, ssnet.FamiliesEnsemble, 1)
	if err != nil {
		t.Fatal(err)
	}
	modelFile = filepath.Join(dir, "model.scnn")
	if err := m.Save(modelFile); err != nil {
		t.Fatal(err)
	}
	set, train = filepath.Join(dir, "set.dbn"), filepath.Join(dir, "train.dbn")
	for path, text := range map[string]string{set: setText, train: ">r\nGGGGAAACCCCAUGGCCUUCGGGCCA\n((((...))))...((((....))))\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return modelFile, set, train
}

// rna eval of a network with the ensemble channel computes each
// molecule's channel once into --ensemble-cache, and a second eval that
// reads the cache scores every molecule as the eval that computed them.
func TestEvalEnsembleCache(t *testing.T) {
	dir := t.TempDir()
	modelFile, set, train := evalFixture(t, dir, ">a\nGGGGAAACCCCAUGGCCUUCGGGCCA\n((((...))))...((((....))))\n>b\nGCGGAUUUAGCUCAGUUGGGAGAGC\n(((((...........)))))....\n")
	cache := filepath.Join(dir, "ensemble.tsv.gz")
	eval := func(cacheFile string) *ssnet.EvalReport {
		t.Helper()
		rep, err := predict.Eval(context.Background(), predict.EvalConfig{Models: []string{modelFile}, Set: set, Train: train,
			MFECache: "", CentroidCache: "", EnsembleCache: cacheFile, Decoders: []ssnet.Decoder{ssnet.Greedy}, Workers: 1,
			Shipped: predict.Shipped{Load: loadFile}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	computed := eval("")
	if _, err := os.Stat(cache); err == nil {
		t.Fatal("an eval without a cache file wrote one")
	}
	first := eval(cache)
	c, err := ssnet.ReadEnsembleCache(cache)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 2 {
		t.Fatalf("the cache holds %d molecules' channels, want 2", c.Len())
	}
	second := eval(cache) // read from the cache
	for k, rep := range []*ssnet.EvalReport{first, second} {
		if len(rep.Rows) != len(computed.Rows) || len(rep.Rows) == 0 {
			t.Fatalf("eval %d: %d rows, want %d", k+1, len(rep.Rows), len(computed.Rows))
		}
		for i := range rep.Rows {
			if !reflect.DeepEqual(rep.Rows[i].Scores, computed.Rows[i].Scores) {
				t.Errorf("eval %d, row %s: %+v, computed %+v", k+1, rep.Rows[i].Name, rep.Rows[i].Scores, computed.Rows[i].Scores)
			}
		}
	}
}

// A network evaluated under another ensemble rule than its protocol's
// is another predictor: its rows are named for the rule, so that the
// same network under both rules in one eval gives rows of two names.
func TestEvalNamesTheEnsembleRule(t *testing.T) {
	dir := t.TempDir()
	m, err := ssnet.NewModel(ssnet.CNN, ssnet.FamiliesEnsemble, 1)
	if err != nil {
		t.Fatal(err)
	}
	band, global := filepath.Join(dir, "band.scnn"), filepath.Join(dir, "global.scnn")
	if err := m.Save(band); err != nil {
		t.Fatal(err)
	}
	m.Record.EnsembleGlobal = 600
	if err := m.Save(global); err != nil {
		t.Fatal(err)
	}
	set, train := writeSetAndTrain(t, dir, ">a\nGGGGAAACCCCAUGGCCUUCGGGCCA\n((((...))))...((((....))))\n")
	rep, err := predict.Eval(context.Background(), predict.EvalConfig{Models: []string{band, global}, Set: set, Train: train,
		Decoders: []ssnet.Decoder{ssnet.Greedy}, Workers: 1, Shipped: predict.Shipped{Load: loadFile}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rep.Rows {
		names = append(names, r.Name)
	}
	want := []string{"cnn families-ensemble seed 1, greedy", "cnn families-ensemble seed 1, ensemble global to 600 nt, greedy"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("rows %q, want %q", names, want)
	}
}

// An ensemble spec ("a+b") is one row, scored on the mean of its
// networks' probabilities: the same scores as ssnet's ensemble
// evaluation, with the members' parameters; members of other input
// rules are refused.
func TestEvalEnsemble(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, seed := range []uint64{1, 2} {
		m, err := ssnet.NewModel(ssnet.SCNN, ssnet.Default, seed)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "m"+string(rune('0'+seed))+".scnn")
		if err := m.Save(f); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	set, train := writeSetAndTrain(t, dir, ">a\nGGGGAAACCCCAUGGCCUUCGGGCCA\n((((...))))...((((....))))\n>b\nGGGCGAAAGCCCAUCCGCAAGGAUGG\n((((....)))).((((....)))).\n")
	ens := files[0] + "+" + files[1]
	rep, err := predict.Eval(context.Background(), predict.EvalConfig{Models: []string{files[0], files[1], ens}, Set: set, Train: train,
		Decoders: []ssnet.Decoder{ssnet.Greedy}, Workers: 1, Shipped: predict.Shipped{Load: loadFile}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rep.Rows))
	}
	if want := "ensemble of 2 (scnn default seed 1 + scnn default seed 2), greedy"; rep.Rows[2].Name != want {
		t.Errorf("row %q, want %q", rep.Rows[2].Name, want)
	}
	mols, err := ssnet.ReadSet(set)
	if err != nil {
		t.Fatal(err)
	}
	var ms []*ssnet.Model
	for _, f := range files {
		m, err := ssnet.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	want, err := ssnet.EvaluateEnsembleDecoders(context.Background(), mols, ms, 1, []ssnet.Decoder{ssnet.Greedy}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Rows[2].Scores, want[0]) {
		t.Errorf("ensemble scores %+v, want %+v", rep.Rows[2].Scores, want[0])
	}
	if rep.Rows[2].Params != rep.Rows[0].Params+rep.Rows[1].Params {
		t.Errorf("ensemble parameters %d, members %d and %d", rep.Rows[2].Params, rep.Rows[0].Params, rep.Rows[1].Params)
	}

	other, err := ssnet.NewModel(ssnet.SCNN, ssnet.FamiliesEnsemble, 1)
	if err != nil {
		t.Fatal(err)
	}
	of := filepath.Join(dir, "other.scnn")
	if err := other.Save(of); err != nil {
		t.Fatal(err)
	}
	_, err = predict.Eval(context.Background(), predict.EvalConfig{Models: []string{files[0] + "+" + of}, Set: set, Train: train,
		Decoders: []ssnet.Decoder{ssnet.Greedy}, Workers: 1, Shipped: predict.Shipped{Load: loadFile}})
	if !errors.Is(err, ssnet.ErrUsage) {
		t.Errorf("members of other inputs: %v, want a usage error", err)
	}
}

// writeSetAndTrain writes the evaluated set (records in dot-bracket) and
// a one-molecule training file unlike it into dir.
func writeSetAndTrain(t *testing.T, dir, records string) (set, train string) {
	t.Helper()
	set, train = filepath.Join(dir, "set.dbn"), filepath.Join(dir, "train.dbn")
	if err := os.WriteFile(set, []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(train, []byte(">r\nGCGGAUUUAGCUCAGUUGGGAGAGC\n(((((...........)))))....\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return set, train
}

// loadFile is Shipped.Load for model files only.
func loadFile(spec string) (*ssnet.Model, string, error) {
	m, err := ssnet.Load(spec)
	return m, spec, err
}
