package rna

import (
	"math"
	"testing"
)

func mustDB(t *testing.T, seq, db string) *Structure {
	t.Helper()
	s, err := ParseDotBracket("x", seq, db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Decoding takes the best pairs first and never gives a base two
// partners; pairs at or below the threshold are left out.
func TestDecode(t *testing.T) {
	l := 6
	p := make([]float32, l*l)
	set := func(i, j int, v float32) { p[i*l+j], p[j*l+i] = v, v }
	set(0, 5, 0.9)
	set(0, 4, 0.95) // best: takes base 0, so (0, 5) is out
	set(1, 5, 0.8)
	set(2, 3, 0.5) // not above the threshold
	s, err := Decode("x", "GGGCCC", p, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Pairs(); len(got) != 2 || got[0] != [2]int{0, 4} || got[1] != [2]int{1, 5} {
		t.Errorf("pairs %v", got)
	}
}

// Hand-made example: 4 true pairs (0,11) (1,10) (2,9) (3,8); predicted
// (0,11) (1,10) (2,9) exactly and (3,7), one off. Exact: TP 3, FP 1, FN 1;
// MCC over 91 pairs = (3*86 - 1)/sqrt(4*4*87*87) = 257/348. With the
// one-position shift all four count.
func TestCompare(t *testing.T) {
	seq := "GGGGAAAACCCCAA"
	truth := mustDB(t, seq, "((((....))))..")
	pred := mustDB(t, seq, "((((...).)))..")
	e := Compare(pred, truth, false)
	if e.TP != 3 || e.FP != 1 || e.FN != 1 || e.PPV != 0.75 || e.Sens != 0.75 || e.Accuracy != 0.75 || e.F1 != 0.75 ||
		math.Abs(e.MCC-257.0/348) > 1e-12 {
		t.Errorf("exact %+v", e)
	}
	sh := Compare(pred, truth, true)
	if sh.TP != 4 || sh.FP != 0 || sh.FN != 0 || sh.PPV != 1 || sh.Sens != 1 {
		t.Errorf("shifted %+v", sh)
	}
	none := Compare(mustDB(t, seq, ".............."), truth, false)
	if none.PPV != 0 || none.Sens != 0 || none.F1 != 0 || none.MCC != 0 {
		t.Errorf("empty prediction %+v", none)
	}
	self := Compare(truth, truth, false)
	if self.PPV != 1 || self.Sens != 1 || math.Abs(self.MCC-1) > 1e-12 {
		t.Errorf("perfect prediction %+v", self)
	}
}

// The baseline finds the obvious hairpin, stacks only canonical pairs,
// keeps loops of at least 3 and finds nothing where no stack fits.
func TestStackingBaseline(t *testing.T) {
	for seq, want := range map[string]string{
		"GGGGAAAACCCC":    "((((....))))",
		"GGGAAACCC":       "(((...)))",
		"GCAUGC":          "......", // a stack needs a loop of 3: (0,5)+(1,4) leaves 2
		"AAAAAAAA":        "........",
		"GGAAACCAGGAAACC": "((...)).((...))",
	} {
		s, err := StackingBaseline("x", seq)
		if err != nil {
			t.Fatal(err)
		}
		db, _ := DotBracket(s)
		if db != want {
			t.Errorf("%s: %s, want %s", seq, db, want)
		}
		for _, p := range s.Pairs() {
			if !canonical(s.Seq[p[0]], s.Seq[p[1]]) || p[1]-p[0]-1 < MinHairpin {
				t.Errorf("%s: pair %v", seq, p)
			}
		}
	}
}
