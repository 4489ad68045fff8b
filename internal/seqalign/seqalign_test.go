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
