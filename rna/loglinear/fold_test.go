package loglinear

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// allStructures lists every structure of seq the model holds: nested
// canonical pairs of span below maxSpan with hairpins of at least
// MinHairpin (interior loops cannot pass MaxLoop at these lengths).
func allStructures(seq string, maxSpan int) [][]int {
	x := encode(seq)
	n := len(x)
	var out [][]int
	p := make([]int, n)
	for i := range p {
		p[i] = rna.Unpaired
	}
	var rec func(i int)
	// rec places base i and those after it, given pairs opened before i
	// are recorded in p and the open stack.
	var open []int
	rec = func(i int) {
		if i == n {
			if len(open) == 0 {
				out = append(out, append([]int(nil), p...))
			}
			return
		}
		rec(i + 1) // i unpaired (or still inside the open pairs)
		// i closes the innermost open pair
		if len(open) > 0 {
			k := open[len(open)-1]
			if pairType(x, k, i) >= 0 && i-k-1 >= MinHairpin && (maxSpan == 0 || i-k < maxSpan) {
				open = open[:len(open)-1]
				p[k], p[i] = i, k
				rec(i + 1)
				p[k], p[i] = rna.Unpaired, rna.Unpaired
				open = append(open, k)
			}
		}
		// i opens a pair
		open = append(open, i)
		rec(i + 1)
		open = open[:len(open)-1]
	}
	rec(0)
	return out
}

func randomTheta(r *rand.Rand, scale float64) *Model {
	m := NewModel()
	for f := range m.Theta {
		m.Theta[f] = scale * r.NormFloat64()
	}
	return m
}

func randomSeq(r *rand.Rand, n int, letters string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

// TestFoldMatchesEnumeration checks Z, every pair probability and every
// expected feature count against the sums over all structures, scored
// by Counts (the loop decomposition, not the programme).
func TestFoldMatchesEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 12; trial++ {
		n := 10 + r.IntN(7)
		letters := "ACGU"
		if trial%3 == 0 {
			letters = "GCGCAUGUN"
		}
		seq := randomSeq(r, n, letters)
		if trial == 2 {
			seq = "GGGCAAAGCGCAAAGCCC" // multiloops
			n = len(seq)
		}
		maxSpan := 0
		if trial%4 == 1 {
			maxSpan = 9
		}
		m := randomTheta(r, 0.7)
		structs := allStructures(seq, maxSpan)
		z := 0.0
		pp := make([]float64, n*n)
		ec := make([]float64, NumFeatures)
		multi := false
		for _, p := range structs {
			c := make([]float64, NumFeatures)
			if err := Counts(&rna.Structure{Name: "s", Seq: seq, Partner: p}, maxSpan, c); err != nil {
				t.Fatalf("%s: enumerated structure rejected: %v", seq, err)
			}
			multi = multi || c[offMlBase] > 0
			wt := math.Exp(m.Score(c))
			z += wt
			for i, j := range p {
				if j > i {
					pp[i*n+j] += wt
				}
			}
			for f, v := range c {
				ec[f] += wt * v
			}
		}
		if trial == 2 && !multi {
			t.Fatalf("%s: no multiloop among %d structures", seq, len(structs))
		}
		grad := make([]float64, NumFeatures)
		ens, _, err := m.fold(context.Background(), seq, maxSpan, grad)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(ens.LogZ - math.Log(z)); d > 1e-10 {
			t.Errorf("%s (span %d, %d structures): log Z %v, enumeration %v", seq, maxSpan, len(structs), ens.LogZ, math.Log(z))
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if d := math.Abs(ens.Prob(i, j) - pp[i*n+j]/z); d > 1e-10 {
					t.Errorf("%s: P(%d,%d) = %v, enumeration %v", seq, i, j, ens.Prob(i, j), pp[i*n+j]/z)
				}
			}
		}
		for f := range ec {
			if d := math.Abs(grad[f] - ec[f]/z); d > 1e-9 {
				t.Errorf("%s: E[%s] = %v, enumeration %v", seq, Feature(f), grad[f], ec[f]/z)
			}
		}
	}
}

// TestScaling checks that the per-base scaling of a long sequence leaves
// log Z as an unscaled fold computes it, and that probabilities stay in
// [0, 1] with their row sums at most 1.
func TestScaling(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	seq := randomSeq(r, 400, "ACGU")
	m := randomTheta(r, 0.1)
	x := encode(seq)
	ref := &tables{x: x, n: len(x), w: len(x), e: newWeights(m.Theta)}
	if err := ref.inside(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if math.IsInf(ref.z, 0) || ref.z == 0 {
		t.Fatalf("reference out of range: %v", ref.z)
	}
	ens, err := m.Fold(context.Background(), seq, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(ens.LogZ-math.Log(ref.z)) / math.Log(ref.z); d > 1e-12 {
		t.Errorf("log Z %v, unscaled %v", ens.LogZ, math.Log(ref.z))
	}
	// Strong weights: 3,000 bases would overflow unscaled.
	long := strings.Repeat(randomSeq(r, 100, "GCGCAU"), 30)
	m2 := randomTheta(r, 0.5)
	ens2, err := m2.Fold(context.Background(), long, 150)
	if err != nil {
		t.Fatal(err)
	}
	if math.IsInf(ens2.LogZ, 0) || math.IsNaN(ens2.LogZ) || ens2.LogZ < 700 {
		t.Errorf("long: log Z %v, want a finite value past float64's exp range", ens2.LogZ)
	}
	for _, e := range []*Ensemble{ens, ens2} {
		for i := 0; i < e.n; i++ {
			s := 0.0
			for j := 0; j < e.n; j++ {
				p := e.Prob(i, j)
				if p < 0 || p > 1+1e-9 {
					t.Fatalf("P(%d,%d) = %v", i, j, p)
				}
				s += p
			}
			if s > 1+1e-9 {
				t.Fatalf("base %d pairs with probability %v", i, s)
			}
		}
	}
}

// TestGradientFiniteDifference checks the gradient of the negative
// log-likelihood of a known structure against central differences.
func TestGradientFiniteDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s, err := rna.ParseDotBracket("t", "GGGGAAACCCCGCGCAAAGCGCAAGGCUUCGGCCAAGGACGAAACGAACC", "((((...))))((((...))))..(((....)))..((.((...))..))")
	if err != nil {
		t.Fatal(err)
	}
	m := randomTheta(r, 0.3)
	ex := []*rna.Structure{s}
	_, grad, err := Objective(context.Background(), m, ex, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	for trial := 0; trial < 40; trial++ {
		f := r.IntN(NumFeatures)
		if trial < 10 {
			f = []int{offPair, offStack + 7, offHpLen + 3, offMlBase, offMlUnpaired, offExtUnpaired, offExtBranch, offMlBranch, offBulgeLen + 1, offIntLen + 2}[trial]
		}
		h := 1e-5
		old := m.Theta[f]
		m.Theta[f] = old + h
		up, _, err1 := Objective(context.Background(), m, ex, 0, 1)
		m.Theta[f] = old - h
		dn, _, err2 := Objective(context.Background(), m, ex, 0, 1)
		m.Theta[f] = old
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		fd := (up - dn) / (2 * h)
		if math.Abs(fd-grad[f]) > 1e-6*max(1, math.Abs(fd)) {
			t.Errorf("d/d %s: analytic %v, finite difference %v", Feature(f), grad[f], fd)
		}
	}
}
