package fold

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// tableBonus is a PairBonus of random values in [-a, a], fixed per pair.
func tableBonus(r *rand.Rand, n int, a float64) (PairBonus, []float64) {
	t := make([]float64, n*n)
	for i := range t {
		t[i] = a * (2*r.Float64() - 1)
	}
	return func(i, j int) float64 { return t[i*n+j] }, t
}

// TestPartitionBonusBruteForce enumerates every structure of sequences
// of 5 to 18 nt and compares Z and the pair probabilities of the
// ensemble with random pair bonuses (each structure's Boltzmann weight
// times exp of its pairs' bonuses) with the dynamic programme.
func TestPartitionBonusBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	models := []struct {
		name string
		p    *Params
	}{
		{"d2", DefaultParams()}, {"span10", DefaultParams().WithMaxSpan(10)},
		{"noLP", DefaultParams().WithNoLP(true)},
	}
	trials := 80
	if testing.Short() {
		trials = 20
	}
	worst := 0.0
	for trial := 0; trial < trials; trial++ {
		seq := randomSeq(r, 5+r.IntN(14), trial%2 == 0)
		n := len(seq)
		bonus, tab := tableBonus(r, n, 3)
		all := allStructures(seq)
		for _, mod := range models {
			p := mod.p
			z, pz, _ := bruteForce(t, p, seq, all, tab)
			for _, threads := range []int{1, 3} {
				ens, err := p.partition(context.Background(), seq, threads, pfOptions{mfeLike: true, bonus: bonus})
				if err != nil {
					t.Fatalf("%s %s: %v", mod.name, seq, err)
				}
				_, w := checkBruteForce(t, mod.name, ens, z, pz)
				worst = max(worst, w)
			}
		}
	}
	t.Logf("largest relative difference of a pair probability: %.2g", worst)
}

// TestPartitionBonusZero checks that a zero bonus gives Partition's
// ensemble bit for bit, globally and with a span limit, and with a span
// limit in square tables too.
func TestPartitionBonusZero(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	seq := randomSeq(r, 150, false)
	for _, p := range []*Params{DefaultParams(), DefaultParams().WithMaxSpan(40)} {
		want, err := p.Partition(seq, 2)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.PartitionBonus(context.Background(), seq, func(int, int) float64 { return 0 }, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got.FreeEnergy != want.FreeEnergy {
			t.Errorf("span %d: free energy %v, want %v", p.MaxSpan(), got.FreeEnergy, want.FreeEnergy)
		}
		for i := range want.prob {
			if got.prob[i] != want.prob[i] {
				t.Fatalf("span %d: probability at %d is %v, want %v", p.MaxSpan(), i, got.prob[i], want.prob[i])
			}
		}
		sq, err := p.partition(context.Background(), seq, 2, pfOptions{square: true, bonus: func(int, int) float64 { return 0 }})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(seq); i++ {
			for j := i + 1; j < len(seq); j++ {
				if g, w := sq.Prob(i, j), want.Prob(i, j); math.Abs(g-w) > 1e-12*max(w, 1e-300) {
					t.Fatalf("span %d, square tables: P(%d, %d) = %v, want %v", p.MaxSpan(), i, j, sq.Prob(i, j), want.Prob(i, j))
				}
			}
		}
	}
}

// TestPartitionBonusRescale checks the scale's search on an ensemble
// far from its MFE estimate: 250 G can pair with the C of two regions,
// the bonuses disfavour every pair but those of one helix, (k, 499-k),
// and 600 nt come out finite, with that helix formed.
func TestPartitionBonusRescale(t *testing.T) {
	seq := []byte(strings.Repeat("G", 250) + strings.Repeat("C", 350))
	bonus := func(i, j int) float64 {
		if i+j == 499 {
			return 9.21 // the hybrid network's clamp (ssnet.HybridClamp)
		}
		return -9.21
	}
	e, err := DefaultParams().PartitionBonus(context.Background(), string(seq), bonus, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := e.Prob(10, 489); !(p > 0.99) {
		t.Errorf("P(10, 489) = %v", p)
	}
}
