package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// AddRuns gives the loop's bits on every kernel set, for runs around the
// 16-float blocks and strides with gaps (NaN, infinities and -0 among the
// values), and changes nothing between the runs.
func TestAddRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	withKernels(t, func(t *testing.T) {
		for _, run := range []int{1, 8, 15, 16, 17, 26, 33, 64} {
			for _, count := range []int{1, 3, 10} {
				t.Run(fmt.Sprintf("run%d/count%d", run, count), func(t *testing.T) {
					ds, ss := run+3, run+5
					src := make([]float32, count*ss)
					got := make([]float32, count*ds+2)
					for i := range src {
						src[i] = float32(rng.NormFloat64())
					}
					for i := range got {
						got[i] = float32(rng.NormFloat64())
					}
					src[0], got[1] = float32(math.NaN()), float32(math.Inf(-1))
					src[run-1], got[ds] = float32(math.Copysign(0, -1)), float32(math.Copysign(0, -1))
					want := append([]float32(nil), got...)
					AddRuns(got, src, run, count, ds, ss)
					addRunsGo(want, src, run, count, ds, ss)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("[%d] = %v, want %v", i, got[i], want[i])
						}
					}
				})
			}
		}
	})
}

// CartesianAdd gives the loop's bits on every kernel set (the float64
// sum rounded to float32 to nearest even, then added), for channel
// counts around the 8-wide blocks, values whose float64 sums round up,
// down and to ties, and changes nothing outside its pixels' channels.
func TestCartesianAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	withKernels(t, func(t *testing.T) {
		for _, cout := range []int{1, 4, 7, 8, 9, 16, 26} {
			for _, count := range []int{1, 5} {
				ldd := cout + 4
				row := make([]float64, cout)
				col := make([]float64, count*cout)
				for i := range row {
					row[i] = rng.NormFloat64()
				}
				for i := range col {
					col[i] = rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)-20))
				}
				// A tie: 1 + 2^-24 is halfway between two float32s.
				row[0], col[0] = 1, math.Pow(2, -24)
				got := make([]float32, (count-1)*ldd+cout+3)
				for i := range got {
					got[i] = float32(rng.NormFloat64())
				}
				got[0] = 0
				want := append([]float32(nil), got...)
				CartesianAdd(got, ldd, row, col, count, cout)
				cartesianAddGo(want, ldd, row, col, count, cout)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("cout %d count %d: [%d] = %v, want %v", cout, count, i, got[i], want[i])
					}
				}
			}
		}
	})
}

// packRows gives the loop's bits on every kernel set, for runs around the
// vectors of widths 16, 32 and 64 (the micro-kernels' panels) and the
// portable loop's other widths, and writes nothing past its rows.
func TestPackRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	withKernels(t, func(t *testing.T) {
		for _, width := range []int{4, 16, 32, 64} {
			for _, run := range []int{1, 8, 15, 16, 17, 26, 32, 33, 63, 64} {
				if run > width {
					continue
				}
				for _, count := range []int{1, 5} {
					ss := run + 7
					src := make([]float32, count*ss)
					for i := range src {
						src[i] = float32(rng.NormFloat64())
					}
					src[0] = float32(math.NaN())
					got, want := make([]float32, count*width+3), make([]float32, count*width+3)
					for i := range got {
						got[i], want[i] = -7.5, -7.5
					}
					packRows(got, src, run, count, width, ss)
					packRowsGo(want, src, run, count, width, ss)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("width %d run %d count %d: [%d] = %v, want %v", width, run, count, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
}

// The rows of OuterSum and RowSums give their loops' bits on every kernel
// set, for channel counts around the 16-float chunks (NaN and -0 among
// the values), and write nothing outside their pixels.
func TestOuterSumAndRowSumsRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	withKernels(t, func(t *testing.T) {
		for _, f := range []int{1, 5, 8, 15, 16, 17, 26, 40} {
			for _, cnt := range []int{1, 2, 9} {
				rnd := func(n int) []float32 {
					v := make([]float32, n)
					for i := range v {
						v[i] = float32(rng.NormFloat64())
					}
					return v
				}
				ai, aj, bias := rnd(f), rnd(cnt*f), rnd(f)
				aj[0], bias[f-1] = float32(math.NaN()), float32(math.Copysign(0, -1))
				got, want := rnd(cnt*f+3), make([]float32, cnt*f+3)
				copy(want, got)
				outerSumRow(got, ai, aj, bias, cnt, f)
				outerSumRowGo(want, ai, aj, bias, cnt, f)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("outerSumRow f %d cnt %d: [%d] = %v, want %v", f, cnt, i, got[i], want[i])
					}
				}
				y := rnd(cnt * f)
				got = rnd(cnt*f + 3)
				copy(want, got)
				rowSumsRow(got, y, cnt, f)
				rowSumsRowGo(want, y, cnt, f)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("rowSumsRow f %d cnt %d: [%d] = %v, want %v", f, cnt, i, got[i], want[i])
					}
				}
			}
		}
	})
}

// AddRuns with dstStride 0 sums the runs of src into one run in order,
// as the loop does, on every kernel set.
func TestAddRunsIntoOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	withKernels(t, func(t *testing.T) {
		for _, run := range []int{1, 8, 17, 31} {
			src := make([]float32, 9*run)
			for i := range src {
				src[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(30)-15)))
			}
			got, want := make([]float32, run), make([]float32, run)
			AddRuns(got, src, run, 9, 0, run)
			addRunsGo(want, src, run, 9, 0, run)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("run %d: [%d] = %v, want %v", run, i, got[i], want[i])
				}
			}
		}
	})
}
