package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// AxpyRowsF64 gives the loop's bits on every kernel set: each row of
// widths 1-40 (full chunks and tails, in registers up to 32 and past), zero and negative-zero inputs
// skipped, and nothing written past cout.
func TestAxpyRowsF64(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 27))
	withKernels(t, func(t *testing.T) {
		for cout := 1; cout <= 40; cout++ {
			t.Run(fmt.Sprint(cout), func(t *testing.T) {
				nx := 13
				x := randSlice(nx, rng)
				x[2], x[5] = 0, float32(math.Copysign(0, -1))
				w := randSlice(nx*cout, rng)
				r0 := make([]float64, cout+3)
				for i := range r0 {
					r0[i] = rng.NormFloat64()
				}
				want := append([]float64(nil), r0...)
				for q, xv := range x {
					if xv == 0 {
						continue
					}
					for o := 0; o < cout; o++ {
						p := float64(float64(xv) * float64(w[q*cout+o]))
						want[o] += p
					}
				}
				got := append([]float64(nil), r0...)
				AxpyRowsF64(got[:cout], x, w, cout)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("r[%d] = %v, want %v", i, got[i], want[i])
					}
				}
			})
		}
	})
}

// PrefixSumsF64 gives the loop's bits on every kernel set, for widths
// 1-40 (in registers up to 32 and past) and 1-5 rows, from a nonzero
// first row, writing nothing past its rows.
func TestPrefixSumsF64(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 30))
	withKernels(t, func(t *testing.T) {
		for c := 1; c <= 40; c++ {
			for n := 1; n <= 5; n++ {
				x := randSlice(n*c, rng)
				pre := make([]float64, (n+2)*c)
				for i := range pre {
					pre[i] = rng.NormFloat64()
				}
				want := append([]float64(nil), pre...)
				for j := 0; j < n; j++ {
					for o := 0; o < c; o++ {
						want[(j+1)*c+o] = want[j*c+o] + float64(x[j*c+o])
					}
				}
				PrefixSumsF64(pre, x, n, c)
				for i := range want {
					if math.Float64bits(pre[i]) != math.Float64bits(want[i]) {
						t.Fatalf("c %d n %d: pre[%d] = %v, want %v", c, n, i, pre[i], want[i])
					}
				}
			}
		}
	})
}
