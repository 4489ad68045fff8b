package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// signedZeros sets about a sixth of v to +0 and a sixth to -0.
func signedZeros(v []float32, rng *rand.Rand) {
	for i := range v {
		switch rng.IntN(6) {
		case 0:
			v[i] = 0
		case 1:
			v[i] = float32(math.Copysign(0, -1))
		}
	}
}

// GemvRowsF32 and GerF32 on every kernel set against the loops of their
// definitions, bit for bit, NaN payloads included: lengths around the
// vector width, rows with zero values of both signs (skipped or not), a
// row stride past n, an infinity in w (0 times it is NaN where not
// skipped), and NaNs of two payloads in y and w (where a sum's operands
// are both NaN, the product's is the sum's, as the Go loop compiles).
func TestGemvRowsAndGer(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	withKernels(t, func(t *testing.T) {
		for _, n := range []int{1, 15, 16, 17, 75, 300} {
			for _, m := range []int{1, 4, 75} {
				for _, skip := range []bool{false, true} {
					name := fmt.Sprintf("n %d m %d skip %v", n, m, skip)
					ldw := n + 3
					w := randSlice((m-1)*ldw+n, rng)
					w[rng.IntN(len(w))] = float32(math.Inf(1))
					a := randSlice(m, rng)
					signedZeros(a, rng)
					y := randSlice(n, rng)
					signedZeros(y, rng)
					// Both operands of y[j0]'s first sum NaN (w's row 0
					// read, a[0] not zero), and of w[0][j0]'s sum below.
					j0 := rng.IntN(n)
					a[0] = 1
					y[j0] = math.Float32frombits(0x7fc00002)
					w[j0] = math.Float32frombits(0x7fc00001)
					want := append([]float32(nil), y...)
					for i, av := range a {
						if skip && av == 0 {
							continue
						}
						for j := range want {
							p := float32(av * w[i*ldw+j])
							want[j] = want[j] + p
						}
					}
					GemvRowsF32(y, a, w, ldw, skip)
					for j := range want {
						if math.Float32bits(y[j]) != math.Float32bits(want[j]) {
							t.Fatalf("GemvRowsF32 %s: y[%d] = %v, want %v", name, j, y[j], want[j])
						}
					}
					// GerF32: w += a b^T, b = the first n of y.
					b := append([]float32(nil), want...)
					wantW := append([]float32(nil), w...)
					for i, av := range a {
						for j, bv := range b {
							p := float32(av * bv)
							wantW[i*ldw+j] = wantW[i*ldw+j] + p
						}
					}
					GerF32(w, ldw, a, b)
					for i := range wantW {
						if math.Float32bits(w[i]) != math.Float32bits(wantW[i]) {
							t.Fatalf("GerF32 %s: w[%d] = %v, want %v", name, i, w[i], wantW[i])
						}
					}
				}
			}
		}
	})
}

func TestGemvRowsAndGerBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"gemv w short", func() { GemvRowsF32(make([]float32, 4), make([]float32, 2), make([]float32, 7), 4, false) }},
		{"gemv ldw < n", func() { GemvRowsF32(make([]float32, 4), make([]float32, 2), make([]float32, 8), 3, false) }},
		{"ger w short", func() { GerF32(make([]float32, 7), 4, make([]float32, 2), make([]float32, 4)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", tc.name)
				}
			}()
			tc.f()
		})
	}
}
