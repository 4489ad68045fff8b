package potts

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
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

// Under the cap: the query first, at most MaxRows distinct rows of the
// alignment in their order, the weights summing to N_eff, the same draw
// every time, and the fit's Model says how many rows it fitted.
func TestMaxRowsSubsample(t *testing.T) {
	a := parse(t, randomAlignment(10, 200, 4))
	opt := Options{Threads: 1, MaxRows: 37}.withDefaults()
	full, _ := newProblem(a, Options{Threads: 1}.withDefaults())
	p, m := newProblem(a, opt)
	if p.n > 37 || p.n < 10 || m.Fitted != p.n || m.Unique != full.n || full.n <= 37 {
		t.Fatalf("fitted %d (Model %d), unique %d: want at most 37 of %d", p.n, m.Fitted, m.Unique, full.n)
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

// The draws follow the weights: over 2,000 alignment depths, rows of
// weight 3 take three quarters of the draws and rows of weight 1 one
// quarter; the query keeps its own weight, and every other fitted row
// carries a whole number of draws of equal worth.
func TestSubsampleByWeight(t *testing.T) {
	const k, l = 41, 2
	heavy, all := 0.0, 0.0
	for n := 100; n < 2100; n++ {
		x := make([]uint8, n*l)
		w := make([]float64, n)
		rest := 0.0
		for s := range w {
			x[s*l], x[s*l+1] = uint8(s>>8), uint8(s)
			w[s] = float64(1 + 2*(s%2))
			if s > 0 {
				rest += w[s]
			}
		}
		w[0] = 0.5
		sx, sw := subsample(x, w, l, k)
		if len(sw) > k || sx[0] != 0 || sx[1] != 0 || sw[0] != 0.5 {
			t.Fatalf("n %d: %d rows, first %d weighing %g", n, len(sw), int(sx[0])<<8|int(sx[1]), sw[0])
		}
		prev := 0
		for r := 1; r < len(sw); r++ {
			s := int(sx[r*l])<<8 | int(sx[r*l+1])
			if s <= prev || s >= n {
				t.Fatalf("n %d: row %d after %d", n, s, prev)
			}
			prev = s
			c := sw[r] * (k - 1) / rest
			if math.Abs(c-math.Round(c)) > 1e-9 || c < 1 {
				t.Fatalf("n %d: row %d carries %g draws", n, s, c)
			}
			all += c
			if s%2 == 1 {
				heavy += c
			}
		}
	}
	// 80,000 draws; the spread of the share is about 0.0015.
	if f := heavy / all; math.Abs(f-0.75) > 0.01 {
		t.Errorf("%.3f of the draws on the rows of weight 3, want 0.75", f)
	}
}

// MaxIdentity fits the alignment of the rows msa.NonRedundant keeps:
// the same model, bit for bit, as a fit of those rows alone, with the
// counts of Model saying so; 0 and 1 keep every row.
func TestMaxIdentityFitsTheRowsKept(t *testing.T) {
	a := parse(t, nearCopies(30, 120, 5))
	x := a.Encode()
	keep := msa.NonRedundant(x, a.N(), a.L(), msa.Identity{Fraction: 0.9}, 2)
	if len(keep) < 10 || len(keep) > a.N()-10 {
		t.Fatalf("%d of %d rows kept: the alignment does not test the filter", len(keep), a.N())
	}
	kept := &msa.Alignment{Path: a.Path, Format: a.Format}
	for _, s := range keep {
		kept.Rows = append(kept.Rows, a.Rows[s])
	}
	got, err := Fit(a, Options{Threads: 2, MaxIdentity: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Fit(kept, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.J, want.J) || !slices.Equal(got.H, want.H) || got.Neff != want.Neff {
		t.Error("MaxIdentity 0.9 is not the fit of the rows kept")
	}
	if got.N != a.N() || got.Kept != len(keep) || want.Kept != len(keep) {
		t.Errorf("N %d, Kept %d: want %d and %d", got.N, got.Kept, a.N(), len(keep))
	}
	full, _ := Fit(a, Options{Threads: 2})
	for _, f := range []float64{0, 1} {
		m, _ := Fit(a, Options{Threads: 2, MaxIdentity: f})
		if !slices.Equal(m.J, full.J) || m.Kept != a.N() {
			t.Errorf("MaxIdentity %g changed the fit (kept %d of %d)", f, m.Kept, a.N())
		}
	}
}

// nearCopies is a PSICOV alignment of n rows of l residues: a random
// query and rows each copied from an earlier one with a few changes
// (from none to most of the columns), as a family's redundant rows are.
func nearCopies(l, n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 9))
	const letters = "ACDEFGHIKLMNPQRSTVWY-"
	rows := make([][]byte, n)
	for s := range rows {
		rows[s] = make([]byte, l)
		if s == 0 {
			for i := range rows[s] {
				rows[s][i] = letters[r.IntN(20)]
			}
			continue
		}
		copy(rows[s], rows[r.IntN(s)])
		rate := []float64{0, 0.03, 0.1, 0.3}[r.IntN(4)]
		for i := range rows[s] {
			if r.Float64() < rate {
				rows[s][i] = letters[r.IntN(len(letters))]
			}
		}
	}
	var b strings.Builder
	for _, row := range rows {
		b.Write(row)
		b.WriteByte('\n')
	}
	return b.String()
}
