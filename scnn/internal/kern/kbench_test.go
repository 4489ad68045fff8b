package kern

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func BenchmarkMicroKernel(b *testing.B) {
	for _, s := range kernelSets {
		for _, mk := range s.kernels {
			for _, kb := range []int{128, 576} {
				b.Run(fmt.Sprintf("%s/%dx%d/k%d", s.name, mk.mr, mk.nr, kb), func(b *testing.B) {
					rng := rand.New(rand.NewPCG(1, 2))
					const panels = 16
					a := randSlice(panels*mk.mr*kb, rng)
					bp := randSlice(kb*mk.nr, rng)
					c := make([]float32, panels*mk.mr*mk.nr)
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						for p := 0; p < panels; p++ {
							mk.run(kb, a, p*mk.mr*kb, 1, mk.mr, bp, c, p*mk.mr*mk.nr, mk.nr, true, mk.nr)
						}
					}
					b.ReportMetric(float64(2*panels*mk.mr*mk.nr*kb)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

func BenchmarkMicroKernelStrided(b *testing.B) {
	for _, s := range kernelSets[:1] {
		for _, mk := range s.kernels {
			for _, lda := range []int{576, 1600, 64, 128} {
				kb := 128
				b.Run(fmt.Sprintf("%s/%dx%d/lda%d", s.name, mk.mr, mk.nr, lda), func(b *testing.B) {
					rng := rand.New(rand.NewPCG(1, 2))
					const panels = 16
					a := randSlice(panels*mk.mr*lda+kb, rng)
					bp := randSlice(kb*mk.nr, rng)
					c := make([]float32, panels*mk.mr*mk.nr)
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						for p := 0; p < panels; p++ {
							mk.run(min(kb, lda), a, p*mk.mr*lda, lda, 1, bp, c, p*mk.mr*mk.nr, mk.nr, true, mk.nr)
						}
					}
					b.ReportMetric(float64(2*panels*mk.mr*mk.nr*min(kb, lda))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}
