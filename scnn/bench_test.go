package scnn

import (
	"fmt"
	"testing"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// Conv forward+backward at the paper's scale: batch 10, L = 100, 64 -> 64
// channels. GFLOP/s counts the multiply-adds actually performed (2 FLOPs
// each; forward, dX and dW each one convolution's worth): L² pixels for the
// full layer, L(L+1)/2 for the symmetric one. "ns/op" compares the two
// directly; full-equiv-GFLOP/s credits the symmetric layer with the full
// layer's FLOPs (the work it replaces).
func BenchmarkConvForwardBackward(b *testing.B) {
	const batch, l, c = 10, 100, 64
	for _, k := range []int{3, 5} {
		fullFlops := 3 * 2 * float64(batch*l*l*k*k*c*c)
		triFlops := 3 * 2 * float64(batch*kern.TriSize(l)*k*k*c*c)
		b.Run(fmt.Sprintf("full/k%d", k), func(b *testing.B) {
			rng := newRNG(1)
			conv, _ := NewConv2D("c", k, c, c, rng)
			x := randTensor(rng, batch, l, l, c)
			dy := randTensor(rng, batch, l, l, c)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := Training(0)
				y, _ := conv.Apply(p, x)
				p.Backward(y, dy)
			}
			b.ReportMetric(fullFlops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("symmetric/k%d", k), func(b *testing.B) {
			rng := newRNG(1)
			conv, _ := NewSymPresConv("s", k, c, c, rng)
			x := randPacked(rng, batch, l, c)
			dy := randPacked(rng, batch, l, c)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := Training(0)
				y, _ := conv.Apply(p, x)
				p.Backward(y, dy)
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(triFlops*float64(b.N)/s/1e9, "GFLOP/s")
			b.ReportMetric(fullFlops*float64(b.N)/s/1e9, "full-equiv-GFLOP/s")
		})
	}
}

// The sgemm ceiling on the conv-shaped products (one tile of pixels, N = 64,
// K = k*k*64), single-threaded as the layers call it.
func BenchmarkSgemmConvShaped(b *testing.B) {
	for _, k := range []int{3, 5} {
		kk := k * k * 64
		m := kern.ConvGeom{Cin: 64, K: k}.Rows()
		m = min(max((1<<20)/m, 64), 1024)
		b.Run(fmt.Sprintf("%s/M%d_N64_K%d", kern.Backend(), m, kk), func(b *testing.B) {
			rng := newRNG(2)
			a, w, c := make([]float32, m*kk), make([]float32, kk*64), make([]float32, m*64)
			randn(a, rng)
			randn(w, rng)
			for i := 0; i < b.N; i++ {
				kern.Gemm(false, false, m, 64, kk, 1, a, kk, w, 64, 0, c, 64)
			}
			b.ReportMetric(2*float64(m*64*kk)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// Outer-sum sgConv (k = 1) against the explicit self-Cartesian product
// followed by a 1x1 convolution: batch 10, L = 100, n = 40, F = 64.
func BenchmarkSymGenConv1x1(b *testing.B) {
	const batch, l, n, f = 10, 100, 40, 64
	rng := newRNG(3)
	x := randTensor(rng, batch, l, n)
	b.Run("outer-sum", func(b *testing.B) {
		sg, _ := NewSymGenConv("sg", 1, n, f, rng)
		dy := randPacked(rng, batch, l, f)
		for i := 0; i < b.N; i++ {
			p := Training(0)
			y, _ := sg.Apply(p, x)
			p.Backward(y, dy)
		}
	})
	b.Run("self-cartesian+conv", func(b *testing.B) {
		conv, _ := NewConv2D("c", 1, 2*n, f, rng)
		dy := randTensor(rng, batch, l, l, f)
		for i := 0; i < b.N; i++ {
			p := Training(0)
			sc, _ := SelfCartesian(p, x)
			y, _ := conv.Apply(p, sc)
			p.Backward(y, dy)
		}
	})
}
