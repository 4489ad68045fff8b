//go:build amd64 && !purego

package kern

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/sys/cpu"
)

// BenchmarkBNSumsInRegisters times the float64 sums of batchnorm's
// forward and backward steps (BNVarSums, BNBackSums, AxpyRowsF64) over
// one chunk of pixels (scnn's chunkRows), with the sums in registers
// (bnreg_amd64.s) against the loops that keep them in memory
// (bn_amd64.s, axpy_amd64.s), alternating; "mem/reg" is their ratio.
func BenchmarkBNSumsInRegisters(b *testing.B) {
	if !cpu.X86.HasAVX512F {
		b.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 2048
	for _, c := range []int{4, 8, 16, 26, 32} {
		w := randSlice(n, rng)
		x, dy := randSlice(n*c, rng), randSlice(n*c, rng)
		mean, inv := randSlice(c, rng), randSlice(c, rng)
		mean64 := make([]float64, c)
		s1, s2 := make([]float64, c), make([]float64, c)
		nch, masks := regChunks(c)
		for _, k := range []struct {
			name     string
			mem, reg func()
		}{
			{"backSums",
				func() {
					bnBackSumsAVX512(&s1[0], &s2[0], &w[0], &dy[0], &x[0], &mean[0], &inv[0], n, c, c/8*32, 1<<(c%8)-1)
				},
				func() {
					bnBackSumsRegAVX512(&s1[0], &s2[0], &w[0], &dy[0], &x[0], &mean[0], &inv[0], n, c, nch, masks)
				}},
			{"varSums",
				func() { bnVarSumsAVX512(&s1[0], &mean64[0], &w[0], &x[0], n, c, c/8*32, 1<<(c%8)-1) },
				func() { bnVarSumsRegAVX512(&s1[0], &mean64[0], &w[0], &x[0], n, c, nch, masks) }},
			{"axpy",
				func() { axpyRowsF64AVX512(&s1[0], &w[0], n, &x[0], c, c/8, 1<<(c%8)-1) },
				func() { axpyRowsF64RegAVX512(&s1[0], &w[0], n, &x[0], c, nch, masks) }},
		} {
			b.Run(fmt.Sprintf("%s/c%d", k.name, c), func(b *testing.B) {
				pairedRatio(b, "mem/reg", func(reg bool) float64 {
					f := k.mem
					if reg {
						f = k.reg
					}
					s := time.Now()
					for range 20 {
						f()
					}
					return time.Since(s).Seconds()
				})
			})
		}
	}
}
