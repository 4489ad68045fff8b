package fold

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// randomSeq returns a random sequence of length n, GC-rich when gc.
func randomSeq(r *rand.Rand, n int, gc bool) string {
	alpha := "ACGU"
	if gc {
		alpha = "ACGGCCGUU"
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return string(b)
}

// allStructures enumerates every nested structure of seq with canonical
// pairs enclosing at least 3 bases, 0-based.
func allStructures(seq string) [][][2]int {
	s, _, _ := encode(seq)
	n := len(seq)
	memo := map[[2]int][][][2]int{}
	var rec func(i, j int) [][][2]int // structures of seq[i..j] (0-based, inclusive)
	rec = func(i, j int) [][][2]int {
		if i > j {
			return [][][2]int{nil}
		}
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		// i unpaired
		out := append([][][2]int(nil), rec(i+1, j)...)
		// i paired with k
		for k := i + minHairpin + 1; k <= j; k++ {
			if pairType[s[i+1]][s[k+1]] == 0 {
				continue
			}
			for _, in := range rec(i+1, k-1) {
				for _, rest := range rec(k+1, j) {
					st := make([][2]int, 0, 1+len(in)+len(rest))
					st = append(st, [2]int{i, k})
					st = append(st, in...)
					st = append(st, rest...)
					out = append(out, st)
				}
			}
		}
		memo[[2]int{i, j}] = out
		return out
	}
	return rec(0, n-1)
}

// TestBruteForce checks that for short sequences the MFE is the minimum of
// Eval over all structures, and that the MFE structure has the MFE.
func TestBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d0, _ := DefaultParams().WithDangles(0)
	models := map[string]*Params{"d2": DefaultParams(), "d0": d0, "T25": DefaultParams().WithTemperature(25),
		"noLP": DefaultParams().WithNoLP(true), "span10": DefaultParams().WithMaxSpan(10),
		"noLP span12": DefaultParams().WithNoLP(true).WithMaxSpan(12)}
	count := 0
	for trial := 0; trial < 300; trial++ {
		seq := randomSeq(r, 5+r.IntN(14), trial%2 == 0)
		all := allStructures(seq)
		for name, p := range models {
			best := Inf
			for _, st := range all {
				if p.NoLP() && hasLonelyPair(st) || p.MaxSpan() > 0 && maxSpan(st) > p.MaxSpan() {
					continue
				}
				e, err := p.EvalDcal(seq, st)
				if err != nil {
					t.Fatalf("%s %v: %v", seq, st, err)
				}
				best = min(best, e)
			}
			st, e, err := p.MFE(seq)
			if err != nil {
				t.Fatal(err)
			}
			if got := int(roundDcal(e)); got != best {
				t.Errorf("%s %s: MFE %d dcal/mol, brute force minimum over %d structures %d", name, seq, got, len(all), best)
			}
			ev, err := p.EvalDcal(seq, st.Pairs())
			if err != nil || ev != best {
				t.Errorf("%s %s: Eval(MFE structure) = %d, %v; want %d", name, seq, ev, err, best)
			}
			if p.NoLP() && hasLonelyPair(st.Pairs()) {
				t.Errorf("%s %s: lonely pair in %v", name, seq, st.Pairs())
			}
			count += len(all)
		}
	}
	t.Logf("%d structures evaluated", count)
}

// hasLonelyPair reports whether a pair of st stacks on no other.
func hasLonelyPair(st [][2]int) bool {
	in := map[[2]int]bool{}
	for _, p := range st {
		in[p] = true
	}
	for _, p := range st {
		if !in[[2]int{p[0] - 1, p[1] + 1}] && !in[[2]int{p[0] + 1, p[1] - 1}] {
			return true
		}
	}
	return false
}

// maxSpan returns the largest j - i + 1 of the pairs.
func maxSpan(st [][2]int) int {
	m := 0
	for _, p := range st {
		m = max(m, p[1]-p[0]+1)
	}
	return m
}

func roundDcal(kcal float64) float64 {
	if kcal < 0 {
		return float64(int(kcal*100 - 0.5))
	}
	return float64(int(kcal*100 + 0.5))
}

// TestConsistency checks on random sequences that Eval of the MFE
// structure is the MFE, and that the number of workers does not change
// the result.
func TestConsistency(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	d0, _ := DefaultParams().WithDangles(0)
	lengths := []int{20, 50, 100, 200, 400}
	if testing.Short() {
		lengths = lengths[:3]
	}
	for _, n := range lengths {
		for trial := 0; trial < 4; trial++ {
			seq := randomSeq(r, n, trial%2 == 1)
			for _, p := range []*Params{DefaultParams(), d0, DefaultParams().WithTemperature(50), DefaultParams().WithNoLP(true)} {
				st, e, err := p.Fold(seq, 1)
				if err != nil {
					t.Fatal(err)
				}
				ev, err := p.Eval(seq, st.Pairs())
				if err != nil || int(roundDcal(ev)) != int(roundDcal(e)) {
					t.Errorf("%s: Eval(MFE structure) = %.2f, %v; MFE %.2f", seq, ev, err, e)
				}
				if p.NoLP() && hasLonelyPair(st.Pairs()) {
					t.Errorf("%s: --noLP structure has a lonely pair", seq)
				}
				st4, e4, err := p.Fold(seq, 4)
				if err != nil || e4 != e || !rna.Equal(st, st4) {
					t.Errorf("%s: 4 workers give %.2f, 1 worker %.2f (err %v)", seq, e4, e, err)
				}
			}
		}
	}
}

