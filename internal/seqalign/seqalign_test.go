package seqalign

import "testing"

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
