package kern

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

func randSlice(n int, rng *rand.Rand) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// naiveConv is the loop ConvForward documents, on one dense H x W map:
// each output a float64 sum over a, b, c in that order. (The output
// channels run innermost, over contiguous weights: the same sums, in the
// same order, as a loop over f outside a, b, c, a few times faster.)
func naiveConv(x, w, bias []float32, h, wd, cin, cout, k int) []float32 {
	pad := k / 2
	out := make([]float32, h*wd*cout)
	s := make([]float64, cout)
	for i := 0; i < h; i++ {
		for j := 0; j < wd; j++ {
			for f := range s {
				s[f] = float64(bias[f])
			}
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					p, q := i+a-pad, j+b-pad
					if p < 0 || p >= h || q < 0 || q >= wd {
						continue
					}
					xs := x[(p*wd+q)*cin:][:cin]
					for c, xv := range xs {
						ws := w[((a*k+b)*cin+c)*cout:][:cout]
						for f, wv := range ws {
							s[f] += float64(xv) * float64(wv)
						}
					}
				}
			}
			o := out[(i*wd+j)*cout:][:cout]
			for f := range o {
				o[f] = float32(s[f])
			}
		}
	}
	return out
}

// exhaustive reports whether CONTACTMAP_EXHAUSTIVE is set (make
// test-exhaustive): the heavy kernel tests then run their full sweeps,
// every shape on every kernel set, instead of the representative shapes
// that reach the same code (minutes, against seconds).
func exhaustive() bool {
	return os.Getenv("CONTACTMAP_EXHAUSTIVE") != ""
}

func maxDiff(a, b []float32) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

func TestConvForwardDenseMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, k := range []int{1, 3, 5, 15} {
		const b, h, w, cin, cout = 3, 9, 7, 3, 4
		x := randSlice(b*h*w*cin, rng)
		wt := randSlice(k*k*cin*cout, rng)
		bias := randSlice(cout, rng)
		out := make([]float32, b*h*w*cout)
		// A small tile forces several tiles per sample.
		g := ConvGeom{B: b, H: h, W: w, Cin: cin, Cout: cout, K: k, Workers: 3, TilePixels: 10}
		ConvForward(g, out, x, wt, bias)
		for s := 0; s < b; s++ {
			want := naiveConv(x[s*h*w*cin:(s+1)*h*w*cin], wt, bias, h, w, cin, cout, k)
			if d := maxDiff(out[s*h*w*cout:(s+1)*h*w*cout], want); d > 1e-4 {
				t.Errorf("k=%d sample %d: max diff %g", k, s, d)
			}
		}
	}
}

func TestConvForwardPackedMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, k := range []int{1, 3, 7, 15} {
		const b, l, cin, cout = 2, 10, 3, 2
		np := TriSize(l)
		xp := randSlice(b*np*cin, rng)
		wt := symKernel(k, cin, cout, rng) // spatially symmetric
		bias := randSlice(cout, rng)
		out := make([]float32, b*np*cout)
		ConvForward(ConvGeom{Packed: true, B: b, H: l, W: l, Cin: cin, Cout: cout, K: k, Workers: 2, TilePixels: 7}, out, xp, wt, bias)
		for s := 0; s < b; s++ {
			xd := make([]float32, l*l*cin)
			Unpack(xd, xp[s*np*cin:(s+1)*np*cin], l, cin)
			want := naiveConv(xd, wt, bias, l, l, cin, cout, k)
			got := make([]float32, l*l*cout)
			Unpack(got, out[s*np*cout:(s+1)*np*cout], l, cout)
			if d := maxDiff(got, want); d > 1e-4 {
				t.Errorf("k=%d sample %d: max diff %g", k, s, d)
			}
		}
	}
}

// The weight gradient does not depend on tiling or the worker count beyond
// float32 rounding, and is bit-identical for a repeated worker count.
func TestConvWeightGradDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const b, l, cin, cout, k = 4, 12, 3, 5, 3
	x := randSlice(b*TriSize(l)*cin, rng)
	dy := randSlice(b*TriSize(l)*cout, rng)
	run := func(workers, tile int) []float32 {
		dw := make([]float32, k*k*cin*cout)
		ConvWeightGrad(ConvGeom{Packed: true, B: b, H: l, W: l, Cin: cin, Cout: cout, K: k, Workers: workers, TilePixels: tile}, dw, nil, x, dy)
		return dw
	}
	a, a2, c := run(2, 16), run(2, 16), run(1, 1000)
	if maxDiff(a, a2) != 0 {
		t.Error("same worker count, different result")
	}
	if d := maxDiff(a, c); d > 1e-4 {
		t.Errorf("tiling changed the result by %g", d)
	}
}

