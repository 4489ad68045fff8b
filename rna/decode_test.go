package rna

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomProbs returns a random sequence of length l over ACGU and a
// symmetric probability map whose values are mostly 0 with some spread
// over (0, 1] (dense: a fraction frac of the pairs is nonzero).
func randomProbs(r *rand.Rand, l int, frac float64) (string, []float32) {
	b := make([]byte, l)
	for i := range b {
		b[i] = "ACGU"[r.IntN(4)]
	}
	p := make([]float32, l*l)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			if r.Float64() < frac {
				v := r.Float32()
				p[i*l+j], p[j*l+i] = v, v
			}
		}
	}
	return string(b), p
}

// meaScore is the objective of DecodeMEA in float64.
func meaScore(pairs [][2]int, p []float32, l int, gamma float64) float64 {
	s := 0.0
	for _, q := range pairs {
		s += (gamma+1)*float64(p[q[0]*l+q[1]]) - 1
	}
	return s
}

// bruteNested enumerates every nested structure of canonical pairs with
// hairpins of at least MinHairpin bases over [i, j] and returns the best
// objective over them (pairs of any weight, negative ones included).
func bruteNested(seq string, p []float32, gamma float64) float64 {
	l := len(seq)
	var all func(i, j int) [][][2]int
	all = func(i, j int) [][][2]int {
		if i >= j {
			return [][][2]int{nil}
		}
		out := all(i+1, j) // i unpaired
		for k := i + MinHairpin + 1; k <= j; k++ {
			if !canonical(seq[i], seq[k]) {
				continue
			}
			for _, in := range all(i+1, k-1) {
				for _, rest := range all(k+1, j) {
					s := append([][2]int{{i, k}}, in...)
					out = append(out, append(s, rest...))
				}
			}
		}
		return out
	}
	best := math.Inf(-1)
	for _, s := range all(0, l-1) {
		best = max(best, meaScore(s, p, l, gamma))
	}
	return best
}

// checkDecoded asserts the constraints of every mode: canonical pairs,
// hairpins of at least MinHairpin, one partner per base (Check), and no
// crossing pairs when nested.
func checkDecoded(t *testing.T, s *Structure, nested bool) {
	t.Helper()
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	ps := s.Pairs()
	for _, q := range ps {
		if !canonical(s.Seq[q[0]], s.Seq[q[1]]) || q[1]-q[0]-1 < MinHairpin {
			t.Fatalf("pair %v (%c%c) in %s", q, s.Seq[q[0]], s.Seq[q[1]], s.Seq)
		}
	}
	if nested {
		for a := range ps {
			for b := a + 1; b < len(ps); b++ {
				if Crossing(ps[a], ps[b]) {
					t.Fatalf("pairs %v and %v cross in nested mode", ps[a], ps[b])
				}
			}
		}
	}
}

// On small random inputs the nested programme's structure scores what the
// best of all valid nested structures scores, for several gammas.
func TestDecodeMEABruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		l := 1 + r.IntN(12)
		seq, p := randomProbs(r, l, 0.3+0.7*r.Float64())
		gamma := []float64{0.5, 1, 2, 6}[trial%4]
		s, err := DecodeMEA("x", seq, p, DecodeOptions{Gamma: gamma})
		if err != nil {
			t.Fatal(err)
		}
		checkDecoded(t, s, true)
		got, want := meaScore(s.Pairs(), p, l, gamma), bruteNested(seq, p, gamma)
		if math.Abs(got-want) > 1e-4 {
			t.Fatalf("%s gamma %v: DP structure scores %v, best nested %v (%v)", seq, gamma, got, want, s.Pairs())
		}
	}
}

