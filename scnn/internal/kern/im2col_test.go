package kern

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Im2colPacked is the loop it documents, for 3, 8 and 16 channels, every
// kernel size up to 9, tiles starting anywhere: each value is x at TriSym
// of the shifted pixel, or 0 outside.
func TestIm2colPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 30))
	for _, c := range []int{8, 3, 16} {
		for _, k := range []int{1, 3, 5, 9} {
			for _, l := range []int{1, 4, 13} {
				t.Run(fmt.Sprintf("c%d/k%d/L%d", c, k, l), func(t *testing.T) {
					np := TriSize(l)
					x := randSlice(np*c, rng)
					pad, kk := k/2, k*k*c
					for _, tile := range [][2]int{{0, np}, {np / 3, np - np/3}} {
						pix0, n := tile[0], tile[1]
						col := randSlice(n*kk, rng) // stale values must be overwritten
						Im2colPacked(col, x, l, c, k, pix0, n)
						for r := 0; r < n; r++ {
							i, j := TriPos(l, pix0+r)
							for a := 0; a < k; a++ {
								for b := 0; b < k; b++ {
									p, q := i+a-pad, j+b-pad
									for ch := 0; ch < c; ch++ {
										want := float32(0)
										if p >= 0 && p < l && q >= 0 && q < l {
											want = x[TriSym(l, p, q)*c+ch]
										}
										if got := col[r*kk+(a*k+b)*c+ch]; got != want {
											t.Fatalf("pixel (%d,%d) tap (%d,%d) channel %d: %g, want %g", i, j, a, b, ch, got, want)
										}
									}
								}
							}
						}
					}
				})
			}
		}
	}
}
