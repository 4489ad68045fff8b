package kern

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
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

// BenchmarkConvForwardDirectPairs times the direct forward pass of
// spConvs (SymKernel) on packed 100 x 100 maps, batch 10, GOMAXPROCS
// workers, with the kernel's position pairs folded (directPairKernel)
// and unfolded (directPairNever), alternately, and reports the median
// of the paired ratios unfolded/folded (above 1: folding faster). It
// folds the 3x3 layers too, which the default directPairMinK does not.
// Run with -benchtime 21x or more.
func BenchmarkConvForwardDirectPairs(b *testing.B) {
	defer func(n bool, m int) { directPairNever, directPairMinK = n, m }(directPairNever, directPairMinK)
	directPairMinK = 3
	for _, sh := range [][3]int{{3, 16, 8}, {3, 86, 8}, {5, 31, 8}, {7, 86, 8}, {9, 31, 8}, {5, 8, 4}, {3, 8, 1}} {
		g := ConvGeom{Packed: true, SymKernel: true, B: 10, H: 100, W: 100, Cin: sh[1], Cout: sh[2], K: sh[0]}
		if !g.UseDirect() || directPairKernelOf() == nil {
			b.Skip("no direct pair kernel in this set")
		}
		b.Run(fmt.Sprintf("k%d_%dx%d", sh[0], sh[1], sh[2]), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			np := g.Pixels()
			x := randSlice(g.B*np*g.Cin, rng)
			w := symKernel(g.K, g.Cin, g.Cout, rng)
			out := make([]float32, g.B*np*g.Cout)
			pairedRatio(b, "unfolded/folded", func(fold bool) float64 {
				directPairNever = !fold
				s := time.Now()
				ConvForward(g, out, x, w, nil)
				return time.Since(s).Seconds()
			})
		})
	}
}