// A hand-made map: the nested decoder takes the stem and a pair after it
// and leaves out the non-canonical pairs and a pair crossing the stem;
// the layered decoder adds the crossing pair as a second layer once its
// base is free; the paper's greedy decoder takes the non-canonical pair.
func TestDecodeMEAKnown(t *testing.T) {
	seq := "GGGAAAACCCAAAAAAAGAAAAU"
	l := len(seq)
	p := make([]float32, l*l)
	set := func(i, j int, v float32) { p[i*l+j], p[j*l+i] = v, v }
	set(0, 9, 0.9)
	set(1, 8, 0.9)
	set(2, 7, 0.8)
	set(3, 7, 0.95)   // AC: not canonical, though the most probable
	set(5, 17, 0.7)   // AG: not canonical
	set(4, 22, 0.6)   // AU crossing the stem (weight 0.2 < the stem's 2.2)
	set(10, 22, 0.55) // AU after the stem
	set(12, 22, 0.4)  // below 0.5: a negative weight at gamma 1
	decode := func(o DecodeOptions) string {
		t.Helper()
		s, err := DecodeMEA("x", seq, p, o)
		if err != nil {
			t.Fatal(err)
		}
		checkDecoded(t, s, !o.Pseudoknots)
		db, _, err := DotBracketOmitted(s)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	for _, c := range []struct {
		o    DecodeOptions
		want string
	}{
		{DecodeOptions{}, "(((....)))(...........)"},
		{DecodeOptions{Pseudoknots: true}, "(((....)))(...........)"}, // base 22 is taken
		{DecodeOptions{Gamma: 0.2}, "((......))............."},        // only p > 1/1.2 helps
		{DecodeOptions{Gamma: 4}, "(((....)))(...........)"},          // (12, 22) helps but (10, 22) more
	} {
		if got := decode(c.o); got != c.want {
			t.Errorf("%+v: %s, want %s", c.o, got, c.want)
		}
	}
	set(10, 22, 0)
	if got, want := decode(DecodeOptions{}), "(((....)))............."; got != want {
		t.Errorf("nested: %s, want %s", got, want)
	}
	if got, want := decode(DecodeOptions{Pseudoknots: true}), "(((.[..)))............]"; got != want {
		t.Errorf("layered: %s, want %s", got, want)
	}
	greedy, _ := Decode("x", seq, p, 0.5)
	if greedy.Partner[3] != 7 {
		t.Errorf("greedy pairs %v: the test no longer shows a difference", greedy.Pairs())
	}
}

// Properties on random inputs in every mode: constraints hold; the
// layered structure contains the nested one and only adds pairs above
// KnotMinProb; a larger gamma never predicts fewer pairs on these maps by
// much, and pairs below 1/(gamma+1) never appear.
func TestDecodeMEAProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 100; trial++ {
		l := 5 + r.IntN(120)
		seq, p := randomProbs(r, l, r.Float64())
		gamma := 0.25 + 8*r.Float64()
		nested, err := DecodeMEA("x", seq, p, DecodeOptions{Gamma: gamma})
		if err != nil {
			t.Fatal(err)
		}
		checkDecoded(t, nested, true)
		knot, err := DecodeMEA("x", seq, p, DecodeOptions{Gamma: gamma, Pseudoknots: true})
		if err != nil {
			t.Fatal(err)
		}
		checkDecoded(t, knot, false)
		for i, j := range nested.Partner {
			if j != Unpaired && knot.Partner[i] != j {
				t.Fatalf("layered structure lost nested pair (%d, %d)", i, j)
			}
		}
		for _, q := range knot.Pairs() {
			v := p[q[0]*l+q[1]]
			if float64(v) <= 1/(gamma+1) {
				t.Fatalf("pair %v with p %v <= 1/(gamma+1) = %v", q, v, 1/(gamma+1))
			}
			if nested.Partner[q[0]] != q[1] && v <= KnotMinProb {
				t.Fatalf("second-layer pair %v with p %v", q, v)
			}
		}
		// MinProb only removes candidates: every pair kept is above it.
		mp, err := DecodeMEA("x", seq, p, DecodeOptions{Gamma: gamma, MinProb: 0.7})
		if err != nil {
			t.Fatal(err)
		}
		checkDecoded(t, mp, true)
		for _, q := range mp.Pairs() {
			if p[q[0]*l+q[1]] < 0.7 {
				t.Fatalf("pair %v below MinProb", q)
			}
		}
		if meaScore(mp.Pairs(), p, l, gamma) > meaScore(nested.Pairs(), p, l, gamma)+1e-4 {
			t.Fatal("restricting the candidates raised the optimum")
		}
	}
}

