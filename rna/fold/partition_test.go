package fold

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// allowedPF reports whether every pair of st may form under the hard
// constraints of p's partition function (span, --noLP as ViennaRNA).
func allowedPF(p *Params, seq string, st [][2]int) bool {
	s, _, _ := encode(seq)
	for _, q := range st {
		i, j := q[0]+1, q[1]+1
		if p.maxSpan > 0 && j-i+1 > p.maxSpan || p.noLP && !canStack(p, s, len(seq), i, j) {
			return false
		}
	}
	return true
}

// bruteForce sums the Boltzmann weights (the energies of EvalDcal, times
// exp of the pairs' bonuses in the n x n table bonus, nil for none) of
// the structures all of seq that p's partition function allows: Z, the
// weight of every pair (i, j) at i*n+j, and the number of structures.
func bruteForce(t *testing.T, p *Params, seq string, all [][][2]int, bonus []float64) (float64, []float64, int) {
	t.Helper()
	n := len(seq)
	kT := (p.temperature + 273.15) * gasConst // cal/mol
	var z float64
	pz := make([]float64, n*n)
	count := 0
	for _, st := range all {
		if !allowedPF(p, seq, st) {
			continue
		}
		e, err := p.EvalDcal(seq, st)
		if err != nil {
			t.Fatal(err)
		}
		lw := -float64(e) * 10 / kT
		for _, q := range st {
			if bonus != nil {
				lw += bonus[q[0]*n+q[1]]
			}
		}
		wt := math.Exp(lw)
		z += wt
		for _, q := range st {
			pz[q[0]*n+q[1]] += wt
		}
		count++
	}
	return z, pz, count
}

// checkBruteForce compares the ensemble's Z and pair probabilities with
// bruteForce's z and pair weights pz (relative differences above 1e-9
// are errors) and checks the probabilities' symmetry; it returns the
// relative difference of Z and the largest of the probabilities.
func checkBruteForce(t *testing.T, model string, ens *Ensemble, z float64, pz []float64) (relZ, worstP float64) {
	t.Helper()
	seq, n := ens.Seq, ens.Len()
	zdp := math.Exp(ens.LogZ())
	relZ = math.Abs(zdp-z) / z
	if relZ > 1e-9 {
		t.Errorf("%s %s: Z = %.12g, brute force %.12g (rel %.2g)", model, seq, zdp, z, relZ)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			want, got := pz[i*n+j]/z, ens.Prob(i, j)
			if got != ens.Prob(j, i) {
				t.Fatalf("%s %s: P not symmetric at (%d, %d)", model, seq, i, j)
			}
			d := math.Abs(got - want)
			if want > 0 {
				d /= want
			}
			worstP = max(worstP, d)
			if d > 1e-9 {
				t.Errorf("%s %s: P(%d,%d) = %.12g, brute force %.12g", model, seq, i, j, got, want)
			}
		}
	}
	return relZ, worstP
}

// TestPartitionBruteForce enumerates every structure of sequences of 5
// to 18 nt and compares the sum of their Boltzmann weights, with the energies of
// EvalDcal, and the probability of every pair with the dynamic programme
// (using the MFE's integer energies, see boltz).
func TestPartitionBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	d0, _ := DefaultParams().WithDangles(0)
	models := []struct {
		name string
		p    *Params
	}{
		{"d2", DefaultParams()}, {"d0", d0}, {"T25", DefaultParams().WithTemperature(25)},
		{"T70", DefaultParams().WithTemperature(70)},
		{"noLP", DefaultParams().WithNoLP(true)}, {"span10", DefaultParams().WithMaxSpan(10)},
		{"noLP span12", DefaultParams().WithNoLP(true).WithMaxSpan(12)},
		{"turner1999", readParamsGz(t, "rna_turner1999.par.gz")},
		{"andronescu2007", readParamsGz(t, "rna_andronescu2007.par.gz")},
	}
	trials := 120
	if testing.Short() {
		trials = 30
	}
	count, worstZ, worstP := 0, 0.0, 0.0
	for trial := 0; trial < trials; trial++ {
		seq := randomSeq(r, 5+r.IntN(14), trial%2 == 0)
		all := allStructures(seq)
		for _, mod := range models {
			p := mod.p
			z, pz, k := bruteForce(t, p, seq, all, nil)
			count += k
			for _, threads := range []int{1, 3} {
				ens, err := p.partition(context.Background(), seq, threads, pfOptions{mfeLike: true})
				if err != nil {
					t.Fatalf("%s %s: %v", mod.name, seq, err)
				}
				rel, worst := checkBruteForce(t, mod.name, ens, z, pz)
				worstZ, worstP = max(worstZ, rel), max(worstP, worst)
			}
		}
	}
	t.Logf("%d structures; largest relative difference: Z %.2g, pair probabilities %.2g", count, worstZ, worstP)
}

