package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gatherRows gives the loop's result on every kernel set, for row lengths
// around the 16-pixel blocks, 1 to 40 channels and any offsets (NaN and
// -0 among the values, copied bit for bit), and writes nothing outside
// the c rows of n values; directRow through it equals the element loop
// it documents, dense and packed, from any first column, and without
// clearAll writes nothing else.
func TestGatherRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	withKernels(t, func(t *testing.T) {
		for _, n := range []int{1, 7, 15, 16, 17, 31, 32, 33, 100} {
			for _, c := range []int{1, 2, 8, 16, 31, 40} {
				t.Run(fmt.Sprintf("n%d/c%d", n, c), func(t *testing.T) {
					xs := make([]float32, 64*c)
					for i := range xs {
						xs[i] = float32(rng.NormFloat64())
					}
					xs[3], xs[5] = float32(math.NaN()), float32(math.Copysign(0, -1))
					idx := make([]int32, n)
					for q := range idx {
						idx[q] = int32(rng.IntN(len(xs) - c + 1))
					}
					ldr := n + 5
					const fill = -7.5
					got := make([]float32, c*ldr+3)
					want := make([]float32, c*ldr+3)
					for i := range got {
						got[i], want[i] = fill, fill
					}
					gatherRows(got, ldr, xs, idx, c)
					gatherRowsGo(want, ldr, xs, idx, c)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("[%d] (channel %d, pixel %d) = %v, want %v", i, i/ldr, i%ldr, got[i], want[i])
						}
					}
				})
			}
		}
		for _, packed := range []bool{false, true} {
			const h, c, pad = 37, 5, 2
			ldr := directLdr(h, 5)
			n := h * h * c
			if packed {
				n = h * (h + 1) / 2 * c
			}
			xs := make([]float32, n)
			for i := range xs {
				xs[i] = float32(i)
			}
			idx := make([]int32, h)
			for _, q0 := range []int{0, 1, 17, h - 1, h} {
				for _, clearAll := range []bool{true, false} {
					for p := -1; p <= h; p++ {
						got := make([]float32, c*ldr)
						for i := range got {
							got[i] = 99
						}
						directRow(got, xs, packed, h, h, c, pad, ldr, p, q0, idx, clearAll)
						for ch := 0; ch < c; ch++ {
							for q := 0; q < ldr; q++ {
								want := float32(0)
								j := q - pad
								switch {
								case p < 0 || p >= h:
								case j < q0 || j >= h:
									if !clearAll {
										want = 99 // not written
									}
								case !packed:
									want = xs[(p*h+j)*c+ch]
								case j < p:
									want = xs[Tri(h, j, p)*c+ch]
								default:
									want = xs[Tri(h, p, j)*c+ch]
								}
								if got[ch*ldr+q] != want {
									t.Fatalf("packed %v q0 %d clearAll %v row %d channel %d column %d: %v, want %v", packed, q0, clearAll, p, ch, q, got[ch*ldr+q], want)
								}
							}
						}
					}
				}
			}
		}
	})
}