func TestFoldBytes(t *testing.T) {
	if got := DefaultParams().FoldBytes(2000); got < 64e6 || got > 65e6 {
		t.Errorf("FoldBytes(2000) = %d", got)
	}
	if DefaultParams().WithNoLP(true).FoldBytes(100) <= DefaultParams().FoldBytes(100) {
		t.Error("--noLP needs no more memory")
	}
}

func TestShortAndOdd(t *testing.T) {
	for _, seq := range []string{"", "A", "GGGAAAC", "NNNNNNNNNN", "ggggaaaacccc", "GGGGTTTTCCCC"} {
		st, e, err := MFE(seq)
		if err != nil {
			t.Fatalf("%q: %v", seq, err)
		}
		if len(st.Seq) != len(seq) || e > 0 {
			t.Errorf("%q: %q %.2f", seq, st.Seq, e)
		}
	}
	if _, _, err := MFE("GGGXCCC"); !errors.Is(err, rna.ErrSequence) {
		t.Errorf("invalid base: %v", err)
	}
	// a hairpin: GGGG AAAA CCCC
	st, e, _ := MFE("GGGGAAAACCCC")
	if db, _ := rna.DotBracket(st); db != "((((....))))" {
		t.Errorf("GGGGAAAACCCC: %s %.2f", db, e)
	}
}

func TestEvalErrors(t *testing.T) {
	for _, c := range []struct {
		seq   string
		pairs [][2]int
		want  string
	}{
		{"GAAAAA", [][2]int{{0, 5}}, "not canonical"},
		{"GAAAAC", [][2]int{{0, 5}}, ""},
		{"GAAC", [][2]int{{0, 3}}, "fewer than"},
		{"GGGGAAAACCCCAAAACCCC", [][2]int{{0, 11}, {4, 19}}, "cross"},
		{"GGGGAAAACCCC", [][2]int{{0, 11}, {0, 10}}, "two partners"},
	} {
		_, err := EvalStructure(c.seq, c.pairs)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s %v: error %v, want %q", c.seq, c.pairs, err, c.want)
		}
	}
}

// TestLoopEnergies checks single loops against values worked by hand from
// the Turner 2004 tables.
func TestLoopEnergies(t *testing.T) {
	for _, c := range []struct {
		seq, db string
		want    float64
	}{
		// hairpin of 4 closed by GC (G1-C... ) with tetraloop bonus: CUUCGG is
		// a tetraloop (370); the stack CG/GC: exterior stem C..G no dangles
		// at the ends: type CG, no neighbours: 0
		{"CUUCGG", "(....)", 3.70},
		// hairpin of 3 closed by CG: hairpin[3] = 540, no mismatch, no AU
		{"CAAAG", "(...)", 5.40},
		// hairpin of 3 closed by AU: 540 + terminal AU 50, and the
		// exterior stem's terminal AU 50
		{"AAAAU", "(...)", 6.40},
		// stacked CG on GC: stack[CG][rtype(GC)=CG]... GC inner: type2 = pair(C,G)= CG -> stack[CG][CG] = -240
		// plus hairpin GAAAC? G..C: hairpin[3]=540 (type GC, no terminal AU) = 300
		{"CGAAACG", "((...))", 3.00},
	} {
		st, err := rna.ParseDotBracket("", c.seq, c.db)
		if err != nil {
			t.Fatal(err)
		}
		e, err := EvalStructure(c.seq, st.Pairs())
		if err != nil || int(roundDcal(e)) != int(roundDcal(c.want)) {
			t.Errorf("%s %s: %.2f, %v; want %.2f", c.seq, c.db, e, err, c.want)
		}
	}
}

// FoldProgress gives Fold's structure and energy, and reports work that
// increases to its total.
func TestFoldProgress(t *testing.T) {
	seq := "GGGAAAUCCCGCGCAUAGCGCAAAGGGCUUAGCCCUUUGGGAAACCCAUAUCCCUAGGGAUAUGGCAUCGAUCGAUUCG"
	want, wantE, err := DefaultParams().Fold(seq, 1)
	if err != nil {
		t.Fatal(err)
	}
	var last, total float64
	calls := 0
	got, gotE, err := DefaultParams().FoldProgress(context.Background(), seq, 2, func(done, tot float64) {
		if done < last || done > tot || total != 0 && tot != total {
			t.Fatalf("progress %v of %v after %v of %v", done, tot, last, total)
		}
		last, total = done, tot
		calls++
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rna.Equal(got, want) || gotE != wantE {
		t.Errorf("FoldProgress gave %v %v, Fold %v %v", got.Pairs(), gotE, want.Pairs(), wantE)
	}
	if calls < len(seq)/2 || last != total || total <= 0 {
		t.Errorf("%d calls, last %v of %v", calls, last, total)
	}
}
