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
