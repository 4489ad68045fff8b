package ssnet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/runcompare"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/homology"
)

// ScanRuns tells a finished run (its model read) from one still training
// (with its steps), one that cannot be read (a bad checkpoint, a model
// without a checkpoint, a finished run whose model is truncated) and a
// directory that holds no run, in name order; files beside the runs are
// passed over. The reasons name no command-line flag.
func TestScanRuns(t *testing.T) {
	train, valid := realSets(t)
	runs := t.TempDir()
	p := tinyProtocol
	p.Steps, p.EvalEvery = 4, 2
	opts := func(name string) TrainOptions {
		return TrainOptions{Train: slices.Clone(train), Valid: slices.Clone(valid), Out: filepath.Join(runs, name), Kind: CNN, Protocol: p, Seed: 2, Workers: 1}
	}
	if _, _, err := Train(context.Background(), opts("cnn-seed2")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	o := opts("going")
	o.OnStep = func(step int, _ float64) {
		if step == 1 {
			cancel()
		}
	}
	if _, _, err := Train(ctx, o); err != ErrInterrupted {
		t.Fatalf("cancelled run: %v", err)
	}
	os.MkdirAll(filepath.Join(runs, "broken"), 0o755)
	os.WriteFile(filepath.Join(runs, "broken", CheckpointFile), []byte("not a checkpoint"), 0o644)
	os.MkdirAll(filepath.Join(runs, "modelonly"), 0o755)
	model, err := os.ReadFile(filepath.Join(runs, "cnn-seed2", ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(runs, "modelonly", ModelFile), model, 0o644)
	os.MkdirAll(filepath.Join(runs, "truncated"), 0o755)
	ckpt, _ := os.ReadFile(filepath.Join(runs, "cnn-seed2", CheckpointFile))
	os.WriteFile(filepath.Join(runs, "truncated", CheckpointFile), ckpt, 0o644)
	os.WriteFile(filepath.Join(runs, "truncated", ModelFile), model[:len(model)/2], 0o644)
	os.MkdirAll(filepath.Join(runs, "notes"), 0o755)
	os.WriteFile(filepath.Join(runs, "report.md"), []byte("x"), 0o644)

	dirs, err := ScanRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name  string
		state runcompare.RunState
	}{{"broken", runcompare.Unreadable}, {"cnn-seed2", runcompare.Finished}, {"going", runcompare.Training},
		{"modelonly", runcompare.Unreadable}, {"notes", runcompare.NoRun}, {"truncated", runcompare.Unreadable}}
	if len(dirs) != len(want) {
		t.Fatalf("%d directories, want %d: %+v", len(dirs), len(want), dirs)
	}
	for i, w := range want {
		d := dirs[i]
		if d.Name != w.name || d.State != w.state || d.Path != filepath.Join(runs, w.name) {
			t.Errorf("%d: %s %v, want %s %v", i, d.Name, d.State, w.name, w.state)
		}
		if (d.State == runcompare.Unreadable) != (d.Err != nil) {
			t.Errorf("%s: state %v, error %v", d.Name, d.State, d.Err)
		}
		if d.Err != nil && strings.Contains(d.Err.Error(), "--") {
			t.Errorf("%s: the library's error names a flag: %v", d.Name, d.Err)
		}
		if (d.State == runcompare.Finished) != (d.Run.Model != nil) {
			t.Errorf("%s: state %v, model %v", d.Name, d.State, d.Run.Model != nil)
		}
	}
	if f := dirs[1].Run; f.Steps != 4 || f.Seconds <= 0 || f.Model.Record.Kind != CNN || f.Model.Record.Seed != 2 {
		t.Errorf("finished run: %d steps, %g s, %s seed %d", f.Steps, f.Seconds, f.Model.Record.Kind, f.Model.Record.Seed)
	}
	if g := dirs[2].Run; g.Steps != 1 {
		t.Errorf("run still training: %d steps, want 1", g.Steps)
	}
	if _, err := ScanRuns(filepath.Join(runs, "none")); !os.IsNotExist(err) {
		t.Errorf("missing directory: %v", err)
	}
}

// A run's split is predicted once: the scores are read back from the
// run directory while the model file is unchanged, and computed again
// when it changes; another decoder has its own cache file.
func TestRunScoresCache(t *testing.T) {
	dir := t.TempDir()
	save := func(seed uint64) *Model {
		m, err := NewModel(SCNN, Default, seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Save(filepath.Join(dir, ModelFile)); err != nil {
			t.Fatal(err)
		}
		return m
	}
	h1, _ := rna.New("h1", "GGGGAAAACCCCAUGC", [][2]int{{0, 11}, {1, 10}, {2, 9}, {3, 8}})
	h2, _ := rna.New("h2", "GCGCUUUUGCGCAAAA", [][2]int{{0, 11}, {1, 10}})
	set := []Molecule{{Structure: h1}, {Structure: h2}}
	m := save(1)
	first, err := RunScores(dir, "test", set, m, Greedy)
	if err != nil || len(first) != 2 {
		t.Fatalf("%v, %v", first, err)
	}
	cache := filepath.Join(dir, "scores-test.json")
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	// Mark the cached scores: a read from the cache returns the mark.
	var c struct {
		ModelSHA256 string     `json:"model_sha256"`
		Scores      []MolScore `json:"scores"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	c.Scores[0].Exact.F1 = 0.123
	b, _ = json.Marshal(c)
	os.WriteFile(cache, b, 0o644)
	again, err := RunScores(dir, "test", set, m, Greedy)
	if err != nil || again[0].Exact.F1 != 0.123 {
		t.Fatalf("not read from the cache: %+v, %v", again, err)
	}
	// Another set of the same size under the same split name (--set):
	// its own scores, not the cache's.
	h3, _ := rna.New("h3", "AAAAGGGGUUUUCCCC", [][2]int{{4, 15}, {5, 14}})
	other, err := RunScores(dir, "test", []Molecule{{Structure: h3}, {Structure: h2}}, m, Greedy)
	if err != nil || other[0].Name != "h3" {
		t.Fatalf("another set read the cache: %+v, %v", other, err)
	}
	os.WriteFile(cache, b, 0o644)
	if _, err := RunScores(dir, "test", set, m, MEA); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "scores-test-mea.json")); err != nil {
		t.Error(err)
	}
	m = save(2)
	fresh, err := RunScores(dir, "test", set, m, Greedy)
	if err != nil || fresh[0].Name != "h1" {
		t.Fatalf("a changed model read stale scores: %+v, %v", fresh, err)
	}
}

// molScores are per-molecule scores of molecules a, b and c with exact
// F1 (and the other metrics) f.
func molScores(f ...float64) []MolScore {
	var out []MolScore
	for i, v := range f {
		s := rna.Score{PPV: v, Sens: v, Accuracy: v, F1: v, MCC: v}
		out = append(out, MolScore{Name: string(rune('a' + i)), Exact: s, Shift: s})
	}
	return out
}

// MoleculeRun puts the per-molecule scores under CompareMetrics.
func TestMoleculeRun(t *testing.T) {
	s := molScores(0.1, 0.2)
	s[1].Exact.PPV, s[1].Shift.MCC = 0.7, 0.9
	r := MoleculeRun(runcompare.Run{Kind: "cnn", Seed: 3}, s)
	if r.Kind != "cnn" || r.Seed != 3 || !slices.Equal(r.Items, []string{"a", "b"}) || len(r.Scores) != len(CompareMetrics()) ||
		!slices.Equal(r.Scores["PPV"], []float64{0.1, 0.7}) || !slices.Equal(r.Scores["MCC ±1"], []float64{0.1, 0.9}) {
		t.Fatalf("%+v", r)
	}
}

// CompareRuns compares SCNN with CNN and each kind with each baseline,
// on all molecules and on the disjoint ones; without both kinds, only
// the comparisons with the baselines.
func TestCompareRuns(t *testing.T) {
	var runs []runcompare.Run
	for seed := 1; seed <= 2; seed++ {
		runs = append(runs,
			MoleculeRun(runcompare.Run{Kind: "cnn", Seed: seed}, molScores(0.5, 0.6, 0.7)),
			MoleculeRun(runcompare.Run{Kind: "scnn", Seed: seed}, molScores(0.6, 0.7, 0.9)))
	}
	base := []runcompare.Run{MoleculeRun(runcompare.Run{Kind: "stacking"}, molScores(0.1, 0.2, 0.3))}
	disjoint := map[string]bool{"a": true, "c": true}
	got, err := CompareRuns(runs, base, disjoint, "test", "set.txt", 20)
	if err != nil {
		t.Fatal(err)
	}
	var suffixes []string
	for _, c := range got {
		suffixes = append(suffixes, c.Suffix)
		r := c.Result
		if r.Unit != "molecules" || r.Features != "set.txt" || !strings.HasPrefix(r.Split, "test") || !slices.Equal(r.Seeds, []int{1, 2}) {
			t.Errorf("%q: unit %q, features %q, split %q, seeds %v", c.Suffix, r.Unit, r.Features, r.Split, r.Seeds)
		}
		wantItems := 3
		if strings.HasPrefix(c.Suffix, "-disjoint") {
			wantItems = 2
			if !strings.Contains(r.Split, "identity to every training molecule") {
				t.Errorf("%q: split %q", c.Suffix, r.Split)
			}
		}
		if r.Items != wantItems {
			t.Errorf("%q: %d items, want %d", c.Suffix, r.Items, wantItems)
		}
	}
	want := []string{"", "-vs-cnn-stacking", "-vs-scnn-stacking", "-disjoint", "-disjoint-vs-cnn-stacking", "-disjoint-vs-scnn-stacking"}
	if !slices.Equal(suffixes, want) {
		t.Fatalf("comparisons %q, want %q", suffixes, want)
	}
	if r := got[0].Result; r.KindA != "cnn" || r.KindB != "scnn" || len(r.Rows) != len(CompareMetrics()) {
		t.Errorf("main comparison: %s vs %s, %d rows", r.KindB, r.KindA, len(r.Rows))
	}
	if r := got[1].Result; r.KindA != "stacking" || r.KindB != "cnn" || r.Rows[0].Metric != "F1" {
		t.Errorf("baseline comparison: %s vs %s, first row %s", r.KindB, r.KindA, r.Rows[0].Metric)
	}
	only, err := CompareRuns(runs[1:2], base, disjoint, "test", "set.txt", 20)
	if err != nil || len(only) != 2 || only[0].Suffix != "-vs-scnn-stacking" {
		t.Fatalf("SCNN runs only: %v, %+v", err, only)
	}
	if none, err := CompareRuns(nil, nil, disjoint, "test", "set.txt", 20); err != nil || len(none) != 0 {
		t.Fatalf("no runs: %v, %d", err, len(none))
	}
}

// NewEvalRow summarises all the scores and the disjoint molecules'.
func TestNewEvalRow(t *testing.T) {
	r := NewEvalRow("p", 7, molScores(0.2, 0.4, 0.9), map[string]bool{"c": true})
	if r.Name != "p" || r.Params != 7 || len(r.Scores) != 3 || r.Summaries[0].N != 3 || r.Disjoint[0].N != 1 || r.Disjoint[0].Exact.F1 != 0.9 {
		t.Fatalf("%+v", r)
	}
}

// AttachMFECached folds through the cache file: written when it gained
// structures, read back by the next call.
func TestAttachMFECached(t *testing.T) {
	h1, _ := rna.New("h1", "GGGGAAAACCCCAUGC", nil)
	h2, _ := rna.New("h2", "GCGCUUUUGCGCAAAA", nil)
	file := filepath.Join(t.TempDir(), "sub", "mfe.tsv.gz")
	os.MkdirAll(filepath.Dir(file), 0o755)
	a, b := []Molecule{{Structure: h1}}, []Molecule{{Structure: h2}}
	n := 0
	if err := AttachMFECached(context.Background(), file, 2, func() { n++ }, a, b); err != nil {
		t.Fatal(err)
	}
	if n != 2 || a[0].MFE == nil || b[0].MFE == nil {
		t.Fatalf("progress %d, MFE %v %v", n, a[0].MFE, b[0].MFE)
	}
	c, err := ReadMFECache(file)
	if err != nil || c.Len() != 2 {
		t.Fatalf("cache file: %v, %v", c, err)
	}
	again := []Molecule{{Structure: h1}}
	if err := AttachMFECached(context.Background(), file, 1, nil, again); err != nil || !slices.Equal(again[0].MFE, a[0].MFE) {
		t.Fatalf("from the cache: %v, %v", again[0].MFE, err)
	}
	if err := AttachMFECached(context.Background(), "", 1, nil, []Molecule{{Structure: h2}}); err != nil {
		t.Fatal(err)
	}
}

// An interrupted AttachMFECached (ctx cancelled after the first fold)
// starts no further molecule, returns ctx's error and still writes the
// folds it finished to the cache file, so that none is lost.
func TestAttachMFECachedInterrupted(t *testing.T) {
	var set []Molecule
	for k, seq := range []string{"GGGGAAAACCCCAUGC", "GCGCUUUUGCGCAAAA", "GGACUUCGGUCCAAAA", "CCCCAAAAGGGGAAAA", "AUAUGGGAAACCCAUA", "GGGAAACCCUUUGGGAAACCC"} {
		s, _ := rna.New(fmt.Sprintf("m%d", k), seq, nil)
		set = append(set, Molecule{Structure: s})
	}
	file := filepath.Join(t.TempDir(), "mfe.tsv.gz")
	ctx, cancel := context.WithCancel(context.Background())
	err := AttachMFECached(ctx, file, 1, cancel, set)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	folded := 0
	for _, m := range set {
		if m.MFE != nil {
			folded++
		}
	}
	// One fold finished before the cancel; the feeder may have handed
	// the worker one more before it saw it.
	if folded < 1 || folded > 2 {
		t.Fatalf("%d of %d molecules folded after a cancel at the first", folded, len(set))
	}
	c, err := ReadMFECache(file)
	if err != nil || c.Len() != folded {
		t.Fatalf("cache file after the interruption: %v entries, %v; want %d", c.Len(), err, folded)
	}
}

// Homology transfer ranks its prefilter's candidates by Jaccard
// similarity (HomologyRank), whatever the index's own ranking: three long
// references holding the query's every K-mer would crowd its true,
// query-sized homolog out of the candidates under shared-K-mer counts.
func TestHomologyPredictorRanksByJaccard(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	randSeq := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ACGU"[r.IntN(4)]
		}
		return b
	}
	// A hairpin query: 20 paired bases, a loop of 8.
	q := randSeq(48)
	comp := map[byte]byte{'A': 'U', 'U': 'A', 'C': 'G', 'G': 'C'}
	for i := 0; i < 20; i++ {
		q[47-i] = comp[q[i]]
	}
	var pairs [][2]int
	for i := 0; i < 20; i++ {
		pairs = append(pairs, [2]int{i, 47 - i})
	}
	// The homolog: the query with one base of the loop changed, same
	// pairs.
	h := append([]byte(nil), q...)
	h[24] = comp[h[24]]
	homolog, err := rna.New("homolog", string(h), pairs)
	if err != nil {
		t.Fatal(err)
	}
	refs := []*rna.Structure{homolog}
	for k := 0; k < homology.Candidates; k++ { // long decoys holding the query, unpaired
		long := append(randSeq(700), q...)
		long = append(long, randSeq(700)...)
		s, err := rna.New(fmt.Sprintf("decoy%d", k), string(long), nil)
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, s)
	}
	ix := homology.NewIndex(refs) // RankShared
	mol := &Molecule{Structure: &rna.Structure{Name: "query", Seq: string(q)}}
	shared, _, err := ix.Predict("query", string(q), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(shared.Pairs()) != 0 {
		t.Fatalf("by shared K-mers the decoys should win (no pairs), got %d pairs: the test checks nothing", len(shared.Pairs()))
	}
	got, err := HomologyPredictor(ix)(mol)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Pairs()) != len(pairs) {
		t.Errorf("homology transfer carried %d pairs, want the homolog's %d", len(got.Pairs()), len(pairs))
	}
	if ix.Rank != homology.RankShared {
		t.Error("HomologyPredictor changed the index's own ranking")
	}
}