// TestPartitionConsistency checks on random sequences that the result does
// not depend on the number of threads (every span spread over them) or on
// the scale, that the inside
// weights from both ends agree, and that the probabilities are in [0, 1]
// with at most one partner per base in expectation.
func TestPartitionConsistency(t *testing.T) {
	// spread every span over the goroutines
	defer func(w int) { minParallelWork = w }(minParallelWork)
	minParallelWork = 0
	r := rand.New(rand.NewPCG(7, 8))
	d0, _ := DefaultParams().WithDangles(0)
	lengths := []int{30, 120, 300}
	if testing.Short() {
		lengths = lengths[:2]
	}
	for _, n := range lengths {
		for trial := 0; trial < 2; trial++ {
			seq := randomSeq(r, n, trial%2 == 1)
			for _, p := range []*Params{DefaultParams(), d0, DefaultParams().WithTemperature(50), DefaultParams().WithNoLP(true).WithMaxSpan(80)} {
				e1, err := p.Partition(seq, 1)
				if err != nil {
					t.Fatal(err)
				}
				e4, err := p.Partition(seq, 4)
				if err != nil {
					t.Fatal(err)
				}
				if e1.FreeEnergy != e4.FreeEnergy {
					t.Errorf("%d nt: free energy %v with 1 thread, %v with 4", n, e1.FreeEnergy, e4.FreeEnergy)
				}
				for k := range e1.prob {
					if e1.prob[k] != e4.prob[k] {
						t.Fatalf("%d nt: probabilities depend on the thread count", n)
					}
				}
				// another scale
				e2, err := p.partition(context.Background(), seq, 2, pfOptions{scaleFactor: 1.1})
				if err != nil {
					t.Fatal(err)
				}
				if d := math.Abs(e2.FreeEnergy - e1.FreeEnergy); d > 1e-9*math.Abs(e1.FreeEnergy)+1e-12 {
					t.Errorf("%d nt: free energy %v with scale x1.1, %v", n, e2.FreeEnergy, e1.FreeEnergy)
				}
				checkProbs(t, e1, e2)
				// the structure of lowest energy has the highest probability
				if f := e1.MFEFrequency(); !(f > 0 && f <= 1) || e1.FreeEnergy > e1.MFEEnergy+1e-9 {
					t.Errorf("%d nt: MFE frequency %v, G %v, MFE %v", n, f, e1.FreeEnergy, e1.MFEEnergy)
				}
			}
		}
	}
}

// checkProbs checks that e's probabilities are in [0, 1], sum to at most 1
// for every base, and equal ref's to 1e-9.
func checkProbs(t *testing.T, e, ref *Ensemble) {
	t.Helper()
	n := e.Len()
	for i, q := range e.Unpaired() {
		if q < -1e-9 || q > 1+1e-9 {
			t.Fatalf("%d nt: base %d unpaired with probability %v", n, i, q)
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := e.Prob(i, j)
			if !(v >= 0 && v <= 1+1e-12) {
				t.Fatalf("%d nt: P(%d,%d) = %v", n, i, j, v)
			}
			if ref != nil && math.Abs(v-ref.Prob(i, j)) > 1e-9 {
				t.Fatalf("%d nt: P(%d,%d) = %v, reference %v", n, i, j, v, ref.Prob(i, j))
			}
		}
	}
}

// TestPartitionInsideBothEnds compares the exterior weights from the 5'
// and the 3' end.
func TestPartitionInsideBothEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{10, 80, 400} {
		seq := randomSeq(r, n, false)
		s, norm, _ := encode(seq)
		_, emfe, _ := DefaultParams().MFE(seq)
		b := newBoltz(DefaultParams(), false)
		m := newPF(DefaultParams(), b, s, norm, math.Max(1, math.Exp(-(sfact*emfe*1000/float64(n))/b.kT)), false)
		m.inside(context.Background(), 2)
		if d := math.Abs(m.z5[n]-m.z3[1]) / m.z5[n]; d > 1e-12 {
			t.Errorf("%d nt: Z5(n) = %v, Z3(1) = %v", n, m.z5[n], m.z3[1])
		}
	}
}

