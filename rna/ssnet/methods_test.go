package ssnet

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// MembersAfter gives the share of an ensemble's work done, weighting each
// member by its work, 1 after the last layer of the last member, and
// stops with the context's error.
func TestMembersAfter(t *testing.T) {
	works := []float64{100, 300}
	var got []float64
	report := func(d float64, end bool) { got = append(got, d) }
	ctx := context.Background()
	for i, w := range works {
		after := MembersAfter(ctx, report, works, i)
		for _, done := range []float64{w / 2, w} {
			if err := after(done, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []float64{0.125, 0.25, 0.625, 1}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("shares %v, want %v", got, want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := MembersAfter(cancelled, nil, works, 0)(1, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}

// The registry lists the methods in --method's order, and the baselines
// of rna eval and rna compare in theirs, with their rows' names.
func TestMethodRegistry(t *testing.T) {
	if got, want := MethodNames(), "network, homology, mfe, centroid, mea-pf, consensus or stacking"; got != want {
		t.Errorf("MethodNames %q, want %q", got, want)
	}
	var got []string
	for _, m := range Baselines() {
		got = append(got, m.Name+": "+m.Row)
	}
	want := []string{"stacking: stacking", "mfe: MFE (Turner 2004)", "centroid: centroid (Turner 2004 ensemble)", "mea-pf: MEA (Turner 2004 ensemble, gamma 1)", "homology: homology transfer"}
	if len(got) != len(want) {
		t.Fatalf("baselines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("baseline %d: %q, want %q", i, got[i], want[i])
		}
	}
	for _, m := range Methods() {
		if m.New == nil || m.About == "" {
			t.Errorf("%s: no constructor or description", m.Name)
		}
		if n, ok := MethodNamed(m.Name); !ok || n.Name != m.Name {
			t.Errorf("MethodNamed(%q): %v", m.Name, ok)
		}
	}
	if _, ok := MethodNamed("fold"); ok {
		t.Error("an unknown method found")
	}
}

// Every model-free method predicts the same structure through the
// registry as through its Predictor, with a pair map when asked for.
func TestMethodPredictors(t *testing.T) {
	mol := &Molecule{Structure: &rna.Structure{Name: "q", Seq: "GGGGAAACCCCAUAGCGCGAAAGCGCUU"}}
	refs := TemplateRefs([]Molecule{{Structure: mustStructure(t, "ref", "GGGGAAACCCCAUAGCGCGAAAGCGCUU", "((((...))))..(((((....)))))."), Family: "x"}})
	for name, pred := range map[string]Predictor{"stacking": BaselinePredictor(), "mfe": MFEPredictor(), "centroid": CentroidPredictor(), "homology": HomologyPredictor(refs)} {
		want, err := pred(mol)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := MethodNamed(name)
		s, p, err := m.New(MethodOptions{Refs: refs, Map: true, Energy: true})(context.Background(), mol)
		if err != nil || !slices.Equal(s.Partner, want.Partner) || len(p) != len(mol.Seq)*len(mol.Seq) {
			t.Errorf("%s: %v, %v; want the pairs of %v and an L x L map", name, s, err, want)
		}
		if m.Folds && s.Energy == nil {
			t.Errorf("%s: no energy", name)
		}
	}
}

func mustStructure(t *testing.T, name, seq, db string) *rna.Structure {
	t.Helper()
	s, err := rna.ParseDotBracket(name, seq, db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The network method computes an ensemble-channel network's partition
// function under its context, once for all members: the probabilities
// are the model's own, and a cancelled context stops the molecule
// before the network runs.
func TestNetworkMethodEnsembleContext(t *testing.T) {
	for _, p := range []Protocol{FamiliesEnsemble, FamiliesEnsembleTemps} { // the latter: its channels at 25 and 50 C too
		t.Run(p.Name, func(t *testing.T) { testNetworkMethodEnsembleContext(t, p) })
	}
}

func testNetworkMethodEnsembleContext(t *testing.T, proto Protocol) {
	model, err := NewModel(CNN, proto, 1)
	if err != nil {
		t.Fatal(err)
	}
	seq := "GGGGAAACCCCAUAGCGCGAAAGCGCUUGCGCAAAAGCGCA"
	refs := TemplateRefs([]Molecule{{Structure: mustStructure(t, "ref", "GGGGAAACCCCAUAGCGCGAAAGCGCUU", "((((...))))..(((((....)))))."), Family: "x"}})
	nets := []Network{{Name: "a", Model: model, Refs: refs}, {Name: "b", Model: model, Refs: refs}}
	m, _ := MethodNamed(MethodNetwork)
	pred := m.New(MethodOptions{Networks: nets, Decoder: Greedy, Map: true, Workers: 1})
	mol := &Molecule{Structure: &rna.Structure{Name: "q", Seq: seq}}
	_, p, err := pred(context.Background(), mol)
	if err != nil {
		t.Fatal(err)
	}
	tm := refs.Search(seq, nil)
	want, err := model.ProbabilitiesAfter(seq, &tm, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := range want {
		// The mean of two equal members: the model's probabilities,
		// up to the float32 rounding of the mean.
		if d := p[k] - want[k]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("pixel %d: %v, the model alone %v", k, p[k], want[k])
		}
	}
	// Cancelled as the MFE fold ends: the partition function stops, and
	// the network is never started.
	ctx, cancel := context.WithCancel(context.Background())
	started := false
	pred = m.New(MethodOptions{Networks: nets, Decoder: Greedy, Workers: 1,
		OnFold: func(string, int) (func(done, total float64), func()) { return nil, cancel },
		OnNetwork: func(string, int, float64) func(float64, bool) {
			started = true
			return nil
		}})
	if _, _, err := pred(ctx, mol); !errors.Is(err, context.Canceled) || started {
		t.Fatalf("cancelled after the fold: %v (network started: %v), want context.Canceled before the network", err, started)
	}
}
