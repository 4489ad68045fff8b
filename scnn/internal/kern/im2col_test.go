package kern

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// forKernelSets runs f under every kernel set this CPU and build have,
// and restores the best one.
func forKernelSets(t *testing.T, f func(t *testing.T)) {
	defer SetKernels("")
	for _, name := range KernelSets() {
		if err := SetKernels(name); err != nil {
			t.Fatal(err)
		}
		t.Run(name, f)
	}
}

// Every kernel set's CopyRuns is the loop it documents, for runs that end
// on and off a 16-float block, and writes nothing between the runs or
// after the last.
func TestCopyRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	forKernelSets(t, func(t *testing.T) {
		for _, run := range []int{1, 3, 12, 15, 16, 17, 24, 31, 32, 33, 72, 81} {
			for _, count := range []int{1, 2, 7} {
				for _, strides := range [][2]int{{run, run}, {run + 5, 3}, {2*run + 1, run + 16}} {
					ds, ss := strides[0], strides[1]
					src := randSlice((count-1)*ss+run, rng)
					dst0 := randSlice((count-1)*ds+run+20, rng)
					dst := append([]float32(nil), dst0...)
					CopyRuns(dst, src, run, count, ds, ss)
					want := append([]float32(nil), dst0...)
					for i := 0; i < count; i++ {
						copy(want[i*ds:i*ds+run], src[i*ss:i*ss+run])
					}
					for e := range want {
						if dst[e] != want[e] {
							t.Fatalf("run %d count %d strides %d,%d: dst[%d] = %g, want %g", run, count, ds, ss, e, dst[e], want[e])
						}
					}
				}
			}
		}
	})
}

// Im2colDense is the loop it documents, on maps that are not square, with
// tiles starting anywhere (interior runs cut by the tile or the map's
// edge), for every kernel size up to 9, on every kernel set.
func TestIm2colDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	forKernelSets(t, func(t *testing.T) {
		for _, c := range []int{8, 3, 16, 20} {
			for _, k := range []int{1, 3, 5, 9} {
				for _, hw := range [][2]int{{1, 1}, {4, 7}, {13, 5}, {6, 17}} {
					h, w := hw[0], hw[1]
					np := h * w
					x := randSlice(np*c, rng)
					pad, kk := k/2, k*k*c
					for _, tile := range [][2]int{{0, np}, {np / 3, np - np/3}, {np - 1, 1}, {w / 2, min(np-w/2, w+3)}} {
						pix0, n := tile[0], tile[1]
						col := randSlice(n*kk, rng) // stale values must be overwritten
						Im2colDense(col, x, h, w, c, k, pix0, n)
						for r := 0; r < n; r++ {
							i, j := (pix0+r)/w, (pix0+r)%w
							for a := 0; a < k; a++ {
								for b := 0; b < k; b++ {
									p, q := i+a-pad, j+b-pad
									for ch := 0; ch < c; ch++ {
										want := float32(0)
										if p >= 0 && p < h && q >= 0 && q < w {
											want = x[(p*w+q)*c+ch]
										}
										if got := col[r*kk+(a*k+b)*c+ch]; got != want {
											t.Fatalf("c%d k%d %dx%d tile %v: pixel (%d,%d) tap (%d,%d) channel %d: %g, want %g", c, k, h, w, tile, i, j, a, b, ch, got, want)
										}
									}
								}
							}
						}
					}
				}
			}
		}
	})
}

// Im2colPacked is the loop it documents, for 3, 8 and 16 channels, every
// kernel size up to 9, tiles starting anywhere: each value is x at TriSym
// of the shifted pixel, or 0 outside.
func TestIm2colPacked(t *testing.T) {
	forKernelSets(t, testIm2colPacked)
}

func testIm2colPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 30))
	for _, c := range []int{8, 3, 16, 20} {
		for _, k := range []int{1, 3, 5, 9} {
			for _, l := range []int{1, 4, 13, 20} {
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
