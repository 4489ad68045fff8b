package kern

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDirectKernel times the direct micro-kernels on data in cache
// (GFLOP/s over the multiply-adds done).
func BenchmarkDirectKernel(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for name, dk := range directKernels() {
		if name == "go" {
			continue
		}
		for _, ck := range [][2]int{{31, 9}, {8, 3}} {
			cin, k := ck[0], ck[1]
			b.Run(fmt.Sprintf("%s/cin%d/k%d", name, cin, k), func(b *testing.B) {
				ldx := 144
				x := randSlice(cin*ldx, rng)
				w := randSlice(cin*k*directF, rng)
				acc := make([]float32, directF*48)
				for i := 0; i < b.N; i++ {
					dk(3, acc, x, ldx, w, cin, k)
				}
				b.ReportMetric(float64(b.N)*float64(cin*k*directF*48*2)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
