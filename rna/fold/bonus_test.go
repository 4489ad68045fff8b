package fold

import (
	"context"
	"math"
	"math/rand/v2"
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
			kT := (p.temperature + 273.15) * gasConst
			z, pz, _ := bruteForce(t, p, seq, all, tab)
			for _, threads := range []int{1, 3} {
				ens, err := p.partition(context.Background(), seq, threads, pfOptions{mfeLike: true, bonus: bonus})
				if err != nil {
					t.Fatalf("%s %s: %v", mod.name, seq, err)
				}
				zdp := math.Exp(-ens.FreeEnergy * 1000 / kT)
				if rel := math.Abs(zdp-z) / z; rel > 1e-9 {
					t.Errorf("%s %s: Z = %.12g, brute force %.12g (rel %.2g)", mod.name, seq, zdp, z, rel)
				}
				for i := 0; i < n; i++ {
					for j := i + 1; j < n; j++ {
						want, got := pz[i*n+j]/z, ens.Prob(i, j)
						d := math.Abs(got - want)
						if want > 0 {
							d /= want
						}
						worst = max(worst, d)
						if d > 1e-9 {
							t.Errorf("%s %s: P(%d,%d) = %.12g, brute force %.12g", mod.name, seq, i, j, got, want)
						}
					}
				}
			}
		}
	}
	t.Logf("largest relative difference of a pair probability: %.2g", worst)
}

// TestPartitionBonusZero checks that a zero bonus gives Partition's
// ensemble bit for bit, globally and with a span limit.
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
	}
}

// TestPartitionBonusGradient checks on a 70-nt sequence, globally and
// with a span limit, that the pair probabilities are the derivatives of
// ln Z with respect to the bonuses, by central differences.
func TestPartitionBonusGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	seq := randomSeq(r, 70, true)
	n := len(seq)
	for _, p := range []*Params{DefaultParams(), DefaultParams().WithMaxSpan(30)} {
		_, tab := tableBonus(r, n, 1)
		lnZ := func() float64 {
			e, err := p.PartitionBonus(context.Background(), seq, func(i, j int) float64 { return tab[i*n+j] }, 1)
			if err != nil {
				t.Fatal(err)
			}
			return e.LogZ()
		}
		ens, err := p.PartitionBonus(context.Background(), seq, func(i, j int) float64 { return tab[i*n+j] }, 1)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, q := range ens.Pairs(0.01) {
			const h = 1e-4
			k := q.I*n + q.J
			v := tab[k]
			tab[k] = v + h
			up := lnZ()
			tab[k] = v - h
			down := lnZ()
			tab[k] = v
			if fd := (up - down) / (2 * h); math.Abs(fd-q.P) > 1e-6 {
				t.Errorf("span %d: d lnZ / d bonus(%d, %d) = %.9f, probability %.9f", p.MaxSpan(), q.I, q.J, fd, q.P)
			}
			if checked++; checked == 25 {
				break
			}
		}
		if checked < 5 {
			t.Fatalf("span %d: only %d pairs above 0.01", p.MaxSpan(), checked)
		}
	}
}

// TestPartitionBonusBounds checks that a large bonus on every pair of a
// long sequence stays in range, and that a bonus out of bounds or NaN is
// an error.
func TestPartitionBonusBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	seq := randomSeq(r, 600, false)
	for _, b := range []float64{MaxPairBonus, -MaxPairBonus, 10} {
		e, err := DefaultParams().PartitionBonus(context.Background(), seq, func(int, int) float64 { return b }, 0)
		if err != nil {
			t.Fatalf("bonus %g on every pair of %d nt: %v", b, len(seq), err)
		}
		var sum float64
		for i := 0; i < len(seq); i++ {
			for j := i + 1; j < len(seq); j++ {
				sum += e.Prob(i, j)
			}
		}
		if !(sum >= 0 && sum <= float64(len(seq))/2) {
			t.Errorf("bonus %g: expected pairs %g", b, sum)
		}
	}
	for _, b := range []float64{math.NaN(), MaxPairBonus + 1, math.Inf(-1)} {
		if _, err := DefaultParams().PartitionBonus(context.Background(), "GGGGAAACCCC", func(int, int) float64 { return b }, 1); err == nil {
			t.Errorf("bonus %g: no error", b)
		}
	}
}
