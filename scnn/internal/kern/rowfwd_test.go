package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestConvForwardRows checks the forward pass by kernel rows against the
// im2col method: dense and packed maps, one to three branches of
// different kernels, with and without biases, maps narrower than the
// kernel and taller than one product's rows, 1 and 3 workers, every
// kernel set; and ConvForwardStrided into a wider map. The heavy shape
// (three branches up to 13 x 13 of 54 channels: a minute on the portable
// kernels) runs two of the option combinations, which take each option's
// values once, and all eight under CONTACTMAP_EXHAUSTIVE.
func TestConvForwardRows(t *testing.T) {
	if backend != "go" {
		t.Skip("the row methods run on the Go kernels only")
	}
	rng := rand.New(rand.NewPCG(20, 21))
	defer func(a, n bool) { fwdRowsAlways, fwdRowsNever = a, n }(fwdRowsAlways, fwdRowsNever)
	withKernels(t, func(t *testing.T) {
		for _, sh := range []struct {
			l, cin int
			ks     []int
			couts  []int
			heavy  bool
		}{
			{19, 40, []int{3}, []int{40}, false},
			{23, 12, []int{9, 5, 1}, []int{20, 17, 3}, false},
			{3, 5, []int{5, 3}, []int{33, 2}, false},
			{300, 3, []int{3}, []int{18}, false},
			{30, 54, []int{13, 9, 5}, []int{54, 54, 54}, true},
		} {
			for _, packed := range []bool{false, true} {
				for _, workers := range []int{1, 3} {
					for _, bias := range []bool{false, true} {
						if sh.heavy && !exhaustive() && (packed != (workers == 3) || bias != packed) {
							continue // dense, 1 worker, no bias; packed, 3 workers, bias
						}
						name := fmt.Sprintf("l%d/cin%d/k%v/packed=%v/workers%d/bias=%v", sh.l, sh.cin, sh.ks, packed, workers, bias)
						t.Run(name, func(t *testing.T) {
							g := ConvGeom{Packed: packed, B: 2, H: sh.l, W: sh.l, Cin: sh.cin, Workers: workers}
							var ws, bs [][]float32
							ctot := 0
							for i, k := range sh.ks {
								ws = append(ws, randSlice(k*k*sh.cin*sh.couts[i], rng))
								var b []float32
								if bias {
									b = randSlice(sh.couts[i], rng)
								}
								bs = append(bs, b)
								ctot += sh.couts[i]
							}
							x := randSlice(g.B*g.Pixels()*sh.cin, rng)
							run := func(rows bool) []float32 {
								fwdRowsAlways, fwdRowsNever = rows, !rows
								out := make([]float32, g.B*g.Pixels()*ctot)
								ConvForwardBranches(g, sh.ks, sh.couts, out, x, ws, bs)
								return out
							}
							if g.branchesDirect(sh.ks, sh.couts) {
								t.Fatal("the branches take the direct method: nothing compared")
							}
							got, want := run(true), run(false)
							closeTo(t, "out", got, want)
							// One branch into channels [off, off+cout) of a
							// wider map, the others untouched.
							gb := g
							gb.K, gb.Cout = sh.ks[0], sh.couts[0]
							const off, extra = 2, 3
							ldo := off + gb.Cout + extra
							for _, rows := range []bool{true, false} {
								fwdRowsAlways, fwdRowsNever = rows, !rows
								if rows && (!useFwdRows(gb) || gb.UseDirect() || gb.UseOutputSide()) {
									t.Fatal("ConvForwardStrided would not go by rows")
								}
								wide := make([]float32, g.B*g.Pixels()*ldo)
								for i := range wide {
									wide[i] = -7
								}
								ConvForwardStrided(gb, wide, ldo, off, x, ws[0], bs[0])
								one := make([]float32, g.B*g.Pixels()*gb.Cout)
								ConvForward(gb, one, x, ws[0], bs[0])
								for p := 0; p < g.B*g.Pixels(); p++ {
									for c := 0; c < ldo; c++ {
										v := wide[p*ldo+c]
										if c < off || c >= off+gb.Cout {
											if v != -7 {
												t.Fatalf("rows=%v: pixel %d channel %d outside the branch written: %v", rows, p, c, v)
											}
										} else if v != one[p*gb.Cout+c-off] {
											t.Fatalf("rows=%v: pixel %d channel %d = %v, ConvForward %v", rows, p, c, v, one[p*gb.Cout+c-off])
										}
									}
								}
							}
						})
					}
				}
			}
		}
	})
}

// closeTo fails t where got and want differ by more than 1e-5 of want's
// largest magnitude, or got has a NaN.
func closeTo(t *testing.T, what string, got, want []float32) {
	t.Helper()
	scale := 0.0
	for _, v := range want {
		scale = max(scale, math.Abs(float64(v)))
	}
	for j := range got {
		if d := math.Abs(float64(got[j] - want[j])); d > 1e-5*scale || math.IsNaN(float64(got[j])) {
			t.Fatalf("%s[%d] = %v, want %v (scale %v)", what, j, got[j], want[j], scale)
		}
	}
}

// BenchmarkConvForwardRows times the forward pass by im2col tiles and by
// kernel rows, alternately (im2col, rows, rows, im2col per iteration),
// on the layers that take neither the direct nor the output-side method,
// and reports the median of the paired ratios, im2col/rows (above 1:
// rows faster). Batch 1 of L x L maps, dense and packed, two workers.
func BenchmarkConvForwardRows(b *testing.B) {
	defer func(a, n bool) { fwdRowsAlways, fwdRowsNever = a, n }(fwdRowsAlways, fwdRowsNever)
	for _, sh := range []struct {
		l, cin int
		ks     []int
		couts  []int
	}{
		{100, 64, []int{3}, []int{64}},
		{100, 64, []int{5}, []int{64}},
		{100, 54, []int{9, 5}, []int{54, 54}},
		{100, 108, []int{5}, []int{54}},
		{100, 54, []int{5}, []int{54}},
		{300, 54, []int{9, 5}, []int{54, 54}},
		{100, 16, []int{3}, []int{32}},
		{100, 8, []int{7, 5, 3}, []int{24, 24, 24}},
		{64, 26, []int{5, 3}, []int{20, 20}},
		{32, 54, []int{9, 5}, []int{54, 54}},
		{16, 54, []int{13, 9, 5}, []int{54, 54, 54}},
		{24, 64, []int{5}, []int{64}},
		{12, 64, []int{3}, []int{64}},
	} {
		for _, packed := range []bool{false, true} {
			b.Run(fmt.Sprintf("L%d_%dx%v_k%v/packed=%v", sh.l, sh.cin, sh.couts, sh.ks, packed), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				g := ConvGeom{Packed: packed, B: 1, H: sh.l, W: sh.l, Cin: sh.cin}
				var ws, bs [][]float32
				ctot := 0
				for i, k := range sh.ks {
					ws = append(ws, randSlice(k*k*sh.cin*sh.couts[i], rng))
					bs = append(bs, randSlice(sh.couts[i], rng))
					ctot += sh.couts[i]
				}
				x := randSlice(g.Pixels()*sh.cin, rng)
				out := make([]float32, g.Pixels()*ctot)
				run := func(rows bool) float64 {
					fwdRowsAlways, fwdRowsNever = rows, !rows
					s := time.Now()
					ConvForwardBranches(g, sh.ks, sh.couts, out, x, ws, bs)
					return time.Since(s).Seconds()
				}
				pairedRatio(b, "im2col/rows", run)
			})
		}
	}
}