// TestPartitionLong folds 3,000 nt (uniformly random and GC-rich) to
// check the scaling: finite probabilities, and for the GC-rich sequence
// the same result with a scale 5% larger. It takes minutes: set
// CONTACTMAP_FOLD_LONG=1 to run it.
func TestPartitionLong(t *testing.T) {
	if os.Getenv("CONTACTMAP_FOLD_LONG") == "" {
		t.Skip("set CONTACTMAP_FOLD_LONG=1 to run")
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, gc := range []bool{false, true} {
		seq := randomSeq(r, 3000, gc)
		e, err := DefaultParams().Partition(seq, 0)
		if err != nil {
			t.Fatalf("gc %v: %v", gc, err)
		}
		if !(e.FreeEnergy <= e.MFEEnergy) || math.IsInf(e.FreeEnergy, 0) {
			t.Errorf("gc %v: G %v, MFE %v", gc, e.FreeEnergy, e.MFEEnergy)
		}
		var ref *Ensemble
		if gc {
			if ref, err = DefaultParams().partition(context.Background(), seq, 0, pfOptions{scaleFactor: 1.05}); err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(ref.FreeEnergy - e.FreeEnergy); d > 1e-9*math.Abs(e.FreeEnergy) {
				t.Errorf("free energy %v with the scale x1.05, %v", ref.FreeEnergy, e.FreeEnergy)
			}
		}
		checkProbs(t, e, ref)
		t.Logf("3000 nt (gc %v): MFE %.2f, G %.2f, diversity %.1f", gc, e.MFEEnergy, e.FreeEnergy, e.Diversity())
	}
}

func TestPartitionShortAndOdd(t *testing.T) {
	for _, seq := range []string{"", "A", "GGGAAAC", "NNNNNNNNNN", "ggggaaaacccc", "GGGGTTTTCCCC"} {
		e, err := Partition(seq)
		if err != nil {
			t.Fatalf("%q: %v", seq, err)
		}
		if e.Len() != len(seq) || e.FreeEnergy > 0 || len(e.Probabilities()) != len(seq)*len(seq) {
			t.Errorf("%q: %d %v", seq, e.Len(), e.FreeEnergy)
		}
		c, _ := e.Centroid()
		m, _, err := e.MEA(1)
		if err != nil || len(c.Seq) != len(seq) || len(m.Seq) != len(seq) {
			t.Errorf("%q: centroid %v, MEA %v, %v", seq, c, m, err)
		}
		if len(seq) < 5 && (e.FreeEnergy != 0 || e.Diversity() != 0) {
			t.Errorf("%q: G = %v", seq, e.FreeEnergy)
		}
	}
	if _, err := Partition("GGGXCCC"); !errors.Is(err, rna.ErrSequence) {
		t.Errorf("invalid base: %v", err)
	}
	e, _ := Partition("GGGGAAAACCCC")
	for _, g := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, _, err := e.MEA(g); err == nil || !strings.Contains(err.Error(), "gamma") {
			t.Errorf("MEA(%v): %v", g, err)
		}
	}
}

// TestMEAProperties checks that the MEA structure's accuracy is the
// objective evaluated on it, and that it does not lose to the centroid
// or to the empty structure.
func TestMEAProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 10; trial++ {
		seq := randomSeq(r, 60+r.IntN(100), trial%2 == 0)
		e, err := Partition(seq)
		if err != nil {
			t.Fatal(err)
		}
		q := e.Unpaired()
		for _, gamma := range []float64{0.5, 1, 2, 6} {
			st, mea, err := e.MEA(gamma)
			if err != nil {
				t.Fatal(err)
			}
			score := func(s *rna.Structure) float64 {
				v := 0.0
				for i, j := range s.Partner {
					switch {
					case j < 0:
						v += q[i]
					case j > i:
						v += 2 * gamma * e.Prob(i, j)
					}
				}
				return v
			}
			// the accuracy reported uses float32 probabilities and q from
			// the pairs above the cutoff only
			if d := math.Abs(score(st) - mea); d > 1e-3*float64(len(seq)) {
				t.Errorf("gamma %v: MEA %v, objective of the structure %v", gamma, mea, score(st))
			}
			c, _ := e.Centroid()
			if gamma == 1 {
				// rna.DecodeMEA's gamma-centroid with gamma 1 keeps the pairs
				// with p > 0.5: the centroid
				dm, err := rna.DecodeMEA("", e.Seq, e.Probabilities(), rna.DecodeOptions{Gamma: 1})
				if err != nil || !rna.Equal(dm, c) {
					t.Errorf("DecodeMEA(gamma 1) %v, %v; centroid %v", dm.Pairs(), err, c.Pairs())
				}
			}
			empty, _ := rna.New("", e.Seq, nil)
			if score(c) > score(st)+1e-3*float64(len(seq)) || score(empty) > score(st)+1e-3*float64(len(seq)) {
				t.Errorf("gamma %v: MEA %v below centroid %v or empty %v", gamma, score(st), score(c), score(empty))
			}
		}
	}
}

// TestPartitionBytes compares PartitionBytes with the bytes Partition
// allocates (after its MFE fold).
func TestPartitionBytes(t *testing.T) {
	seq := randomSeq(rand.New(rand.NewPCG(15, 16)), 600, false)
	p := DefaultParams()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := p.Partition(seq, 1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got := int64(after.TotalAlloc - before.TotalAlloc)
	want := p.PartitionBytes(600) + p.FoldBytes(600)
	if got > want || got < want*9/10 {
		t.Errorf("Partition allocated %d bytes, PartitionBytes + FoldBytes = %d", got, want)
	}
	if b := p.PartitionBytes(2000); b < 132e6 || b > 134e6 {
		t.Errorf("PartitionBytes(2000) = %d", b)
	}
}
