package kern

import (
	"fmt"
	"testing"
)

// BenchmarkIm2col times one tile of 1,024 output pixels of a 128 x 128
// map, dense and packed, at the kernel sizes and channel counts of the
// shipped networks' backward passes (the im2col of dy has Cout channels).
func BenchmarkIm2col(b *testing.B) {
	const l, n = 128, 1024
	for _, tc := range []struct{ k, c int }{{3, 4}, {3, 8}, {5, 8}, {9, 8}, {3, 16}, {3, 64}} {
		x := make([]float32, l*l*tc.c)
		for i := range x {
			x[i] = float32(i % 7)
		}
		col := make([]float32, n*tc.k*tc.k*tc.c)
		b.Run(fmt.Sprintf("dense/k%d_c%d", tc.k, tc.c), func(b *testing.B) {
			b.SetBytes(int64(4 * len(col)))
			for b.Loop() {
				Im2colDense(col, x, l, l, tc.c, tc.k, 5000, n)
			}
		})
		b.Run(fmt.Sprintf("packed/k%d_c%d", tc.k, tc.c), func(b *testing.B) {
			b.SetBytes(int64(4 * len(col)))
			for b.Loop() {
				Im2colPacked(col, x[:l*(l+1)/2*tc.c], l, tc.c, tc.k, 3000, n)
			}
		})
	}
}
