package loglinear

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// allStructures lists every structure of seq the model holds: the nested
// sets of canonical pairs of span at most maxSpan (0: any) with hairpins
// of at least MinHairpin, less those Counts refuses (interior loops over
// MaxLoop), by recursion over intervals: S(i,j) is i unpaired with
// S(i+1,j), or i paired with some k and S(i+1,k-1) x S(k+1,j).
func allStructures(seq string, maxSpan int) [][]int {
	x := encode(seq)
	n := len(x)
	var rec func(i, j int) [][][2]int
	rec = func(i, j int) [][][2]int {
		if i > j {
			return [][][2]int{nil}
		}
		out := rec(i+1, j)
		for k := i + MinHairpin + 1; k <= j; k++ {
			if pairType(x, i, k) < 0 || (maxSpan > 0 && k-i >= maxSpan) {
				continue
			}
			for _, in := range rec(i+1, k-1) {
				for _, after := range rec(k+1, j) {
					s := append([][2]int{{i, k}}, in...)
					out = append(out, append(s, after...))
				}
			}
		}
		return out
	}
	var all [][]int
	for _, ps := range rec(0, n-1) {
		p := make([]int, n)
		for i := range p {
			p[i] = rna.Unpaired
		}
		for _, q := range ps {
			p[q[0]], p[q[1]] = q[1], q[0]
		}
		if Counts(&rna.Structure{Name: "s", Seq: seq, Partner: p}, maxSpan, make([]float64, NumFeatures)) == nil {
			all = append(all, p)
		}
	}
	return all
}

// checkEnumeration compares log Z, every pair probability and every
// expected count of m on seq with the sums over allStructures.
func checkEnumeration(t *testing.T, m *Model, seq string, maxSpan int) (structures int, multi bool) {
	t.Helper()
	n := len(seq)
	structs := allStructures(seq, maxSpan)
	z := 0.0
	pp := make([]float64, n*n)
	ec := make([]float64, NumFeatures)
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
	grad := make([]float64, NumFeatures)
	ens, _, err := m.fold(context.Background(), seq, maxSpan, grad)
	if err != nil {
		t.Fatal(err)
	}
	short := seq
	if len(short) > 24 {
		short = short[:24] + "..."
	}
	if d := math.Abs(ens.LogZ - math.Log(z)); d > 1e-9*max(1, math.Abs(ens.LogZ)) {
		t.Errorf("%s (span %d, %d structures): log Z %v, enumeration %v", short, maxSpan, len(structs), ens.LogZ, math.Log(z))
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if d := math.Abs(ens.Prob(i, j) - pp[i*n+j]/z); d > 1e-9 {
				t.Errorf("%s (span %d): P(%d,%d) = %v, enumeration %v", short, maxSpan, i, j, ens.Prob(i, j), pp[i*n+j]/z)
			}
		}
	}
	for f := range ec {
		if d := math.Abs(grad[f] - ec[f]/z); d > 1e-8*max(1, ec[f]/z) {
			t.Errorf("%s (span %d): E[%s] = %v, enumeration %v", short, maxSpan, Feature(f), grad[f], ec[f]/z)
		}
	}
	return len(structs), multi
}

