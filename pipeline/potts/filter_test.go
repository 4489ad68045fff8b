package potts

import (
	"testing"
)

// Filter drops sequences below MinCoverage (never the query) and then
// columns above MaxGapColumn; Predict fits what is left and scores the
// pairs of a dropped column below every fitted pair.
func TestFilter(t *testing.T) {
	a := parse(t, "ACDEFGHI\nAC--FGHI\n-CD-FGH-\nACD-FG--\nA---F---\nACDEFGHI\n")
	f, cols := Filter(a, Options{MinCoverage: 0.75})
	if f.N() != 3 || len(cols) != 8 || string(f.Rows[1]) != "AC--FGHI" {
		t.Errorf("coverage 0.75: %d rows %q, columns %v", f.N(), f.Rows, cols)
	}
	f, cols = Filter(a, Options{MaxGapColumn: 0.5})
	// Gaps per column over 6 rows: 1 0 3 5 0 0 2 3.
	if want := []int{0, 1, 2, 4, 5, 6, 7}; f.N() != 6 || len(cols) != len(want) || f.L() != len(want) {
		t.Fatalf("gap columns 0.5: columns %v, want %v", cols, want)
	}
	if g, c := Filter(a, Options{}); g != a || len(c) != 8 {
		t.Error("no filter: the alignment itself")
	}
	r, err := Predict(a, Options{MaxGapColumn: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	l := a.L()
	if len(r.Scores) != l*l || r.Model.L != 7 || r.Kept != 6 {
		t.Fatalf("scores %d, model L %d, kept %d", len(r.Scores), r.Model.L, r.Kept)
	}
	lo := r.Scores[0*l+1]
	for _, p := range [][2]int{{0, 1}, {0, 7}, {5, 6}} {
		lo = min(lo, r.Scores[p[0]*l+p[1]])
	}
	for j := 0; j < l; j++ {
		if j != 3 && (r.Scores[3*l+j] >= lo || r.Scores[j*l+3] != r.Scores[3*l+j]) {
			t.Errorf("pair (3,%d) of a dropped column scores %g, not below the fitted %g", j, r.Scores[3*l+j], lo)
		}
	}
	if r.Scores[3*l+3] != 0 {
		t.Error("diagonal")
	}
}
