package ssnet

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
)

// shortTestMolecules are the bundled test molecules of at most maxLen
// bases (the 5S rRNAs and a few more), at least min of them.
func shortTestMolecules(t *testing.T, maxLen, min int) []Molecule {
	t.Helper()
	all, err := ReadSet("../../data/rna/test/testdata.txt")
	if err != nil {
		t.Fatal(err)
	}
	var set []Molecule
	for _, m := range all {
		if len(m.Seq) <= maxLen {
			set = append(set, m)
		}
	}
	if len(set) < min {
		t.Fatalf("%d test molecules of at most %d bases, want %d", len(set), maxLen, min)
	}
	return set
}

// sequentialScores is Evaluate as a plain loop.
func sequentialScores(t *testing.T, set []Molecule, pred Predictor) []MolScore {
	t.Helper()
	var out []MolScore
	for i := range set {
		s, err := pred(&set[i])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, score(&set[i], s))
	}
	return out
}

// Evaluate and EvaluateDecoders on parallel goroutines give the scores
// of a plain loop, in the set's order, whatever GOMAXPROCS; progress is
// called once per molecule.
func TestEvaluateParallelIsSequential(t *testing.T) {
	set := shortTestMolecules(t, 400, 6)
	slices.SortStableFunc(set, func(a, b Molecule) int { return len(a.Seq) - len(b.Seq) })
	set = set[:6]
	preds := map[string]Predictor{"stacking": BaselinePredictor(), "mfe": MFEPredictor(), "centroid": CentroidPredictor()}
	m, err := NewModel(SCNN, tinyProtocol, 4)
	if err != nil {
		t.Fatal(err)
	}
	ds := []Decoder{Greedy, MEA}
	var wantDec [][]MolScore
	for _, d := range ds {
		wantDec = append(wantDec, sequentialScores(t, set, DecodedPredictor(m, 1, d)))
	}
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		for name, pred := range preds {
			calls := 0
			got, err := Evaluate(set, pred, func() { calls++ })
			if err != nil {
				t.Fatal(err)
			}
			if want := sequentialScores(t, set, pred); !reflect.DeepEqual(got, want) {
				t.Errorf("%s on %d goroutines: scores differ from the sequential loop", name, procs)
			}
			if calls != len(set) {
				t.Errorf("%s: progress called %d times for %d molecules", name, calls, len(set))
			}
		}
		got, err := EvaluateDecoders(context.Background(), set, m, 1, ds, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantDec) {
			t.Errorf("EvaluateDecoders on %d goroutines: scores differ from the sequential loop", procs)
		}
		runtime.GOMAXPROCS(old)
	}
}

// Evaluate predicts molecules at once: with GOMAXPROCS 2 the first two
// molecules are in the predictor together (a sequential loop waits for
// the second in the first until the timeout).
func TestEvaluateRunsMoleculesConcurrently(t *testing.T) {
	set := shortTestMolecules(t, 200, 2)[:2]
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	arrived := make(chan struct{}, 2)
	pred := func(m *Molecule) (*rna.Structure, error) {
		arrived <- struct{}{}
		deadline := time.After(20 * time.Second)
		for len(arrived) < 2 {
			select {
			case <-deadline:
				return nil, errors.New("the other molecule never came: molecules run one after another")
			case <-time.After(time.Millisecond):
			}
		}
		return rna.StackingBaseline(m.Name, m.Seq)
	}
	if _, err := Evaluate(set, pred, nil); err != nil {
		t.Fatal(err)
	}
}

// Of several failing molecules, Evaluate returns the first one's error
// in the set's order, even when a later one fails first.
func TestEvaluateFirstErrorInSetOrder(t *testing.T) {
	set := shortTestMolecules(t, 200, 5)[:5]
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	laterFailed := make(chan struct{})
	pred := func(m *Molecule) (*rna.Structure, error) {
		switch m.Name {
		case set[1].Name:
			select {
			case <-laterFailed:
			case <-time.After(5 * time.Second):
			}
			return nil, errors.New("first failure")
		case set[3].Name:
			close(laterFailed)
			return nil, errors.New("later failure")
		}
		return rna.StackingBaseline(m.Name, m.Seq)
	}
	_, err := Evaluate(set, pred, nil)
	if err == nil || !strings.Contains(err.Error(), "first failure") || !strings.Contains(err.Error(), set[1].Name) {
		t.Fatalf("error %v, want molecule %s's first failure", err, set[1].Name)
	}
}

