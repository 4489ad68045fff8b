package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// storeAcc8 gives the loop's result on every kernel set, for pixel counts
// around the 16-pixel blocks and row strides from 8 up (NaN and -0 among
// the values, copied bit for bit), and writes nothing outside the 8
// channels of its jn output pixels.
func TestStoreAcc8(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	withKernels(t, func(t *testing.T) {
		for _, jn := range []int{1, 7, 15, 16, 17, 31, 32, 33, 47, 48} {
			for _, ldo := range []int{8, 9, 20, 26, 64} {
				t.Run(fmt.Sprintf("jn%d/ldo%d", jn, ldo), func(t *testing.T) {
					n := (jn + 15) / 16 * 16
					acc := make([]float32, 8*n)
					for i := range acc {
						acc[i] = float32(rng.NormFloat64())
					}
					acc[3], acc[n+5] = float32(math.NaN()), float32(math.Copysign(0, -1))
					const fill = -7.5
					got := make([]float32, jn*ldo+5)
					want := make([]float32, jn*ldo+5)
					for i := range got {
						got[i], want[i] = fill, fill
					}
					storeAcc8(got, ldo, acc, n, jn)
					storeAcc8Go(want, ldo, acc, n, jn)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("[%d] (pixel %d, channel %d) = %v, want %v", i, i/ldo, i%ldo, got[i], want[i])
						}
					}
				})
			}
		}
	})
}

// accInit8 gives the loop's result on every kernel set, for row lengths
// around whole vectors, and writes nothing past its 8 rows.
func TestAccInit8(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		for _, n := range []int{1, 15, 16, 17, 32, 33, 48} {
			vals := []float32{1, -2, float32(math.NaN()), float32(math.Copysign(0, -1)), 5, 6, 7, 8}
			got, want := make([]float32, 8*n+3), make([]float32, 8*n+3)
			for i := range got {
				got[i], want[i] = -7.5, -7.5
			}
			accInit8(got, n, vals)
			accInit8Go(want, n, vals)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n %d: [%d] = %v, want %v", n, i, got[i], want[i])
				}
			}
		}
	})
}
