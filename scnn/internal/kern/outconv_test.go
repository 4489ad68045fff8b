package kern

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// symKernel returns a random spatially symmetric k x k x cin x cout kernel.
func symKernel(k, cin, cout int, rng *rand.Rand) []float32 {
	wt := make([]float32, k*k*cin*cout)
	m := cin * cout
	for a := 0; a < k; a++ {
		for b := 0; b <= a; b++ {
			v := randSlice(m, rng)
			copy(wt[(a*k+b)*m:], v)
			copy(wt[(b*k+a)*m:], v)
		}
	}
	return wt
}

// The output-side forward pass equals the naive loop, dense and packed,
// with one band per map and with several (small Z budget: halo rows).
func TestConvForwardOutputSide(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const b, l = minBandItems, 11 // no band split for small batches
	defer func(z int) { zBudget = z }(zBudget)
	// Cout 8 takes the unrolled gather of the Go kernels (add8); 54 (the
	// paper's width) a masked block of the AVX-512 one.
	withKernels(t, func(t *testing.T) { testConvForwardOutputSide(t, rng, b, l) })
}

func testConvForwardOutputSide(t *testing.T, rng *rand.Rand, b, l int) {
	for _, ch := range [][2]int{{6, 2}, {16, 8}, {110, 54}} {
		cin, cout := ch[0], ch[1]
		for _, several := range []bool{false, true} {
			for _, k := range []int{3, 5} {
				zBudget = 8 << 20
				if several { // bands of 3 rows plus halo
					zBudget = (3 + 2*(k/2)) * l * k * k * cout
				}
				for _, packed := range []bool{false, true} {
					t.Run(fmt.Sprintf("%dto%d/several=%v/k%d/packed=%v", cin, cout, several, k, packed), func(t *testing.T) {
						g := ConvGeom{Packed: packed, B: b, H: l, W: l, Cin: cin, Cout: cout, K: k, Workers: 2}
						if !several && !g.UseOutputSide() {
							t.Fatalf("geometry %+v does not take the output-side path", g)
						}
						if several && g.outBand() != 3 {
							t.Fatalf("band of %d rows, want 3", g.outBand())
						}
						wt := symKernel(k, cin, cout, rng) // symmetric, so packed is valid too
						bias := randSlice(cout, rng)
						np := g.Pixels()
						x := randSlice(b*np*cin, rng)
						out := make([]float32, b*np*cout)
						for i := range out {
							out[i] = 99 // must be overwritten
						}
						convForwardOut(g, out, g.Cout, 0, x, wt, bias)
						for s := 0; s < b; s++ {
							xd, got := x[s*np*cin:(s+1)*np*cin], out[s*np*cout:(s+1)*np*cout]
							if packed {
								xd = make([]float32, l*l*cin)
								Unpack(xd, x[s*np*cin:(s+1)*np*cin], l, cin)
								got = make([]float32, l*l*cout)
								Unpack(got, out[s*np*cout:(s+1)*np*cout], l, cout)
							}
							want := naiveConv(xd, wt, bias, l, l, cin, cout, k)
							if d := maxDiff(got, want); d > 1e-4 {
								t.Errorf("sample %d: max diff %g", s, d)
							}
						}
					})
				}
			}
		}
	}
}

// symSum returns u[a,b] + u[b,a] for a k x k x m kernel u.
func symSum(u []float32, k, m int) []float32 {
	out := make([]float32, len(u))
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			for i := 0; i < m; i++ {
				out[(a*k+b)*m+i] = u[(a*k+b)*m+i] + u[(b*k+a)*m+i]
			}
		}
	}
	return out
}

// ConvBackward's kernel gradient equals ConvWeightGrad's (on a packed map up to
// the spatial transpose: U + U^T is what the triangle determines) and its input
// gradient equals the transposed convolution (ConvForward of dy with the
// flipped kernel), dense and packed, for several tilings and worker counts.
func TestConvBackwardMatchesWeightGradAndTransposedConv(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	withKernels(t, func(t *testing.T) { checkConvBackward(t, rng) })
}