// MFEPredictor takes a molecule's attached MFE structure (AttachMFE,
// the same fold) as its prediction, identical to folding it; a molecule
// without one is folded.
func TestMFEPredictorReadsTheAttachedMFE(t *testing.T) {
	set := shortTestMolecules(t, 200, 3)
	folded := make([]*rna.Structure, len(set))
	for k := range set {
		s, err := MFEPredictor()(&set[k])
		if err != nil {
			t.Fatal(err)
		}
		folded[k] = s
	}
	if err := AttachMFE(t.Context(), set, nil, 2, nil); err != nil {
		t.Fatal(err)
	}
	for k := range set {
		s, err := MFEPredictor()(&set[k])
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := fold.MFE(set[k].Seq)
		if err != nil {
			t.Fatal(err)
		}
		want.Name = set[k].Name
		if !reflect.DeepEqual(s, want) || !reflect.DeepEqual(s, folded[k]) {
			t.Fatalf("%s: the attached MFE structure differs from the folded one", set[k].Name)
		}
	}
	// The attached structure is what it predicts: an unpaired one stays
	// unpaired (folding it would pair it).
	mol := set[0]
	mol.MFE = make([]int, len(mol.Seq))
	for i := range mol.MFE {
		mol.MFE[i] = rna.Unpaired
	}
	s, err := MFEPredictor()(&mol)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pairs()) != 0 {
		t.Fatalf("%d pairs predicted from an attached unpaired structure: the molecule was folded again", len(s.Pairs()))
	}
	mol.MFE = mol.MFE[1:]
	if _, err := MFEPredictor()(&mol); err == nil || !strings.Contains(err.Error(), mol.Name) {
		t.Fatalf("an attached MFE of the wrong length: %v", err)
	}
}

// CachedCentroidPredictor predicts CentroidPredictor's structures, from
// its cache once they are there.
func TestCachedCentroidPredictor(t *testing.T) {
	set := shortTestMolecules(t, 200, 3)[:3]
	cache := NewCentroidCache()
	for k := range set {
		want, err := CentroidPredictor()(&set[k])
		if err != nil {
			t.Fatal(err)
		}
		for pass := 0; pass < 2; pass++ {
			got, err := CachedCentroidPredictor(cache)(&set[k])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s pass %d: the cached centroid differs from CentroidPredictor's", set[k].Name, pass)
			}
		}
	}
	if cache.Len() != len(set) || !cache.Changed() {
		t.Fatalf("%d centroids cached for %d molecules", cache.Len(), len(set))
	}
}

// A network predicts one molecule at a time with its convolutions on
// every core (workers 0), GOMAXPROCS/workers with fewer.
func TestInferenceSlots(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct{ workers, want int }{{0, 1}, {1, 4}, {2, 2}, {3, 1}, {8, 1}} {
		if got := inferenceSlots(c.workers); got != c.want {
			t.Errorf("%d workers: %d molecules at once, want %d", c.workers, got, c.want)
		}
	}
}

// MeanProbabilities is the elementwise mean, and one map is itself.
func TestMeanProbabilities(t *testing.T) {
	a, b, c := []float32{0, 0.5, 1}, []float32{1, 0.25, 1}, []float32{0.5, 0, 0.1}
	got := MeanProbabilities([][]float32{a, b, c})
	want := []float32{0.5, 0.25, 0.7}
	for k := range want {
		if d := got[k] - want[k]; d > 1e-6 || d < -1e-6 {
			t.Errorf("mean[%d] = %v, want %v", k, got[k], want[k])
		}
	}
	if one := MeanProbabilities([][]float32{a}); &one[0] != &a[0] {
		t.Error("one map was copied")
	}
}

// An ensemble's structure is the decoder's on the mean of its networks'
// probabilities, averaged here apart from MeanProbabilities; the
// networks' own probabilities are left as they were; networks of other
// inputs are refused.
func TestEvaluateEnsembleDecoders(t *testing.T) {
	var ms []*Model
	for _, seed := range []uint64{1, 2} {
		m, err := NewModel(SCNN, Default, seed)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	st, err := rna.ParseDotBracket("m", "GGGGAAACCCCAUGGCCUUCGGGCCAGCGGAUUUAGCUC", "((((...))))...((((....)))).............")
	if err != nil {
		t.Fatal(err)
	}
	set := []Molecule{{Structure: st}}
	p1, err := ms[0].ProbabilitiesFor(&set[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := ms[1].ProbabilitiesFor(&set[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(p1, p2) {
		t.Fatal("two seeds give the same probabilities: the test cannot tell a mean from either")
	}
	mean := make([]float32, len(p1))
	for k := range p1 {
		mean[k] = (p1[k] + p2[k]) * 0.5
	}
	ds := []Decoder{Greedy, MEA}
	got, err := EvaluateEnsembleDecoders(context.Background(), set, ms, 1, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	paired := 0
	for k, d := range ds {
		want, err := d.Decode("m", st.Seq, mean)
		if err != nil {
			t.Fatal(err)
		}
		paired += len(want.Pairs())
		if w := score(&set[0], want); got[k][0] != w {
			t.Errorf("%s: %+v, want %+v", d, got[k][0], w)
		}
	}
	if paired == 0 {
		t.Fatal("no decoder finds a pair in the mean: the test cannot tell structures apart")
	}
	if again, err := ms[0].ProbabilitiesFor(&set[0], 1); err != nil || !slices.Equal(again, p1) {
		t.Errorf("the ensemble changed a network's probabilities (%v)", err)
	}
	other, err := NewModel(SCNN, FamiliesEnsemble, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EvaluateEnsembleDecoders(context.Background(), set, []*Model{ms[0], other}, 1, ds, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("networks of other inputs: %v, want ErrUsage", err)
	}
	// Cancelled: no molecule is predicted.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ticks := 0
	if _, err := EvaluateEnsembleDecoders(ctx, set, ms, 1, ds, func() { ticks++ }); !errors.Is(err, context.Canceled) || ticks != 0 {
		t.Errorf("cancelled: %v after %d molecules, want context.Canceled after none", err, ticks)
	}
}
