package pisces

import (
	"errors"
	"os"
	"strings"
	"testing"
)

const bundled = "../data/pisces/cullpdb_pc25_res3.0_R1.0_d180920_chains14051.gz"

func TestReadBundledList(t *testing.T) {
	es, err := ReadFile(bundled)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 14051 {
		t.Fatalf("%d chains, want 14051 (the file name says so)", len(es))
	}
	e := es[0]
	if e.ID != "12ASA" || e.PDB != "12AS" || e.Chain != "A" || e.Length != 330 || e.Method != "XRAY" || e.Resolution != 2.2 || e.RFactor != 0.16 || e.FreeR != 0.29 {
		t.Errorf("first entry %+v", e)
	}
	n := len(Filter{MinLength: 25, MaxLength: 100}.Apply(es))
	if n != 1960 { // data/README.md: 1,960 chains have length 25-100
		t.Errorf("%d chains of length 25-100, want 1960", n)
	}
	for _, e := range es {
		if e.Resolution > 3.0 || e.RFactor > 1.0 {
			t.Fatalf("%s outside the list's own cut-offs: %+v", e.ID, e)
		}
	}
}

func TestReadErrors(t *testing.T) {
	head := "IDs         length Exptl.  resolution  R-factor FreeRvalue\n"
	for _, tc := range []struct {
		name, text string
		want       error
		line, col  int
	}{
		{"empty", "", ErrHeader, 1, 0},
		{"no header", "12ASA 330 XRAY 2.2 0.16 0.29\n", ErrHeader, 1, 0},
		{"short row", head + "12ASA 330 XRAY 2.2 0.16\n", ErrColumns, 2, 0},
		{"bad length", head + "12ASA 33x XRAY 2.2 0.16 0.29\n", ErrNumber, 2, 2},
		{"bad resolution", head + "12ASA 330 XRAY NaN 0.16 0.29\n", ErrNumber, 2, 4},
		{"bad id", head + "12A 330 XRAY 2.2 0.16 0.29\n", ErrID, 2, 1},
		{"bad code", head + "0ABCA 330 XRAY 2.2 0.16 0.29\n", ErrID, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewReader(strings.NewReader(tc.text)).ReadAll()
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tc.want) || pe.Line != tc.line || pe.Column != tc.col {
				t.Errorf("got %v, want %v at line %d column %d", err, tc.want, tc.line, tc.col)
			}
		})
	}
}

func TestSplitID(t *testing.T) {
	for _, tc := range []struct{ id, pdb, chain string }{
		{"1A01B", "1A01", "B"}, {"1abc_a", "1ABC", "a"}, {"6XYZAA", "6XYZ", "AA"},
	} {
		p, c, err := SplitID(tc.id)
		if err != nil || p != tc.pdb || c != tc.chain {
			t.Errorf("SplitID(%q) = %q %q %v", tc.id, p, c, err)
		}
	}
}

func TestFilter(t *testing.T) {
	e := Entry{Length: 50, Method: "XRAY", Resolution: 2.5, RFactor: 0.2}
	for _, tc := range []struct {
		f    Filter
		keep bool
	}{
		{Filter{}, true},
		{Filter{MinLength: 51}, false},
		{Filter{MaxLength: 49}, false},
		{Filter{MaxResolution: 2.0}, false},
		{Filter{MaxRFactor: 0.25}, true},
		{Filter{Methods: []string{"NMR"}}, false},
		{Filter{Methods: []string{"NMR", "XRAY"}, MinLength: 25, MaxLength: 100}, true},
	} {
		if got := tc.f.Keep(e); got != tc.keep {
			t.Errorf("%+v: keep %v", tc.f, got)
		}
	}
}

func FuzzReader(f *testing.F) {
	seed, _ := os.ReadFile("testdata/head.txt")
	f.Add(string(seed))
	f.Add("IDs length Exptl. resolution R-factor FreeRvalue\n1ABCA 1 X 0 0 0\n")
	f.Fuzz(func(t *testing.T, s string) {
		es, _ := NewReader(strings.NewReader(s)).ReadAll()
		for _, e := range es {
			if len(e.PDB) != 4 || e.Chain == "" || e.Length <= 0 {
				t.Fatalf("accepted bad entry %+v", e)
			}
		}
	})
}
