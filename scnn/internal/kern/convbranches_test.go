package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ConvBackwardBranches gives, bit for bit, what ConvBackward per branch
// gives with the input gradients added in branch order, on every kernel
// set and every bfloat16 set (where x's tile is not shared), dense and
// packed, for one to three branches, one and two workers, one tile per
// sample, tiles of 37 pixels (starting inside triangle rows, a short last
// one) and branches whose tiles differ (the fallback).
func TestConvBackwardBranchesMatchesEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	withKernels(t, func(t *testing.T) { checkConvBackwardBranches(t, rng) })
	withBF16Sets(t, func(t *testing.T, _ *bf16Set) { checkConvBackwardBranches(t, rng) })
}

func checkConvBackwardBranches(t *testing.T, rng *rand.Rand) {
	{
		const b, l, cin = 2, 23, 11
		for _, branches := range [][][2]int{{{3, 8}}, {{7, 8}, {5, 8}, {3, 4}}, {{5, 3}, {1, 8}}} {
			for _, packed := range []bool{false, true} {
				for _, workers := range []int{1, 2} {
					for _, tiles := range []string{"one", "all37", "last37"} {
						name := fmt.Sprintf("%v/packed=%v/workers%d/tiles-%s", branches, packed, workers, tiles)
						t.Run(name, func(t *testing.T) {
							gs := make([]ConvGeom, len(branches))
							var dys, ws, dws, dbs, wantW, wantB [][]float32
							for i, br := range branches {
								gs[i] = ConvGeom{Packed: packed, B: b, H: l, W: l, Cin: cin, Cout: br[1], K: br[0], Workers: workers}
								if tiles == "all37" || tiles == "last37" && i == len(branches)-1 {
									gs[i].TilePixels = 37
								}
								np := gs[i].Pixels()
								dys = append(dys, randSlice(b*np*br[1], rng))
								ws = append(ws, symKernel(br[0], cin, br[1], rng))
								dw, db := randSlice(br[0]*br[0]*cin*br[1], rng), randSlice(br[1], rng)
								dws, dbs = append(dws, dw), append(dbs, db)
								wantW, wantB = append(wantW, append([]float32(nil), dw...)), append(wantB, append([]float32(nil), db...))
							}
							np := gs[0].Pixels()
							x := randSlice(b*np*cin, rng)
							got := randSlice(b*np*cin, rng) // overwritten
							ConvBackwardBranches(gs, got, dws, dbs, x, dys, ws)
							want := make([]float32, len(got))
							for i, g := range gs {
								dx := make([]float32, len(got))
								ConvBackward(g, dx, wantW[i], wantB[i], x, dys[i], ws[i])
								for j, v := range dx {
									if i == 0 {
										want[j] = v
									} else {
										want[j] += v
									}
								}
							}
							same := func(what string, a, b []float32) {
								for j := range a {
									if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
										t.Fatalf("%s[%d] = %v, want %v", what, j, a[j], b[j])
									}
								}
							}
							same("dx", got, want)
							for i := range gs {
								same(fmt.Sprintf("branch %d dw", i), dws[i], wantW[i])
								same(fmt.Sprintf("branch %d db", i), dbs[i], wantB[i])
							}
						})
					}
				}
			}
		}
	}
}