func checkConvBackward(t *testing.T, rng *rand.Rand) {
	const b = 3
	// 4, 16 and 32 input channels: x's tile is its own packing for the
	// kernel gradient's GEMM where it is one panel of the kernel picked
	// (the portable 4 x 4; AVX-512's 24 x 16 or 12 x 32); 13 x 13 maps
	// give whole-map tiles past sgemmKC rows. Without a tile size (tile0)
	// dense k >= 3 and packed k = 5 layers go by kernel rows (rowsPays).
	for _, ch := range [][3]int{{5, 2, 9}, {3, 4, 9}, {4, 3, 13}, {16, 3, 9}, {32, 2, 13}} {
		cin, cout, l := ch[0], ch[1], ch[2]
		for _, k := range []int{1, 3, 5} {
			for _, packed := range []bool{false, true} {
				for _, tw := range [][2]int{{7, 1}, {13, 2}, {0, 3}} {
					symK := tw[1] == 2 // the kernel's position pairs (SymKernel)
					name := fmt.Sprintf("%dto%d/L%d/k%d/packed=%v/tile%d/workers%d/symkernel=%v", cin, cout, l, k, packed, tw[0], tw[1], symK)
					t.Run(name, func(t *testing.T) {
						g := ConvGeom{Packed: packed, B: b, H: l, W: l, Cin: cin, Cout: cout, K: k, Workers: tw[1], TilePixels: tw[0], SymKernel: symK}
						np := g.Pixels()
						wt := symKernel(k, cin, cout, rng)
						x, dy := randSlice(b*np*cin, rng), randSlice(b*np*cout, rng)
						dw, db := make([]float32, len(wt)), make([]float32, cout)
						dx := make([]float32, b*np*cin)
						ConvBackward(g, dx, dw, db, x, dy, wt)
						wantW, wantB := make([]float32, len(wt)), make([]float32, cout)
						ConvWeightGrad(g, wantW, wantB, x, dy)
						if packed || symK {
							// Only U + U^T (spatial transpose) is defined by
							// the triangle, or by a pass over the kernel's
							// position pairs: compare that.
							dw, wantW = symSum(dw, k, cin*cout), symSum(wantW, k, cin*cout)
						}
						if d := maxDiff(dw, wantW); d > 1e-3 {
							t.Errorf("kernel gradient: max diff %g", d)
						}
						if d := maxDiff(db, wantB); d > 1e-4 {
							t.Errorf("bias gradient: max diff %g", d)
						}
						flip := make([]float32, len(wt))
						FlipKernel(flip, wt, k, cin, cout)
						gt := g
						gt.Cin, gt.Cout = cout, cin
						wantX := make([]float32, len(dx))
						ConvForward(gt, wantX, dy, flip, nil)
						if d := maxDiff(dx, wantX); d > 1e-4 {
							t.Errorf("input gradient: max diff %g", d)
						}
					})
				}
			}
		}
	}
}

// A batch smaller than minBandItems is split into bands, the same ones
// whatever the worker count, and the results are identical across worker
// counts.
func TestConvForwardOutputSideSmallBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const l, cin, cout, k = 40, 16, 8, 3
	x := randSlice(l*l*cin, rng)
	wt := randSlice(k*k*cin*cout, rng)
	var first []float32
	for _, workers := range []int{1, 2, 3, 8} {
		g := ConvGeom{B: 1, H: l, W: l, Cin: cin, Cout: cout, K: k, Workers: workers}
		if !g.UseOutputSide() || g.outBand() != l/minBandItems {
			t.Fatalf("workers %d: output side %v, band %d, want %d", workers, g.UseOutputSide(), g.outBand(), l/minBandItems)
		}
		out := make([]float32, l*l*cout)
		convForwardOut(g, out, g.Cout, 0, x, wt, nil) // ConvForward would take the direct method with AVX-512
		if first == nil {
			first = out
			if d := maxDiff(out, naiveConv(x, wt, make([]float32, cout), l, l, cin, cout, k)); d > 1e-4 {
				t.Fatalf("max diff %g from the naive loop", d)
			}
			continue
		}
		if d := maxDiff(out, first); d != 0 {
			t.Errorf("workers %d: differs by %g from 1 worker", workers, d)
		}
	}
}
