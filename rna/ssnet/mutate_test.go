package ssnet

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// A mutant keeps the structure and every canonical pair canonical,
// changes nothing else but A, C, G, U bases, leaves the molecule it came
// from alone, and changes bases at the rate asked, drawing the pairs by
// their weights.
func TestMutant(t *testing.T) {
	train, _ := realSets(t)
	// A non-canonical pair and an N, which a mutant must keep.
	odd := Molecule{Structure: &rna.Structure{Name: "odd", Seq: "GAAANCCCCAAAAGGGGAAAU", Partner: make([]int, 21)}}
	for i := range odd.Partner {
		odd.Partner[i] = rna.Unpaired
	}
	odd.Partner[0], odd.Partner[1] = 1, 0 // G-A
	for k := 5; k < 9; k++ {
		odd.Partner[k], odd.Partner[21-k] = 21-k, k
	}
	set := append(slices.Clone(train), odd)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rate := range []float64{0, 0.25, 1} {
		var unpaired, unpairedChanged, pairs, pairsChanged int
		drawn := map[string]int{}
		for rep := 0; rep < 40; rep++ {
			for k := range set {
				mol := &set[k]
				orig := mol.Seq
				mol.MFE, mol.Ensemble = []int{1}, []PairProb{{}}
				mut := Mutant(mol, rate, rng)
				if mol.Seq != orig || mol.MFE == nil || mol.Ensemble == nil {
					t.Fatalf("%s: the molecule mutated was changed", mol.Name)
				}
				if mut.Name != mol.Name || len(mut.Seq) != len(orig) || !slices.Equal(mut.Partner, mol.Partner) || mut.MFE != nil || mut.Ensemble != nil {
					t.Fatalf("%s: mutant %+v", mol.Name, mut)
				}
				for i, j := range mol.Partner {
					a, b := orig[i], mut.Seq[i]
					switch {
					case rna.BaseCode(a) < 0 || (j >= 0 && !canPair(orig[min(i, j)], orig[max(i, j)])):
						if a != b {
							t.Fatalf("%s %d: %c became %c (not A, C, G, U or a non-canonical pair)", mol.Name, i, a, b)
						}
					case j < 0:
						unpaired++
						if a != b {
							unpairedChanged++
						}
					case j > i:
						pairs++
						if !canPair(mut.Seq[i], mut.Seq[j]) {
							t.Fatalf("%s (%d, %d): %c-%c became %c-%c", mol.Name, i, j, a, orig[j], b, mut.Seq[j])
						}
						if a != b || orig[j] != mut.Seq[j] {
							pairsChanged++
						}
						drawn[mut.Seq[i:i+1]+mut.Seq[j:j+1]]++
					}
				}
			}
		}
		if pairs < 2000 || unpaired < 2000 {
			t.Fatalf("%d pairs, %d unpaired bases: too few to test", pairs, unpaired)
		}
		if got := float64(unpairedChanged) / float64(unpaired); math.Abs(got-rate) > 0.02 {
			t.Errorf("rate %v: %.3f of unpaired bases changed", rate, got)
		}
		if rate == 1 {
			// Every pair is redrawn: AU, UA, GC, CG 1/5 each, GU, UG 1/10.
			for p, want := range map[string]float64{"AU": 0.2, "UA": 0.2, "GC": 0.2, "CG": 0.2, "GU": 0.1, "UG": 0.1} {
				if got := float64(drawn[p]) / float64(pairs); math.Abs(got-want) > 0.02 {
					t.Errorf("rate 1: pair %s drawn %.3f of the time, want %.2f", p, got, want)
				}
			}
		}
		if rate == 0 && pairsChanged != 0 {
			t.Errorf("rate 0: %d pairs changed", pairsChanged)
		}
		if rate == 0.25 && (pairsChanged == 0 || float64(pairsChanged)/float64(pairs) > 0.25) {
			t.Errorf("rate 0.25: %d of %d pairs changed", pairsChanged, pairs)
		}
	}
}

// A mutant's channels are those of its own sequence, computed as the
// uncached attach functions compute them.
func TestMutantChannels(t *testing.T) {
	train, _ := realSets(t)
	mol := &train[0]
	mut := Mutant(mol, 0.5, rand.New(rand.NewPCG(3, 4)))
	if mut.Seq == mol.Seq {
		t.Fatal("the mutant is the molecule")
	}
	if err := MutantChannels(context.Background(), mut, true, []EnsembleFold{{}}); err != nil {
		t.Fatal(err)
	}
	mfe, err := MFEPartners(mut.Seq, 1)
	if err != nil {
		t.Fatal(err)
	}
	ens, err := EnsemblePairs(context.Background(), mut.Seq, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mut.MFE, mfe) || !slices.Equal(mut.Ensemble, ens) {
		t.Fatal("the mutant's channels are not its sequence's")
	}
	orig, err := MFEPartners(mol.Seq, 1)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(orig, mfe) {
		t.Error("the mutant folds as the molecule: the test says nothing")
	}
	only := Mutant(mol, 0.5, rand.New(rand.NewPCG(3, 4)))
	if err := MutantChannels(context.Background(), only, true, nil); err != nil || only.MFE == nil || only.Ensemble != nil {
		t.Errorf("energy only: MFE %v, ensemble %v, %v", only.MFE != nil, only.Ensemble != nil, err)
	}
}

// Training with mutants runs and changes the losses; a MutateMaxLen
// below every molecule mutates nothing and leaves the run as it was
// without mutants (the random stream included).
func TestTrainMutants(t *testing.T) {
	train, valid := realSets(t)
	run := func(mutate float64, maxLen int) []float64 {
		p := tinyProtocol
		p.Steps, p.EvalEvery = 6, 3
		p.Template, p.MinIdentity, p.Energy, p.Ensemble = true, 0.5, true, true
		p.Mutate, p.MutateRate, p.MutateMaxLen = mutate, 0.5, maxLen
		var losses []float64
		o := TrainOptions{Train: slices.Clone(train), Valid: slices.Clone(valid), Out: filepath.Join(t.TempDir(), "run"), Kind: SCNN, Protocol: p, Seed: 5, Workers: 1,
			OnStep: func(_ int, l float64) { losses = append(losses, l) }}
		if _, _, err := Train(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return losses
	}
	plain, mutated, none := run(0, 0), run(1, 1000), run(1, 10)
	if len(plain) != 6 || len(mutated) != 6 {
		t.Fatalf("losses %v, %v", plain, mutated)
	}
	for _, l := range mutated {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			t.Fatalf("losses %v", mutated)
		}
	}
	if slices.Equal(plain, mutated) {
		t.Error("mutants changed nothing")
	}
	if !slices.Equal(plain, none) {
		t.Errorf("no molecule short enough to mutate, yet the losses moved: %v, %v", plain, none)
	}
}
