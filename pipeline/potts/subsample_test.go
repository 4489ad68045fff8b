package potts

import (
	"math"
	"slices"
	"testing"
)

// A cap at or above the distinct sequences changes nothing: the same
// couplings, bit for bit.
func TestMaxRowsAboveDepthIsExact(t *testing.T) {
	a := parse(t, randomAlignment(12, 60, 3))
	full, err := Fit(a, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	capped, err := Fit(a, Options{Threads: 2, MaxRows: full.Unique})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(full.J, capped.J) || !slices.Equal(full.H, capped.H) {
		t.Error("MaxRows = the distinct sequences changed the fit")
	}
	if capped.Fitted != full.Unique || full.Fitted != full.Unique {
		t.Errorf("Fitted %d and %d, want %d", full.Fitted, capped.Fitted, full.Unique)
	}
}

// Under the cap: the query first, MaxRows distinct rows of the
// alignment in their order, the weights summing to N_eff, the same draw
// every time, and the fit's Model says how many rows it fitted.
func TestMaxRowsSubsample(t *testing.T) {
	a := parse(t, randomAlignment(10, 200, 4))
	opt := Options{Threads: 1, MaxRows: 37}.withDefaults()
	full, _ := newProblem(a, Options{Threads: 1}.withDefaults())
	p, m := newProblem(a, opt)
	if p.n != 37 || m.Fitted != 37 || m.Unique != full.n {
		t.Fatalf("fitted %d (Model %d), unique %d: want 37 of %d", p.n, m.Fitted, m.Unique, full.n)
	}
	l := p.l
	if !slices.Equal(p.x[:l], full.x[:l]) {
		t.Error("the query is not the first row fitted")
	}
	last := -1
	for s := 0; s < p.n; s++ {
		k := -1
		for u := 0; u < full.n; u++ {
			if slices.Equal(p.x[s*l:(s+1)*l], full.x[u*l:(u+1)*l]) {
				k = u
			}
		}
		if k <= last {
			t.Fatalf("row %d is not a later distinct row of the alignment (at %d after %d)", s, k, last)
		}
		last = k
	}
	sum := func(w []float64) (t float64) {
		for _, v := range w {
			t += v
		}
		return t
	}
	if got, want := sum(p.w), sum(full.w); math.Abs(got-want) > 1e-9*want {
		t.Errorf("weights sum to %g, want N_eff %g", got, want)
	}
	q, _ := newProblem(a, opt)
	if !slices.Equal(p.x, q.x) || !slices.Equal(p.w, q.w) {
		t.Error("two draws differ")
	}
}

// The draw is uniform: over 2,000 alignment depths, the picks fall in
// the first and the second half of the other rows alike, and never
// twice on one row.
func TestSubsampleUniform(t *testing.T) {
	const k, l = 11, 2
	first, all := 0, 0
	for n := 100; n < 2100; n++ {
		x := make([]uint8, n*l)
		w := make([]float64, n)
		for s := range w {
			x[s*l], x[s*l+1] = uint8(s>>8), uint8(s)
			w[s] = 1
		}
		sx, sw := subsample(x, w, l, k)
		if len(sw) != k || sx[0] != 0 || sx[1] != 0 {
			t.Fatalf("n %d: %d rows, first %d", n, len(sw), int(sx[0])<<8|int(sx[1]))
		}
		prev := 0
		for r := 1; r < k; r++ {
			s := int(sx[r*l])<<8 | int(sx[r*l+1])
			if s <= prev || s >= n {
				t.Fatalf("n %d: row %d after %d", n, s, prev)
			}
			prev = s
			all++
			if s <= (n-1)/2 {
				first++
			}
		}
	}
	// Expected half of 20,000 picks; the spread is about 71.
	if f := float64(first) / float64(all); math.Abs(f-0.5) > 0.02 {
		t.Errorf("%.3f of the picks in the first half of the rows, want 0.5", f)
	}
}
