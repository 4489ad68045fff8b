//go:build amd64 && !purego

package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/sys/cpu"
)

// The AVX-512 kernels' rs = 1 variants give the general kernels' bits:
// blocks of every kernel, K from 1 past sgemmKC, full and narrow column
// masks, overwriting and adding to C.
func TestUnitKernelsMatch(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	old := unitNever
	defer func() { unitNever = old }()
	rng := rand.New(rand.NewPCG(9, 9))
	for _, mk := range archKernelSets()[0].kernels {
		for _, k := range []int{1, 7, 130} {
			for _, nb := range []int{mk.nr, mk.nr - 3, 1} {
				for _, add := range []bool{false, true} {
					cs := mk.mr + 5
					a := randSlice(k*cs, rng)
					b := randSlice(k*mk.nr, rng)
					c0 := randSlice(mk.mr*(mk.nr+2), rng)
					got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
					unitNever = false
					mk.run(k, a, 0, 1, cs, b, got, 0, mk.nr+2, add, nb)
					unitNever = true
					mk.run(k, a, 0, 1, cs, b, want, 0, mk.nr+2, add, nb)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%dx%d k %d nb %d add %v: c[%d] = %v, want %v", mk.mr, mk.nr, k, nb, add, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// BenchmarkMicroKernelUnit times each AVX-512 kernel on a packed A
// (rs = 1, cs = mr: the panels of BenchmarkMicroKernel), its rs = 1
// variant against the general kernel, alternating; "general/unit" is
// their ratio.
func BenchmarkMicroKernelUnit(b *testing.B) {
	if !cpu.X86.HasAVX512F {
		b.Skip("no AVX-512")
	}
	old := unitNever
	defer func() { unitNever = old }()
	for _, mk := range archKernelSets()[0].kernels {
		for _, kb := range []int{128, 576} {
			b.Run(fmt.Sprintf("%dx%d/k%d", mk.mr, mk.nr, kb), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				const panels = 16
				a := randSlice(panels*mk.mr*kb, rng)
				bp := randSlice(kb*mk.nr, rng)
				c := make([]float32, panels*mk.mr*mk.nr)
				pairedRatio(b, "general/unit", func(unit bool) float64 {
					unitNever = !unit
					s := time.Now()
					for range 20 {
						for p := 0; p < panels; p++ {
							mk.run(kb, a, p*mk.mr*kb, 1, mk.mr, bp, c, p*mk.mr*mk.nr, mk.nr, true, mk.nr)
						}
					}
					return time.Since(s).Seconds()
				})
			})
		}
	}
}
