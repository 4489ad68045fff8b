package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// ConvBackwardBranches gives, bit for bit, what ConvBackward per branch
// (on the branches' shared tile) gives with the input gradients added in
// branch order, on every kernel
// set and every bfloat16 set (where x's tile is not shared), dense and
// packed, for one to three branches, one and two workers, one tile per
// sample, tiles of 37 pixels (starting inside triangle rows, a short last
// one) and branches whose tiles differ (the fallback); and with every
// branch by kernel rows where no tile size is set (rowsAlways).
func TestConvBackwardBranchesMatchesEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	withKernels(t, func(t *testing.T) { checkConvBackwardBranches(t, rng) })
	withBF16Sets(t, func(t *testing.T, _ *bf16Set) { checkConvBackwardBranches(t, rng) })
	t.Run("rows", func(t *testing.T) {
		defer func(a bool) { rowsAlways = a }(rowsAlways)
		rowsAlways = true
		withKernels(t, func(t *testing.T) { checkConvBackwardBranches(t, rng) })
	})
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
							shared := sharedTile(gs)
							for i, g := range gs {
								if !useRows(gs) && shared > 0 {
									g.TilePixels = shared // the tile the branches share
								}
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
// float32 rounding, and the same bias gradient (to rounding where the
// tiles are backwardTile's, which differ folded), on every kernel set. A
// lost pair or a weight off by 1% fails it.
func TestConvBackwardSymKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	defer func(f, r bool) { foldAlways, rowsNever = f, r }(foldAlways, rowsNever)
	foldAlways = true // every branch with k > 1 folds, whatever its widths
	rowsNever = true  // the unfolded reference by tiles too: the same bias sums
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
							if tile == 0 {
								// backwardTile's tiles follow the im2col
								// rows, shorter folded: other sums of dy.
								close(fmt.Sprintf("branch %d db", i), dbs[i], wantB[i])
								continue
							}
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

// TestIm2colFolded checks the folded im2col of dy straight from the map
// against foldPairs of the full im2col, bit for bit (the sign of a zero
// included), on dense maps (square and not) and packed ones, tiles from
// any pixel (mid-row, across rows), channels that take each of
// foldRows' paths (4 and 8 by four pixels), every kernel set.
func TestIm2colFolded(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	withKernels(t, func(t *testing.T) {
		for _, packed := range []bool{false, true} {
			for _, k := range []int{1, 3, 5, 7, 9} {
				for _, c := range []int{1, 3, 4, 8, 20, 70} {
					for _, hw := range [][2]int{{1, 1}, {4, 4}, {9, 9}, {23, 23}, {5, 11}, {12, 3}} {
						l, wd := hw[0], hw[1]
						if packed && l != wd {
							continue
						}
						g := ConvGeom{Packed: packed, B: 1, H: l, W: wd, Cin: c, Cout: 1, K: k}
						np := g.Pixels()
						x := randSlice(np*c, rng)
						for i := range x {
							switch rng.IntN(8) {
							case 0:
								x[i] = 0
							case 1:
								x[i] = float32(math.Copysign(0, -1))
							}
						}
						nd, nf := k*(k+1)/2*c, k*k*c
						for trial := 0; trial < 4; trial++ {
							pix0 := rng.IntN(np)
							n := 1 + rng.IntN(np-pix0)
							if trial == 0 {
								pix0, n = 0, np
							}
							want := make([]float32, n*nd)
							full := make([]float32, n*nf)
							g.im2col(full, x, pix0, n)
							foldPairs(want, full, n, k, c)
							got := randSlice(n*nd, rng) // every element must be written
							g.im2colFolded(got, x, pix0, n)
							for e := range want {
								if math.Float32bits(got[e]) != math.Float32bits(want[e]) {
									t.Fatalf("packed=%v k=%d c=%d %dx%d pixels %d+%d: element %d (row %d) = %v, want %v",
										packed, k, c, l, wd, pix0, n, e, e/nd, got[e], want[e])
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestConvBackwardRows checks the backward pass by kernel rows against
// the tile method: dense and packed maps, one to three branches (a
// branch of kernel 1 included), 1 and 3 workers, maps narrower than the
// kernel and wider than sgemmKC, every kernel set.
func TestConvBackwardRows(t *testing.T) {
	if backend != "go" {
		t.Skip("the row methods run on the Go kernels only")
	}
	rng := rand.New(rand.NewPCG(14, 15))
	defer func(a, n bool) { rowsAlways, rowsNever = a, n }(rowsAlways, rowsNever)
	withKernels(t, func(t *testing.T) {
		for _, sh := range []struct {
			l, cin   int
			branches [][2]int
		}{
			{19, 16, [][2]int{{3, 8}}},
			{19, 31, [][2]int{{9, 8}, {5, 4}, {1, 3}}},
			{3, 5, [][2]int{{5, 2}}},
			{140, 8, [][2]int{{3, 4}}},
			{23, 20, [][2]int{{7, 5}, {3, 6}}},
		} {
			for _, packed := range []bool{false, true} {
				for _, workers := range []int{1, 3} {
					name := fmt.Sprintf("l%d/cin%d/%v/packed=%v/workers%d", sh.l, sh.cin, sh.branches, packed, workers)
					t.Run(name, func(t *testing.T) {
						const b = 2
						var gs []ConvGeom
						var dys, ws [][]float32
						for _, br := range sh.branches {
							g := ConvGeom{Packed: packed, B: b, H: sh.l, W: sh.l, Cin: sh.cin, Cout: br[1], K: br[0], Workers: workers}
							gs = append(gs, g)
							dys = append(dys, randSlice(b*g.Pixels()*br[1], rng))
							ws = append(ws, randSlice(br[0]*br[0]*sh.cin*br[1], rng))
						}
						x := randSlice(b*gs[0].Pixels()*sh.cin, rng)
						run := func(rows bool) (dx []float32, dws, dbs [][]float32) {
							rowsAlways, rowsNever = rows, !rows
							if got := useRows(gs); got != rows {
								t.Fatalf("useRows = %v with rowsAlways = %v", got, rows)
							}
							dx = make([]float32, len(x))
							for i, g := range gs {
								dws = append(dws, randSlice(len(ws[i]), rand.New(rand.NewPCG(1, uint64(i)))))
								dbs = append(dbs, make([]float32, g.Cout))
							}
							ConvBackwardBranches(gs, dx, dws, dbs, x, dys, ws)
							return
						}
						gotX, gotW, gotB := run(true)
						wantX, wantW, wantB := run(false)
						closeTo(t, "dx", gotX, wantX)
						for i := range gs {
							closeTo(t, fmt.Sprintf("branch %d dw", i), gotW[i], wantW[i])
							closeTo(t, fmt.Sprintf("branch %d db", i), gotB[i], wantB[i])
						}
					})
				}
			}
		}
	})
}

// BenchmarkConvBackwardFold times ConvBackward of spConvs on packed
// 100 x 100 maps, batch 10, GOMAXPROCS workers, with the kernel's
// position pairs folded (SymKernel, forced where FoldsPairs would not)
// and without, alternately, and reports the median of the paired
// ratios, unfolded/folded (above 1: folding faster): the measurement
// behind FoldsPairs.
func BenchmarkConvBackwardFold(b *testing.B) {
	defer func(f bool) { foldAlways = f }(foldAlways)
	for _, sh := range [][3]int{{3, 16, 8}, {3, 8, 8}, {3, 20, 8}, {3, 86, 8}, {5, 8, 8}, {5, 8, 4}, {3, 31, 4},
		{3, 8, 4}, {3, 4, 4}, {5, 4, 4}, {3, 3, 8}, {5, 3, 8}, {7, 3, 8}, {3, 8, 1}, {5, 8, 1}} {
		b.Run(fmt.Sprintf("k%d_%dx%d", sh[0], sh[1], sh[2]), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			g := ConvGeom{Packed: true, B: 10, H: 100, W: 100, Cin: sh[1], Cout: sh[2], K: sh[0]}
			np := g.Pixels()
			x, dy := randSlice(g.B*np*g.Cin, rng), randSlice(g.B*np*g.Cout, rng)
			w := symKernel(g.K, g.Cin, g.Cout, rng)
			dx, dw, db := make([]float32, len(x)), make([]float32, len(w)), make([]float32, g.Cout)
			pairedRatio(b, "unfolded/folded", func(fold bool) float64 {
				foldAlways, g.SymKernel = fold, fold
				s := time.Now()
				ConvBackward(g, dx, dw, db, x, dy, w)
				return time.Since(s).Seconds()
			})
		})
	}
}

// BenchmarkConvBackwardRows times the backward pass by tiles and by
// kernel rows, alternately (tiles, rows, rows, tiles per iteration), on
// the narrow layers of the shipped networks and their neighbours, batch
// 10 of 100 x 100 maps (packed: the triangle), one worker, and reports
// the median of the paired ratios, tiles/rows (above 1: rows faster).
// Run with -benchtime 25x or more: single runs on this project's hosts
// vary by 30%, pairs of neighbouring runs much less.
func BenchmarkConvBackwardRows(b *testing.B) {
	defer func(a, n bool) { rowsAlways, rowsNever = a, n }(rowsAlways, rowsNever)
	for _, sh := range [][3]int{{3, 16, 8}, {3, 8, 8}, {3, 8, 4}, {3, 31, 8}, {3, 20, 8}, {5, 8, 8}, {5, 8, 4}, {5, 16, 8}, {5, 31, 8}, {9, 31, 8}, {7, 86, 8}, {3, 86, 8}, {3, 3, 8}, {5, 3, 8}, {7, 3, 8}, {7, 5, 8}, {7, 8, 8}, {3, 1, 8}, {7, 1, 8}} {
		for _, packed := range []bool{false, true} {
			b.Run(fmt.Sprintf("k%d_%dx%d/packed=%v", sh[0], sh[1], sh[2], packed), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				g := ConvGeom{Packed: packed, B: 10, H: 100, W: 100, Cin: sh[1], Cout: sh[2], K: sh[0], Workers: 1}
				np := g.Pixels()
				x, dy := randSlice(g.B*np*g.Cin, rng), randSlice(g.B*np*g.Cout, rng)
				w := randSlice(g.K*g.K*g.Cin*g.Cout, rng)
				dx, dw, db := make([]float32, len(x)), make([]float32, len(w)), make([]float32, g.Cout)
				run := func(rows bool) float64 {
					rowsAlways, rowsNever = rows, !rows
					s := time.Now()
					ConvBackward(g, dx, dw, db, x, dy, w)
					return time.Since(s).Seconds()
				}
				pairedRatio(b, "tiles/rows", run)
			})
		}
	}
}

// BenchmarkIm2colFolded times the folded im2col of dy made straight from
// the map (im2colFolded: pixel by pixel, fold.go) and by the full im2col
// and the reference fold foldPairs, a chunk of foldChunk rows at a time,
// alternately, on one sample of a packed map, in tiles of 1,024 pixels,
// and reports the median of the paired ratios, full/straight (above 1:
// straight faster).
func BenchmarkIm2colFolded(b *testing.B) {
	for _, sh := range [][3]int{{9, 8, 100}, {7, 8, 100}, {5, 8, 100}, {9, 8, 64}, {5, 8, 64}, {5, 4, 64}, {3, 64, 5}, {3, 64, 12}} {
		b.Run(fmt.Sprintf("k%d_c%d_L%d", sh[0], sh[1], sh[2]), func(b *testing.B) {
			k, c, l := sh[0], sh[1], sh[2]
			g := ConvGeom{Packed: true, B: 1, H: l, W: l, Cin: c, Cout: 1, K: k}
			np := g.Pixels()
			x := randSlice(np*c, rand.New(rand.NewPCG(1, 2)))
			nd, nf, tl := k*(k+1)/2*c, k*k*c, 1024
			col, full := make([]float32, tl*nd), make([]float32, foldChunk*nf)
			run := func(straight bool) float64 {
				s := time.Now()
				for p0 := 0; p0 < np; p0 += tl {
					rows := min(tl, np-p0)
					if straight {
						g.im2colFolded(col, x, p0, rows)
						continue
					}
					for r0 := 0; r0 < rows; r0 += foldChunk {
						rn := min(foldChunk, rows-r0)
						g.im2col(full[:rn*nf], x, p0+r0, rn)
						foldPairs(col[r0*nd:(r0+rn)*nd], full, rn, k, c)
					}
				}
				return time.Since(s).Seconds()
			}
			pairedRatio(b, "full/straight", run)
		})
	}
}

// BenchmarkConvBackwardRowsBlocks is BenchmarkConvBackwardRows for the
// blocks of the shipped CNNs as ConvBackwardBranches runs them: batch 10
// of 64 x 64 dense maps (the RNA recipe's crop), GOMAXPROCS workers,
// tiles/rows by paired runs; rows where rowsPays says so for every
// branch.
func BenchmarkConvBackwardRowsBlocks(b *testing.B) {
	defer func(n bool) { rowsNever = n }(rowsNever)
	for _, bl := range []struct {
		name string
		cin  int
		brs  [][2]int // kernel, output channels
	}{
		{"rna_block1", 31, [][2]int{{9, 8}, {5, 8}, {3, 4}}},
		{"rna_block2", 20, [][2]int{{5, 8}, {3, 8}}},
		{"rna_block3", 16, [][2]int{{3, 8}}},
		{"protein_block1", 86, [][2]int{{7, 8}, {5, 8}, {3, 8}}},
		{"protein_block2", 24, [][2]int{{5, 8}, {3, 8}}},
		{"protein_block3", 16, [][2]int{{3, 8}}},
		{"protein_head", 8, [][2]int{{3, 8}}},
	} {
		b.Run(bl.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var gs []ConvGeom
			var dys, ws, dws, dbs [][]float32
			for _, br := range bl.brs {
				g := ConvGeom{B: 10, H: 64, W: 64, Cin: bl.cin, Cout: br[1], K: br[0]}
				gs = append(gs, g)
				dys = append(dys, randSlice(g.B*g.Pixels()*br[1], rng))
				ws = append(ws, randSlice(br[0]*br[0]*bl.cin*br[1], rng))
				dws, dbs = append(dws, make([]float32, len(ws[len(ws)-1]))), append(dbs, make([]float32, br[1]))
			}
			x := randSlice(gs[0].B*gs[0].Pixels()*bl.cin, rng)
			dx := make([]float32, len(x))
			run := func(rows bool) float64 {
				rowsNever = !rows
				s := time.Now()
				ConvBackwardBranches(gs, dx, dws, dbs, x, dys, ws)
				return time.Since(s).Seconds()
			}
			pairedRatio(b, "tiles/rows", run)
		})
	}
}

// pairedRatio runs b.N iterations of old, new, new, old (run(false),
// run(true); each returns its seconds) after one of each, and reports
// the median of the paired ratios old/new as unit: single runs on this
// project's hosts vary by 30%, neighbouring runs much less.
func pairedRatio(b *testing.B, unit string, run func(newer bool) float64) {
	run(false)
	run(true)
	var ratios []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o0, n0 := run(false), run(true)
		n1, o1 := run(true), run(false)
		ratios = append(ratios, o0/n0, o1/n1)
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], unit)
}

// BenchmarkConvBackwardTile times ConvBackward with backwardTile's tiles
// at an aim of 256, 512 (the default) and 768 KB of dy's im2col a tile
// and with the aim of sessions up to 27 (4M floats: 1,024 pixels for all
// these layers), alternately, on the layers of make bench's conv tables
// (batch 10 of 100 x 100 maps; packed: spConvs, their kernel pairs folded
// where FoldsPairs says so), GOMAXPROCS workers, and reports per aim the
// median of the paired ratios, old/new (above 1: the smaller tiles
// faster), and the tile. Layers whose tiles an aim does not change (the
// pixels/tile metric reads 1,024) read 1 within noise. Run with
// -benchtime 15x or more.
func BenchmarkConvBackwardTile(b *testing.B) {
	defer func(f int) { backwardTileFloats = f }(backwardTileFloats)
	for _, sh := range [][3]int{{9, 31, 8}, {5, 31, 8}, {7, 86, 8}, {3, 86, 8}, {3, 16, 8}, {3, 64, 64}, {5, 64, 64}} {
		for _, packed := range []bool{true, false} {
			g := ConvGeom{Packed: packed, SymKernel: packed, B: 10, H: 100, W: 100, Cin: sh[1], Cout: sh[2], K: sh[0]}
			if useRows([]ConvGeom{g}) {
				continue // by kernel rows: no tiles
			}
			rng := rand.New(rand.NewPCG(1, 2))
			np := g.Pixels()
			x, dy := randSlice(g.B*np*g.Cin, rng), randSlice(g.B*np*g.Cout, rng)
			w := symKernel(g.K, g.Cin, g.Cout, rng)
			dx, dw, db := make([]float32, len(x)), make([]float32, len(w)), make([]float32, g.Cout)
			for _, aim := range []int{1 << 16, 1 << 17, 3 << 16} {
				name := fmt.Sprintf("k%d_%dx%d/packed=%v/aim=%dKB", sh[0], sh[1], sh[2], packed, aim>>8)
				b.Run(name, func(b *testing.B) {
					pairedRatio(b, "old/new", func(newer bool) float64 {
						backwardTileFloats = tileFloatsOld
						if newer {
							backwardTileFloats = aim
						}
						s := time.Now()
						ConvBackward(g, dx, dw, db, x, dy, w)
						return time.Since(s).Seconds()
					})
					backwardTileFloats = aim
					b.ReportMetric(float64(g.backwardTile(len(g.dyPositions())*g.Cout)), "pixels/tile")
				})
			}
		}
	}
}
