package seqalign

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestGlobalWithMissingResidues(t *testing.T) {
	p, err := Global("MKTAYIAKQR", "MKTIAKQR") // "AY" missing
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, 0}, {1, 1}, {2, 2}, {5, 3}, {6, 4}, {7, 5}, {8, 6}, {9, 7}}
	if len(p) != len(want) {
		t.Fatalf("got %v", p)
	}
	for i := range want {
		if p[i] != want[i] {
			t.Fatalf("got %v, want %v", p, want)
		}
	}
}

func TestFittedDomain(t *testing.T) {
	p, err := Fitted("GSHMWLKEAVRDFIQHLG", "WLKEAVRDF")
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 9 || p[0] != [2]int{4, 0} || p[8] != [2]int{12, 8} {
		t.Fatalf("got %v", p)
	}
}

// Every byte reaches the aligner as a letter of its alphabet: U and O
// (selenocysteine, pyrrolysine), lower case, digits and punctuation crashed
// biogo's aligner with an index out of range before.
func TestLettersOutsideTheAlphabet(t *testing.T) {
	for _, b := range []string{"MKUAYIAKQR", "MKOAYIAKQR", "mkuayiakqr", "MK1AY?AK*R", "UUUUUUUUUU", "\x00\xff"} {
		if _, err := Global("MKCAYIAKQR", b); err != nil {
			t.Errorf("Global %q: %v", b, err)
		}
		if _, err := Fitted("GSMKCAYIAKQRGS", b); err != nil {
			t.Errorf("Fitted %q: %v", b, err)
		}
	}
	// U is read as C, so it aligns where C does.
	p, err := Global("MKCAY", "MKUAY")
	if err != nil || len(p) != 5 {
		t.Fatalf("got %v, %v", p, err)
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[byte]byte{'U': 'C', 'u': 'C', 'O': 'K', 'a': 'A', 'B': 'B', 'Z': 'Z', 'J': 'J', 'X': 'X', '-': '-', '*': '*', '1': 'X', '.': 'X'} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAlignLocal(t *testing.T) {
	// b is a's middle with one substitution (W -> F) and one residue
	// deleted (the first Q): 27 columns, 25 identical, one gap column.
	a := "GGGGGMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQGGGGG"
	b := "MKTAYIAKRQISFVKSHFSRQLEERLGLIEV"
	l, err := AlignLocal(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if l.Identical != len(b) || l.Columns != len(b)+1 {
		t.Fatalf("identical %d of %d columns, want %d of %d (pairs %v)", l.Identical, l.Columns, len(b), len(b)+1, l.Pairs)
	}
	// The score re-counted from the pairs: BLOSUM62 diagonal of b's
	// letters, and one gap of length 1 costing 12.
	want := -12
	diag := map[byte]int{'M': 5, 'K': 5, 'T': 5, 'A': 4, 'Y': 7, 'I': 4, 'Q': 5, 'R': 5, 'S': 4, 'F': 6, 'V': 4, 'H': 8, 'L': 4, 'E': 5, 'G': 6}
	for i := 0; i < len(b); i++ {
		want += diag[b[i]]
	}
	if l.Score != want {
		t.Errorf("score %d, want %d", l.Score, want)
	}
	if id, _ := Identity(a, b); id != 1 {
		t.Errorf("Identity %g, want 1 (b is a's middle up to a deletion)", id)
	}
	if e := l.EValue(len(b), 1000); !(e > 0 && e < 1e-10) {
		t.Errorf("E-value %g of a near-copy", e)
	}
	// A shuffled copy keeps the composition, loses the alignment.
	sh := []byte(b)
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
	if l, err := AlignLocal(a, string(sh)); err != nil || l.EValue(len(b), 1000) < 0.01 {
		t.Errorf("shuffled copy: E-value %g (score %d), %v", l.EValue(len(b), 1000), l.Score, err)
	}
}

// The bound never falls below the identity, on related (mutated copies)
// and unrelated (shuffled) pairs.
func TestIdentityBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	letters := "ACDEFGHIKLMNPQRSTVWYX"
	for k := 0; k < 200; k++ {
		a := make([]byte, 20+r.IntN(80))
		for i := range a {
			a[i] = letters[r.IntN(len(letters))]
		}
		b := append([]byte(nil), a[r.IntN(len(a)/2):]...)
		for i := range b {
			if r.IntN(3) == 0 {
				b[i] = letters[r.IntN(len(letters))]
			}
		}
		if k%2 == 0 {
			r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		}
		id, err := Identity(string(a), string(b))
		if err != nil {
			t.Fatal(err)
		}
		if bd := IdentityBound(string(a), string(b)); bd < id {
			t.Fatalf("%s / %s: bound %g < identity %g", a, b, bd, id)
		}
	}
}

// AlignLocal's score equals Biopython's optimal local score under the
// same scoring on real chains (testdata/make-golden.py).
func TestAlignLocalGolden(t *testing.T) {
	seqs := map[string]string{}
	data, err := os.ReadFile("testdata/sequences.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		id, s, _ := strings.Cut(line, "\t")
		seqs[id] = s
	}
	golden, err := os.ReadFile("testdata/local_golden.tsv")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(golden)), "\n") {
		f := strings.Split(line, "\t")
		want, _ := strconv.Atoi(f[2])
		l, err := AlignLocal(seqs[f[0]], seqs[f[1]])
		if err != nil {
			t.Fatal(err)
		}
		if l.Score != want {
			t.Errorf("%s / %s: score %d, Biopython %d", f[0], f[1], l.Score, want)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("%d golden pairs", n)
	}
}