func TestTriIndexing(t *testing.T) {
	for _, l := range []int{1, 2, 5, 17} {
		p := 0
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				if Tri(l, i, j) != p || TriSym(l, j, i) != p {
					t.Fatalf("L=%d (%d,%d): Tri %d, want %d", l, i, j, Tri(l, i, j), p)
				}
				if a, b := TriPos(l, p); a != i || b != j {
					t.Fatalf("L=%d TriPos(%d) = (%d,%d)", l, p, a, b)
				}
				p++
			}
		}
		if p != TriSize(l) {
			t.Fatalf("TriSize(%d) = %d, want %d", l, TriSize(l), p)
		}
	}
}

func TestFlipKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const k, cin, cout = 3, 2, 3
	w := randSlice(k*k*cin*cout, rng)
	f := make([]float32, len(w))
	FlipKernel(f, w, k, cin, cout)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			for c := 0; c < cin; c++ {
				for o := 0; o < cout; o++ {
					if f[((a*k+b)*cout+o)*cin+c] != w[(((k-1-a)*k+k-1-b)*cin+c)*cout+o] {
						t.Fatal("flip mismatch")
					}
				}
			}
		}
	}
}

// Branches sharing one im2col give what separate convolutions give,
// dense and packed (symmetric kernels), kernel sizes in any order.
func TestConvForwardBranches(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const b, l, cin = 2, 9, 3
	ks, couts := []int{5, 1, 3, 5}, []int{2, 3, 1, 2}
	for _, packed := range []bool{false, true} {
		g := ConvGeom{Packed: packed, B: b, H: l, W: l, Cin: cin, Workers: 2, TilePixels: 11}
		np := g.Pixels()
		x := randSlice(b*np*cin, rng)
		var ws, bs [][]float32
		ctot := 0
		for i, k := range ks {
			ws = append(ws, symKernel(k, cin, couts[i], rng))
			if i == 2 {
				bs = append(bs, nil)
			} else {
				bs = append(bs, randSlice(couts[i], rng))
			}
			ctot += couts[i]
		}
		out := make([]float32, b*np*ctot)
		ConvForwardBranches(g, ks, couts, out, x, ws, bs)
		off := 0
		for i, k := range ks {
			gb := g
			gb.K, gb.Cout = k, couts[i]
			want := make([]float32, b*np*couts[i])
			ConvForward(gb, want, x, ws[i], bs[i])
			for p := 0; p < b*np; p++ {
				got := out[p*ctot+off : p*ctot+off+couts[i]]
				if d := maxDiff(got, want[p*couts[i]:(p+1)*couts[i]]); d > 1e-4 {
					t.Fatalf("packed=%v branch %d (k=%d) pixel %d: max diff %g", packed, i, k, p, d)
				}
			}
			off += couts[i]
		}
	}
}

// Unpack writes every pixel of the full map from the triangle's pixel
// (i, j) or (j, i), on every kernel set, for sizes 1-9 and 1-17 channels,
// and Pack of the result gives the triangle back.
func TestUnpack(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	withKernels(t, func(t *testing.T) {
		for l := 1; l <= 9; l++ {
			for c := 1; c <= 17; c += 4 {
				src := randSlice(TriSize(l)*c, rng)
				dst := make([]float32, l*l*c)
				Unpack(dst, src, l, c)
				for i := 0; i < l; i++ {
					for j := 0; j < l; j++ {
						for f := 0; f < c; f++ {
							if got, want := dst[(i*l+j)*c+f], src[TriSym(l, i, j)*c+f]; got != want {
								t.Fatalf("l %d c %d: (%d,%d,%d) = %v, want %v", l, c, i, j, f, got, want)
							}
						}
					}
				}
				back := make([]float32, len(src))
				Pack(back, dst, l, c)
				for i := range src {
					if back[i] != src[i] {
						t.Fatalf("l %d c %d: Pack(Unpack)[%d] = %v, want %v", l, c, i, back[i], src[i])
					}
				}
			}
		}
	})
}