// Bad maps and options are errors naming the molecule.
func TestDecodeMEAErrors(t *testing.T) {
	ok := make([]float32, 16)
	asym := make([]float32, 16)
	asym[1] = 0.5
	nan := make([]float32, 16)
	nan[5] = float32(math.NaN())
	big := make([]float32, 16)
	big[0] = 1.5
	for name, tc := range map[string]struct {
		p []float32
		o DecodeOptions
	}{
		"length":      {make([]float32, 15), DecodeOptions{}},
		"asymmetric":  {asym, DecodeOptions{}},
		"NaN":         {nan, DecodeOptions{}},
		"above 1":     {big, DecodeOptions{}},
		"gamma":       {ok, DecodeOptions{Gamma: -1}},
		"gamma NaN":   {ok, DecodeOptions{Gamma: math.NaN()}},
		"gamma Inf":   {ok, DecodeOptions{Gamma: math.Inf(1)}},
		"min prob":    {ok, DecodeOptions{MinProb: 1}},
		"min prob -1": {ok, DecodeOptions{MinProb: -0.1}},
	} {
		_, err := DecodeMEA("mol7", "GCAU", tc.p, tc.o)
		if !errors.Is(err, ErrProbabilities) || !strings.Contains(err.Error(), "mol7") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := DecodeMEA("mol7", "GCAU", ok, DecodeOptions{}); err != nil {
		t.Error(err)
	}
	if s, err := DecodeMEA("empty", "", nil, DecodeOptions{Pseudoknots: true}); err != nil || len(s.Seq) != 0 {
		t.Errorf("empty molecule: %v", err)
	}
}

// benchDecode decodes a random map of length l in which a fraction frac
// of the pairs has a nonzero probability (uniform in (0, 1)).
func benchDecode(b *testing.B, l int, frac float64, o DecodeOptions) {
	seq, p := randomProbs(rand.New(rand.NewPCG(5, 6)), l, frac)
	b.ResetTimer()
	for b.Loop() {
		if _, err := DecodeMEA("x", seq, p, o); err != nil {
			b.Fatal(err)
		}
	}
}

// L = 1,500 (a 16S): a dense map (every pair nonzero, the worst case of
// the programme: half the canonical pairs are candidates at gamma 1) and
// a sparse one (1% nonzero, like a trained network's output).
func BenchmarkDecodeMEA(b *testing.B) {
	b.Run("L1500/dense", func(b *testing.B) { benchDecode(b, 1500, 1, DecodeOptions{}) })
	b.Run("L1500/dense/knots", func(b *testing.B) { benchDecode(b, 1500, 1, DecodeOptions{Pseudoknots: true}) })
	b.Run("L1500/sparse", func(b *testing.B) { benchDecode(b, 1500, 0.01, DecodeOptions{}) })
	b.Run("L2741/dense", func(b *testing.B) { benchDecode(b, 2741, 1, DecodeOptions{}) })
	b.Run("L2741/sparse/knots", func(b *testing.B) { benchDecode(b, 2741, 0.01, DecodeOptions{Pseudoknots: true}) })
}

// A real 16S (940 nt, with pseudoknots) given its own pairs as the map
// (p = 1 on its pairs, 0 elsewhere): the nested decoder returns only
// true pairs, at least as many as the canonical ones of the first
// dot-bracket level (a valid nested structure itself), and the layered
// decoder adds true crossing pairs to them.
func TestDecodeMEAReal16S(t *testing.T) {
	truth := readCTFile(t, "testdata/d.16.m.A.cahirinus.ct")
	l := len(truth.Seq)
	p := make([]float32, l*l)
	for _, q := range truth.Pairs() {
		p[q[0]*l+q[1]], p[q[1]*l+q[0]] = 1, 1
	}
	db, _, err := DotBracketOmitted(truth)
	if err != nil {
		t.Fatal(err)
	}
	level1 := 0
	for _, q := range truth.Pairs() {
		if db[q[0]] == '(' && canonical(truth.Seq[q[0]], truth.Seq[q[1]]) && q[1]-q[0]-1 >= MinHairpin {
			level1++
		}
	}
	nested, err := DecodeMEA(truth.Name, truth.Seq, p, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkDecoded(t, nested, true)
	knot, err := DecodeMEA(truth.Name, truth.Seq, p, DecodeOptions{Pseudoknots: true})
	if err != nil {
		t.Fatal(err)
	}
	checkDecoded(t, knot, false)
	if sc := Compare(knot, truth, false); sc.FP != 0 || len(knot.Pairs()) <= len(nested.Pairs()) {
		t.Errorf("layered: %d pairs (nested %d), %+v", len(knot.Pairs()), len(nested.Pairs()), sc)
	}
	sc := Compare(nested, truth, false)
	if sc.FP != 0 || sc.TP < level1 {
		t.Errorf("nested: %+v, want no false pair and at least %d true ones", sc, level1)
	}
	t.Logf("%d true pairs, %d canonical in level 1; nested %d, layered %d", len(truth.Pairs()), level1, len(nested.Pairs()), len(knot.Pairs()))
}
