package kern

import (
	"fmt"
	"math"
	"testing"
)

// ReLU and ReLUMask give the loops' bits on every kernel set, for every
// length around the 16-float blocks and the special values: -0, NaN,
// infinities, the smallest subnormals, and nothing is written past the
// slice.
func TestReLU(t *testing.T) {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1, -1, 3.5, -2.25}
	withKernels(t, func(t *testing.T) {
		for n := 0; n <= 40; n++ {
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				v := make([]float32, n+3)
				y := make([]float32, n+3)
				for i := range v {
					v[i] = special[i%len(special)]
					y[i] = special[(i*7+3)%len(special)]
				}
				d := make([]float32, n+3)
				for i := range d {
					d[i] = float32(i) + 0.5
				}
				wantV, wantD := append([]float32(nil), v...), append([]float32(nil), d...)
				reluGo(wantV[:n])
				reluMaskGo(wantD[:n], y)
				ReLU(v[:n])
				ReLUMask(d[:n], y)
				for i := range v {
					if math.Float32bits(v[i]) != math.Float32bits(wantV[i]) {
						t.Fatalf("ReLU: [%d] = %v, want %v", i, v[i], wantV[i])
					}
					if math.Float32bits(d[i]) != math.Float32bits(wantD[i]) {
						t.Fatalf("ReLUMask: [%d] = %v, want %v (y %v)", i, d[i], wantD[i], y[i])
					}
				}
			})
		}
	})
}

// The loops themselves: not positive becomes +0 (a test of the reference).
func TestReLUGoReference(t *testing.T) {
	v := []float32{-1, float32(math.Copysign(0, -1)), float32(math.NaN()), 2}
	reluGo(v)
	for i, want := range []float32{0, 0, 0, 2} {
		if math.Float32bits(v[i]) != math.Float32bits(want) {
			t.Fatalf("[%d] = %v, want %v", i, v[i], want)
		}
	}
}
