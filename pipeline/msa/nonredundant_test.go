package msa

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// NonRedundant is the greedy filter its doc writes out: no two rows kept
// are neighbours, each row dropped has a neighbour among the rows kept
// before it, and the kept rows are those of the plain loop, on families
// of near-copies at every rate and both identity rules, over every
// block size and number of threads.
func TestNonRedundant(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const l, n = 61, 150
	x := make([]uint8, n*l)
	for i := range l {
		x[i] = uint8(r.IntN(21))
	}
	for s := 1; s < n; s++ {
		base := r.IntN(s)
		rate := []float64{0, 0.02, 0.05, 0.1, 0.2, 0.6}[r.IntN(6)]
		for i := range l {
			x[s*l+i] = x[base*l+i]
			if r.Float64() < rate {
				x[s*l+i] = uint8(r.IntN(21))
			}
		}
	}
	same := func(a, b int) int {
		k := 0
		for i := range l {
			if x[a*l+i] == x[b*l+i] {
				k++
			}
		}
		return k
	}
	for _, id := range []Identity{{Fraction: 0.9}, {Fraction: 0.8}, {Fraction: 0.8, AtLeast: true}, {Fraction: 1}} {
		thres := int(math.Ceil(id.Fraction * l)) // Identity's doc
		near := func(a, b int) bool {
			if id.AtLeast {
				return same(a, b) >= thres
			}
			return same(a, b) > thres
		}
		want := []int{0}
		for s := 1; s < n; s++ {
			if !slices.ContainsFunc(want, func(k int) bool { return near(s, k) }) {
				want = append(want, s)
			}
		}
		var got []int
		for _, block := range []int{nonRedundantBlock, 7, 1, n} {
			for _, threads := range []int{1, 2, 3} {
				func() {
					defer func(b int) { nonRedundantBlock = b }(nonRedundantBlock)
					nonRedundantBlock = block
					got = NonRedundant(x, n, l, id, threads)
				}()
				if !slices.Equal(got, want) {
					t.Fatalf("%+v, blocks of %d, %d threads: kept %v, want %v", id, block, threads, got, want)
				}
			}
		}
		if len(got) == n && id.Fraction < 1 || len(got) < 2 {
			t.Fatalf("%+v: kept %d of %d: the family does not test the filter", id, len(got), n)
		}
	}
	if got := NonRedundant(nil, 0, l, Identity{Fraction: 0.9}, 2); got != nil {
		t.Errorf("no rows: %v", got)
	}
}
