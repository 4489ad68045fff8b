package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Every kernel set's batchnorm loops give the portable loops' bits, for
// channel counts around the 8- and 16-channel chunks, with padding
// pixels (weights 0 and -0) and nothing written past the arrays.
func TestBNKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 28))
	f64 := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	same32 := func(t *testing.T, name string, got, want []float32) {
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s[%d] = %v, want %v", name, i, got[i], want[i])
			}
		}
	}
	same64 := func(t *testing.T, name string, got, want []float64) {
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s[%d] = %v, want %v", name, i, got[i], want[i])
			}
		}
	}
	withKernels(t, func(t *testing.T) {
		for c := 1; c <= 40; c++ {
			t.Run(fmt.Sprint(c), func(t *testing.T) {
				const n = 7
				w := randSlice(n, rng)
				w[1], w[4] = 0, float32(math.Copysign(0, -1))
				x, dy := randSlice(n*c+5, rng), randSlice(n*c+5, rng)
				mean64 := f64(c + 3)
				mean, inv, gamma, beta := randSlice(c+3, rng), randSlice(c+3, rng), randSlice(c+3, rng), randSlice(c+3, rng)
				scale, a, b := randSlice(c+3, rng), randSlice(c+3, rng), randSlice(c+3, rng)

				acc0 := f64(c + 3)
				got, want := append([]float64(nil), acc0...), append([]float64(nil), acc0...)
				BNVarSums(got[:c], mean64, w, x, c)
				bnVarSumsGo(want[:c], mean64, w, x, c)
				same64(t, "var", got, want)

				s1, s2 := f64(c+3), f64(c+3)
				g1, g2 := append([]float64(nil), s1...), append([]float64(nil), s2...)
				BNBackSums(g1[:c], g2[:c], w, dy, x, mean, inv, c)
				bnBackSumsGo(s1[:c], s2[:c], w, dy, x, mean, inv, c)
				same64(t, "sdy", g1, s1)
				same64(t, "sdyxh", g2, s2)

				out0 := randSlice(n*c+5, rng)
				o1, o2 := append([]float32(nil), out0...), append([]float32(nil), out0...)
				BNApply(o1[:n*c], x, w, gamma, beta, mean, inv, c)
				bnApplyGo(o2[:n*c], x, w, gamma, beta, mean, inv, c)
				same32(t, "apply", o1, o2)

				d1, d2 := append([]float32(nil), out0...), append([]float32(nil), out0...)
				BNBackOut(d1[:n*c], dy, x, w, scale, a, b, mean, inv, c)
				bnBackOutGo(d2[:n*c], dy, x, w, scale, a, b, mean, inv, c)
				same32(t, "dx", d1, d2)
			})
		}
	})
}
