package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The direct kernel gradient gives the im2col method's kernel and bias
// gradients to float32 rounding: dense and packed maps (the diagonal at
// half weight), maps of 16 to 37 pixels (one and three vectors, a ragged
// last one), 1 to 8 input and 1 to 8 output channels, kernels 3 to 9
// (column groups of 3, 2 and 1), one and two workers, on every kernel set
// (the portable micro-kernel where a set has none). A term lost from a
// sum or a tap off by one fails it.
func TestConvWeightGradDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	defer func(f bool) { forceDirect = f }(forceDirect)
	forceDirect = true
	withKernels(t, func(t *testing.T) {
		for _, sh := range [][3]int{{3, 8, 8}, {5, 3, 4}, {7, 8, 1}, {9, 5, 8}, {3, 1, 2}, {7, 3, 8}} {
			for _, l := range []int{16, 37} {
				for _, packed := range []bool{false, true} {
					for _, workers := range []int{1, 2} {
						g := ConvGeom{Packed: packed, B: 2, H: l, W: l, Cin: sh[1], Cout: sh[2], K: sh[0], Workers: workers}
						t.Run(fmt.Sprintf("k%d_%dx%d/L%d/packed=%v/workers%d", sh[0], sh[1], sh[2], l, packed, workers), func(t *testing.T) {
							if !g.useDirectWeightGrad() {
								t.Fatalf("not direct: %+v", g)
							}
							np := g.Pixels()
							x, dy := randSlice(g.B*np*g.Cin, rng), randSlice(g.B*np*g.Cout, rng)
							nw := g.K * g.K * g.Cin * g.Cout
							dw0, db0 := randSlice(nw, rng), randSlice(g.Cout, rng)
							dw, db := append([]float32(nil), dw0...), append([]float32(nil), db0...)
							ConvWeightGrad(g, dw, db, x, dy)
							defer func() { noDirectWeightGrad = false }()
							noDirectWeightGrad = true
							wantW, wantB := append([]float32(nil), dw0...), append([]float32(nil), db0...)
							ConvWeightGrad(g, wantW, wantB, x, dy)
							noDirectWeightGrad = false
							near := func(what string, got, want []float32) {
								scale := 0.0
								for _, v := range want {
									scale = math.Max(scale, math.Abs(float64(v)))
								}
								for i := range got {
									if d := math.Abs(float64(got[i] - want[i])); d > 2e-5*scale {
										t.Fatalf("%s[%d] = %v, want %v (scale %v)", what, i, got[i], want[i], scale)
									}
								}
							}
							near("dw", dw, wantW)
							near("db", db, wantB)
							// db may be nil.
							dw2 := append([]float32(nil), dw0...)
							ConvWeightGrad(g, dw2, nil, x, dy)
							near("dw without db", dw2, dw)
						})
					}
				}
			}
		}
	})
}

// BenchmarkConvWeightGradDirect times ConvWeightGrad of the layers
// training by halves runs it on (the dense input channels: 3 -> 8 of
// the protein default on 100 x 100 maps, 5 -> 1, 4 and 8 of the RNA
// recipe on 128 x 128), batch 10, 2 workers, dense and packed, by the
// direct method against im2col + GEMM, alternating; "im2col/direct" is
// the median ratio of neighbouring runs (pairedRatio).
func BenchmarkConvWeightGradDirect(b *testing.B) {
	for _, sh := range [][4]int{{3, 3, 8, 100}, {5, 3, 8, 100}, {7, 3, 8, 100}, {3, 5, 1, 128}, {3, 5, 4, 128}, {5, 5, 8, 128}, {9, 5, 8, 128}, {3, 8, 8, 100}} {
		for _, packed := range []bool{false, true} {
			b.Run(fmt.Sprintf("k%d_%dx%d/L%d/packed=%v", sh[0], sh[1], sh[2], sh[3], packed), func(b *testing.B) {
				defer func(n bool) { noDirectWeightGrad = n }(noDirectWeightGrad)
				rng := rand.New(rand.NewPCG(1, 2))
				g := ConvGeom{Packed: packed, B: 10, H: sh[3], W: sh[3], Cin: sh[1], Cout: sh[2], K: sh[0]}
				if !g.useDirectWeightGrad() {
					b.Skip("no direct method for this shape here")
				}
				np := g.Pixels()
				x, dy := randSlice(g.B*np*g.Cin, rng), randSlice(g.B*np*g.Cout, rng)
				dw, db := make([]float32, g.K*g.K*g.Cin*g.Cout), make([]float32, g.Cout)
				pairedRatio(b, "im2col/direct", func(direct bool) float64 {
					noDirectWeightGrad = !direct
					s := time.Now()
					ConvWeightGrad(g, dw, db, x, dy)
					return time.Since(s).Seconds()
				})
			})
		}
	}
}