// With SymKernel set on a spatially symmetric kernel, ConvBackwardBranches
// (one or more branches, dense and packed, tiles of 37 pixels and whole
// maps; rows past foldChunk) gives the input gradient and the kernel
// gradient's symmetric sums V[a,b] + V[b,a] of the unfolded pass to
// float32 rounding, and the same bias gradient, on every kernel set. A
// lost pair or a weight off by 1% fails it.
func TestConvBackwardSymKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	defer func(f bool) { foldAlways = f }(foldAlways)
	foldAlways = true // every branch with k > 1 folds, whatever its widths
	withKernels(t, func(t *testing.T) {
		const b, l, cin = 2, 19, 10
		for _, branches := range [][][2]int{{{3, 8}}, {{9, 8}, {5, 4}, {1, 3}}, {{7, 5}}} {
			for _, packed := range []bool{false, true} {
				for _, tile := range []int{0, 37} {
					name := fmt.Sprintf("%v/packed=%v/tile%d", branches, packed, tile)
					t.Run(name, func(t *testing.T) {
						var gs, gf []ConvGeom
						var dys, ws, dws, dbs, wantW, wantB [][]float32
						for _, br := range branches {
							g := ConvGeom{Packed: packed, B: b, H: l, W: l, Cin: cin, Cout: br[1], K: br[0], Workers: 2, TilePixels: tile}
							gs = append(gs, g)
							g.SymKernel = true
							gf = append(gf, g)
							dys = append(dys, randSlice(b*g.Pixels()*br[1], rng))
							ws = append(ws, symKernel(br[0], cin, br[1], rng))
							n := br[0] * br[0] * cin * br[1]
							dws, dbs = append(dws, make([]float32, n)), append(dbs, make([]float32, br[1]))
							wantW, wantB = append(wantW, make([]float32, n)), append(wantB, make([]float32, br[1]))
						}
						np := gs[0].Pixels()
						x := randSlice(b*np*cin, rng)
						got, want := make([]float32, b*np*cin), make([]float32, b*np*cin)
						ConvBackwardBranches(gf, got, dws, dbs, x, dys, ws)
						ConvBackwardBranches(gs, want, wantW, wantB, x, dys, ws)
						close := func(what string, a, w []float32) {
							scale := float32(0)
							for _, v := range w {
								scale = max(scale, float32(math.Abs(float64(v))))
							}
							for j := range a {
								if d := math.Abs(float64(a[j] - w[j])); d > 1e-5*float64(scale) {
									t.Fatalf("%s[%d] = %v, want %v (scale %v)", what, j, a[j], w[j], scale)
								}
							}
						}
						close("dx", got, want)
						for i, g := range gs {
							close(fmt.Sprintf("branch %d dw", i), symSum(dws[i], g.K, cin*g.Cout), symSum(wantW[i], g.K, cin*g.Cout))
							for f := range dbs[i] {
								if dbs[i][f] != wantB[i][f] {
									t.Fatalf("branch %d db[%d] = %v, want %v", i, f, dbs[i][f], wantB[i][f])
								}
							}
						}
					})
				}
			}
		}
	})
}

// BenchmarkConvBackwardSymKernel times ConvBackward of spConvs on packed
// 100 x 100 maps, one worker, with the kernel's position pairs folded
// (SymKernel, forced where FoldsPairs would not) and without: the
// measurement behind FoldsPairs.
func BenchmarkConvBackwardSymKernel(b *testing.B) {
	defer func(f bool) { foldAlways = f }(foldAlways)
	foldAlways = true
	for _, sh := range [][3]int{{9, 31, 8}, {7, 86, 8}, {5, 31, 8}, {5, 20, 8}, {5, 31, 4}, {5, 8, 8}, {5, 8, 4}, {3, 86, 8}, {3, 20, 8}, {3, 16, 8}, {3, 31, 4}} {
		for _, fold := range []bool{false, true} {
			b.Run(fmt.Sprintf("k%d_%dx%d/symkernel=%v", sh[0], sh[1], sh[2], fold), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				g := ConvGeom{Packed: true, B: 4, H: 100, W: 100, Cin: sh[1], Cout: sh[2], K: sh[0], Workers: 1, SymKernel: fold}
				np := g.Pixels()
				x, dy := randSlice(g.B*np*g.Cin, rng), randSlice(g.B*np*g.Cout, rng)
				w := symKernel(g.K, g.Cin, g.Cout, rng)
				dx, dw, db := make([]float32, len(x)), make([]float32, len(w)), make([]float32, g.Cout)
				for i := 0; i < b.N; i++ {
					ConvBackward(g, dx, dw, db, x, dy, w)
				}
			})
		}
	}
}
