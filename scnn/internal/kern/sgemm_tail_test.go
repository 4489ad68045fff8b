package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The tail kernels (microKernel.tails) give the full kernels' bits:
// sgemmPackedEdge with and without them, every kernel family (n picks
// it: 16, 32, 64 columns and a narrower last panel), row counts that
// leave every ragged remainder, A plain and transposed (the rs = 1
// variants), in place past its rows or copied, overwriting and adding.
func TestTailKernelsMatch(t *testing.T) {
	defer func(v bool) { tailsNever = v }(tailsNever)
	rng := rand.New(rand.NewPCG(41, 42))
	withKernels(t, func(t *testing.T) {
		for _, n := range []int{16, 32, 64, 29, 57} {
			for m := 1; m <= 30; m++ {
				for _, transA := range []bool{false, true} {
					for _, beta := range []float32{0, 1} {
						for _, ownA := range []bool{false, true} {
							k := 1 + rng.IntN(150)
							lda := k + 2
							if transA {
								lda = m + 2
							}
							a := randSlice(max(m, k)*lda+64*lda, rng) // room past the rows for ownA
							a = a[:max(m, k)*lda]
							b := randSlice(k*n, rng)
							pb := packGo(false, k, n, 1, b, n)
							c0 := randSlice(m*n, rng)
							var outs [2][]float32
							for i, never := range []bool{true, false} {
								tailsNever = never
								c := append([]float32(nil), c0...)
								sgemmPackedEdge(transA, m, a, lda, pb, beta, c, n, ownA, make([]float32, sgemmEdge(pb.mk)))
								outs[i] = c
							}
							putScratch(pb.bp)
							for e := range outs[0] {
								if math.Float32bits(outs[0][e]) != math.Float32bits(outs[1][e]) {
									t.Fatalf("n %d m %d k %d transA %v beta %v ownA %v: c[%d] = %v with tails, %v without", n, m, k, transA, beta, ownA, e, outs[1][e], outs[0][e])
								}
							}
						}
					}
				}
			}
		}
	})
}

// BenchmarkGemmTails times sgemmPackedEdge on the row method's shapes
// (a map row of L pixels at once: M = L, K = k*k*cout, N = cin) with the
// tail kernels and without, alternately, one worker; "full/tails" is the
// median of the paired ratios (above 1: the tails faster).
func BenchmarkGemmTails(b *testing.B) {
	defer func(v bool) { tailsNever = v }(tailsNever)
	for _, sh := range [][3]int{{100, 72, 16}, {64, 648, 31}, {100, 648, 31}, {64, 200, 31}, {100, 1600, 64}, {50, 72, 16}} {
		m, k, n := sh[0], sh[1], sh[2]
		b.Run(fmt.Sprintf("M%d_K%d_N%d", m, k, n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			a := randSlice(m*k+64*k, rng)[:m*k]
			pb := packGo(false, k, n, 1, randSlice(k*n, rng), n)
			defer putScratch(pb.bp)
			c := make([]float32, m*n)
			edge := make([]float32, sgemmEdge(pb.mk))
			pairedRatio(b, "full/tails", func(tails bool) float64 {
				tailsNever = !tails
				s := time.Now()
				for range 200 {
					sgemmPackedEdge(false, m, a, k, pb, 0, c, n, true, edge)
				}
				return time.Since(s).Seconds()
			})
		})
	}
}
