package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// AdamUpdate gives the portable loop's bits on every kernel set: spans of
// 1-20 elements (whole blocks of 8 and tails), with and without decay,
// over gradients, moments and weights that reach the flushes (moments
// that turn subnormal, weights near 2^-100), zeros of both signs, and
// values that stay put; and it writes nothing past the span.
func TestAdamUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 33))
	special := []float32{0, float32(math.Copysign(0, -1)), 0x1p-127, -0x1p-130, 0x1p-99, -0x1.8p-100, 0x1p-101, 1e-20, -3, 7}
	pick := func() float32 {
		if rng.IntN(3) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.NormFloat64()) * float32([]float64{1e-30, 1e-3, 1}[rng.IntN(3)])
	}
	fill := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = pick()
		}
		return s
	}
	withKernels(t, func(t *testing.T) {
		for n := 1; n <= 20; n++ {
			for _, decay := range []bool{false, true} {
				t.Run(fmt.Sprintf("n%d/decay=%v", n, decay), func(t *testing.T) {
					for rep := 0; rep < 20; rep++ {
						val, grad, m, v := fill(n+3), fill(n+3), fill(n+3), fill(n+3)
						for i := range v {
							v[i] = float32(math.Abs(float64(v[i]))) // second moments
						}
						step := 1 + rng.IntN(50)
						c1, c2 := 1-math.Pow(0.9, float64(step)), 1-math.Pow(0.999, float64(step))
						b1, b2 := float32(0.9), float32(0.999)
						args := func(val, m, v []float32) {
							AdamUpdate(val[:n], grad, m, v, decay, 1e-4, b1, 1-b1, b2, 1-b2, c1, c2, 1e-3, 1e-8)
						}
						gv, gm, gvv := append([]float32(nil), val...), append([]float32(nil), m...), append([]float32(nil), v...)
						args(gv, gm, gvv)
						adamUpdateGo(val[:n], grad[:n], m[:n], v[:n], decay, 1e-4, b1, 1-b1, b2, 1-b2, c1, c2, 1e-3, 1e-8)
						for _, c := range []struct {
							name      string
							got, want []float32
						}{{"val", gv, val}, {"m", gm, m}, {"v", gvv, v}} {
							for i := range c.want {
								if math.Float32bits(c.got[i]) != math.Float32bits(c.want[i]) {
									t.Fatalf("%s[%d] = %v, want %v", c.name, i, c.got[i], c.want[i])
								}
							}
						}
					}
				})
			}
		}
	})
}