// TestSparseEnumeration reaches what short dense sequences cannot:
// sequences of A and N with a few G and C bases (so that their
// structures can be listed) of 40-700 nt, with hairpins over 30 (the
// length clipped), interior loops at and over MaxLoop, span limits
// around the pairs' spans, and the prefix scaling of sequences over
// prefixLen.
func TestSparseEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	place := func(n int, pos map[int]byte) string {
		b := []byte(strings.Repeat("A", n))
		for i := range b {
			if r.IntN(9) == 0 {
				b[i] = 'N'
			}
		}
		for i, c := range pos {
			b[i] = c
		}
		return string(b)
	}
	m := randomTheta(r, 0.5)
	// A stem of two pairs and an interior loop of exactly 30 (15 + 15),
	// and one of 31 (outside the model), then a 40-base hairpin.
	cases := []struct {
		seq  string
		span []int
	}{
		{place(60, map[int]byte{0: 'G', 1: 'G', 17: 'G', 25: 'C', 41: 'C', 42: 'C', 59: 'C'}), []int{0, 5, 20, 21, 40, 42, 43, 59, 60, 61}},
		{place(80, map[int]byte{2: 'G', 18: 'G', 27: 'C', 44: 'C', 50: 'G', 79: 'C'}), []int{0, 30, 43}},
		{place(120, map[int]byte{5: 'G', 6: 'G', 60: 'C', 61: 'C', 70: 'G', 75: 'G', 115: 'C', 119: 'C'}), []int{0, 56, 57}},
	}
	for k := 0; k < 3; k++ {
		n := []int{350, 500, 700}[k]
		pos := map[int]byte{}
		for len(pos) < 12 {
			pos[r.IntN(n)] = "GC"[r.IntN(2)]
		}
		cases = append(cases, struct {
			seq  string
			span []int
		}{place(n, pos), []int{0, 200}})
	}
	for _, c := range cases {
		for _, w := range c.span {
			if got, _ := checkEnumeration(t, m, c.seq, w); got < 2 {
				t.Logf("%d nt, span %d: only %d structures", len(c.seq), w, got)
			}
		}
	}
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
		}
		maxSpan := 0
		if trial%4 == 1 {
			maxSpan = 5 + trial
		}
		_, multi := checkEnumeration(t, randomTheta(r, 0.7), seq, maxSpan)
		if trial == 2 && !multi {
			t.Fatalf("%s: no multiloop among its structures", seq)
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

// TestScaleInvariance checks that the per-base scale changes neither the
// pair probabilities nor the expected counts.
func TestScaleInvariance(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	seq := randomSeq(r, 200, "ACGU")
	m := randomTheta(r, 0.3)
	x := encode(seq)
	var probs [2][]float64
	var grads [2][]float64
	for k, lg := range []float64{0, 0.9} {
		tb := &tables{x: x, n: len(x), w: 150, e: newWeights(m.Theta)}
		if err := tb.inside(context.Background(), lg); err != nil {
			t.Fatal(err)
		}
		grads[k] = make([]float64, NumFeatures)
		p, err := tb.outside(context.Background(), grads[k])
		if err != nil {
			t.Fatal(err)
		}
		probs[k] = p
	}
	for i := range probs[0] {
		if d := math.Abs(probs[0][i] - probs[1][i]); d > 1e-10 {
			t.Fatalf("cell %d: P %v unscaled, %v scaled", i, probs[0][i], probs[1][i])
		}
	}
	for f := range grads[0] {
		if d := math.Abs(grads[0][f] - grads[1][f]); d > 1e-9*max(1, math.Abs(grads[0][f])) {
			t.Errorf("E[%s]: %v unscaled, %v scaled", Feature(f), grads[0][f], grads[1][f])
		}
	}
}

// TestTrainStops checks that a cancelled fit returns the best model it
// evaluated with the context's error, and that a bad initial model is
// refused.
func TestTrainStops(t *testing.T) {
	s, _ := rna.ParseDotBracket("hp", "GGGGAAACCCC", "((((...))))")
	ex := []*rna.Structure{s}
	ctx, cancel := context.WithCancel(context.Background())
	evals := 0
	m, res, err := Train(ctx, ex, TrainOptions{Progress: func(e int, v, g float64) {
		evals = e
		if e == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if m == nil || res.Evaluations != 3 || evals != 3 {
		t.Fatalf("model %v after %d evaluations (%d reported)", m != nil, res.Evaluations, evals)
	}
	if v, _, err := Objective(context.Background(), m, ex, 0, 1); err != nil || math.Abs(v-res.Value) > 1e-12 {
		t.Errorf("returned model's objective %v (%v), result says %v", v, err, res.Value)
	}
	if _, _, err := Train(context.Background(), ex, TrainOptions{Init: &Model{Theta: make([]float64, 3)}}); err == nil {
		t.Error("a 3-weight initial model was accepted")
	}
}

// TestMemoryBytes checks the estimate against the tables a fold holds.
func TestMemoryBytes(t *testing.T) {
	for _, c := range [][2]int{{50, 0}, {300, 0}, {300, 120}} {
		x := encode(strings.Repeat("GCAU", c[0]/4+1)[:c[0]])
		w := c[0]
		if c[1] > 0 {
			w = c[1]
		}
		tb := &tables{x: x, n: c[0], w: w, e: newWeights(NewModel().Theta)}
		if err := tb.inside(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		held := int64(8 * (3*len(tb.qb) + 4*len(tb.qb) + len(tb.sc) + len(tb.mlPow) + 2*len(tb.ext))) // ext and its adjoint
		if got := MemoryBytes(c[0], c[1]); got < held || got > held+1024 {
			t.Errorf("n %d span %d: estimate %d, tables %d", c[0], c[1], got, held)
		}
	}
}

func TestPairsMatchProb(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	seq := randomSeq(r, 90, "ACGU")
	ens, err := randomTheta(r, 0.3).Fold(context.Background(), seq, 40)
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]int]float64{}
	for k, p := range ens.Pairs(0.01) {
		if k > 0 && (p.I < ens.Pairs(0.01)[k-1].I) {
			t.Fatal("pairs out of order")
		}
		got[[2]int{p.I, p.J}] = p.P
	}
	for i := 0; i < len(seq); i++ {
		for j := i + 1; j < len(seq); j++ {
			want := ens.Prob(i, j)
			if p, ok := got[[2]int{i, j}]; ok != (want >= 0.01) || ok && p != want {
				t.Fatalf("(%d,%d): listed %v (%v), Prob %v", i, j, ok, p, want)
			}
		}
	}
}
