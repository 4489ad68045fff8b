package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// directKernels are the direct micro-kernels to test: every kernel set's
// and the portable one.
func directKernels() map[string]directKernel {
	ks := map[string]directKernel{"go": directGo}
	for _, s := range kernelSets {
		if s.direct != nil {
			ks[s.name] = s.direct
		}
	}
	return ks
}

// Every direct micro-kernel computes the loop directKernel documents (in
// float64 here), for each vector count, and writes nothing outside acc.
func TestDirectKernelMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for name, dk := range directKernels() {
		for nv := 1; nv <= directMaxNV; nv++ {
			for _, ck := range [][2]int{{1, 1}, {3, 3}, {31, 9}, {8, 5}, {20, 3}} {
				cin, k := ck[0], ck[1]
				t.Run(fmt.Sprintf("%s/nv%d/cin%d/k%d", name, nv, cin, k), func(t *testing.T) {
					n := nv * directV
					ldx := n + k - 1 + 5
					x := randSlice((cin-1)*ldx+k-1+n, rng)
					w := randSlice(cin*k*directF, rng)
					acc0 := randSlice(directF*n+8, rng)
					acc := append([]float32(nil), acc0...)
					dk(nv, acc[:directF*n], x, ldx, w, cin, k)
					for f := 0; f < directF; f++ {
						for j := 0; j < n; j++ {
							s := float64(acc0[f*n+j])
							for c := 0; c < cin; c++ {
								for b := 0; b < k; b++ {
									s += float64(w[(c*k+b)*directF+f]) * float64(x[c*ldx+b+j])
								}
							}
							if d := math.Abs(s - float64(acc[f*n+j])); d > 1e-4*(1+math.Abs(s)) {
								t.Fatalf("acc[%d][%d] = %g, want %g", f, j, acc[f*n+j], s)
							}
						}
					}
					for i := directF * n; i < len(acc); i++ {
						if acc[i] != acc0[i] {
							t.Fatalf("wrote acc[%d] beyond the block", i)
						}
					}
				})
			}
		}
	}
}

// withDirect runs f with the direct method forced on every kernel set
// whose direct pass runs its own code: the set's micro-kernels, or the
// portable ones. A set with none of its own (avx2) would run the portable
// set's code exactly, so it runs only under CONTACTMAP_EXHAUSTIVE.
func withDirect(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	defer func(old bool) { forceDirect = old }(forceDirect)
	forceDirect = true
	old := activeSet.Load()
	defer activeSet.Store(old)
	for i, s := range kernelSets {
		if !exhaustive() && slices.ContainsFunc(kernelSets[i+1:], func(o *kernelSet) bool { return directCode(o) == directCode(s) }) {
			t.Logf("%s: skipped, its direct pass runs a later set's code", s.name)
			continue
		}
		activeSet.Store(s)
		t.Run(s.name, f)
	}
}

// directCode identifies the code the direct forward pass runs on kernel
// set s: its micro-kernels, row gathering and accumulator loads and
// stores (0: the portable one).
func directCode(s *kernelSet) [5]uintptr {
	return [5]uintptr{reflect.ValueOf(s.direct).Pointer(), reflect.ValueOf(s.directPair).Pointer(),
		reflect.ValueOf(s.gatherRows).Pointer(), reflect.ValueOf(s.storeAcc8).Pointer(), reflect.ValueOf(s.accInit8).Pointer()}
}

// The direct forward pass equals the loop ConvForward documents, dense
// and packed, for narrow and wider layers, several vector blocks per
// row and their tails, bias or none, writing only its channels of a
// wider output; and its bits do not depend on the worker count. Each
// case's inputs and reference are drawn once, for every kernel set.
func TestConvForwardDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	type directCase struct {
		wt, bias, x []float32
		want        [][]float32 // per sample, dense l x l x cout
	}
	cases := map[string]*directCase{}
	withDirect(t, func(t *testing.T) {
		for _, ch := range [][2]int{{31, 8}, {5, 4}, {3, 13}, {8, 31}, {16, 8}, {86, 16}} {
			cin, cout := ch[0], ch[1]
			for _, k := range []int{3, 5, 9} {
				for _, l := range []int{1, 2, 5, 40, 100} { // 100: three 48-pixel blocks per row
					if l == 100 && (cin*cout > 128 || k > 5) {
						continue // the naive reference would take minutes
					}
					if l == 40 && cin*cout > 1024 && k > 3 && !exhaustive() {
						// The 86 -> 16 layers at 40 x 40 and k >= 5: the
						// 3 x 3 one and the other layers' 5 x 5 and 9 x 9
						// take the same code, in a tenth of the time.
						continue
					}
					for _, mode := range []string{"dense", "packed", "packed-sym"} {
						// packed-sym: an spConv (SymKernel), its position
						// pairs folded (directPairKernel).
						packed, sym := mode != "dense", mode == "packed-sym"
						name := fmt.Sprintf("%dto%d/k%d/L%d/%s", cin, cout, k, l, mode)
						t.Run(name, func(t *testing.T) {
							const b, off, extra = 3, 2, 3
							g := ConvGeom{Packed: packed, B: b, H: l, W: l, Cin: cin, Cout: cout, K: k, Workers: 2, SymKernel: sym}
							if !g.UseDirect() {
								t.Fatal("the direct method is not in use")
							}
							np := g.Pixels()
							c := cases[name]
							if c == nil {
								c = &directCase{wt: symKernel(k, cin, cout, rng)}
								if cout != 13 {
									c.bias = randSlice(cout, rng)
								}
								c.x = randSlice(b*np*cin, rng)
								bz := c.bias
								if bz == nil {
									bz = make([]float32, cout)
								}
								for s := 0; s < b; s++ {
									xd := c.x[s*np*cin : (s+1)*np*cin]
									if packed {
										xd = make([]float32, l*l*cin)
										Unpack(xd, c.x[s*np*cin:(s+1)*np*cin], l, cin)
									}
									c.want = append(c.want, naiveConv(xd, c.wt, bz, l, l, cin, cout, k))
								}
								cases[name] = c
							}
							wt, bias, x := c.wt, c.bias, c.x
							ldo := cout + off + extra
							run := func(workers int) []float32 {
								out := make([]float32, b*np*ldo)
								for i := range out {
									out[i] = 99
								}
								g.Workers = workers
								ConvForwardStrided(g, out, ldo, off, x, wt, bias)
								return out
							}
							out := run(2)
							// Float32 sums of n = k*k*cin products of
							// standard normals: rounding errors grow about
							// as 6e-8 n; a wrong tap or channel moves a
							// value by O(1).
							tol := 3e-7 * float64(k*k*cin)
							for s := 0; s < b; s++ {
								want := c.want[s]
								for p := 0; p < np; p++ {
									i, j := p/l, p%l
									if packed {
										i, j = TriPos(l, p)
									}
									row := out[(s*np+p)*ldo : (s*np+p+1)*ldo]
									for f := 0; f < ldo; f++ {
										got := row[f]
										if f < off || f >= off+cout {
											if got != 99 {
												t.Fatalf("sample %d pixel (%d,%d): channel %d outside the layer's written", s, i, j, f)
											}
											continue
										}
										w := want[(i*l+j)*cout+f-off]
										if math.Abs(float64(got-w)) > tol {
											t.Fatalf("sample %d pixel (%d,%d) channel %d: %g, want %g", s, i, j, f-off, got, w)
										}
									}
								}
							}
							for _, workers := range []int{1, 3} {
								if d := maxDiff(run(workers), out); d != 0 {
									t.Fatalf("%d workers: results differ from 2 workers' by %g", workers, d)
								}
							}
						})
					}
				}
			}
		}
	})
}

// Branches that all take the direct method share its row buffers, each
// reading from its offset in the largest kernel's window: the RNA
// networks' blocks against the naive loop of each branch, with and
// without bias.
func TestConvForwardBranchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 25))
	withDirect(t, func(t *testing.T) {
		for _, bc := range []struct {
			cin       int
			ks, couts []int
		}{{31, []int{9, 5, 3}, []int{8, 8, 4}}, {20, []int{5, 3}, []int{8, 11}}} {
			for _, l := range []int{7, 37, 49} { // 49: a second 48-pixel block
				for _, mode := range []string{"dense", "packed", "packed-sym"} {
					packed, sym := mode != "dense", mode == "packed-sym"
					t.Run(fmt.Sprintf("cin%d/%v/L%d/%s", bc.cin, bc.ks, l, mode), func(t *testing.T) {
						const b = 2
						cin := bc.cin
						g := ConvGeom{Packed: packed, B: b, H: l, W: l, Cin: cin, Workers: 2, SymKernel: sym}
						if !g.branchesDirect(bc.ks, bc.couts) {
							t.Fatal("the branches do not take the direct method")
						}
						np := g.Pixels()
						x := randSlice(b*np*cin, rng)
						var ws, bs [][]float32
						ctot := 0
						for i, k := range bc.ks {
							ws = append(ws, symKernel(k, cin, bc.couts[i], rng))
							if i == 1 {
								bs = append(bs, nil)
							} else {
								bs = append(bs, randSlice(bc.couts[i], rng))
							}
							ctot += bc.couts[i]
						}
						out := make([]float32, b*np*ctot)
						ConvForwardBranches(g, bc.ks, bc.couts, out, x, ws, bs)
						for s := 0; s < b; s++ {
							xd := x[s*np*cin : (s+1)*np*cin]
							if packed {
								xd = make([]float32, l*l*cin)
								Unpack(xd, x[s*np*cin:(s+1)*np*cin], l, cin)
							}
							off := 0
							for i, k := range bc.ks {
								cout := bc.couts[i]
								bias := bs[i]
								if bias == nil {
									bias = make([]float32, cout)
								}
								want := naiveConv(xd, ws[i], bias, l, l, cin, cout, k)
								for p := 0; p < np; p++ {
									i0, j0 := p/l, p%l
									if packed {
										i0, j0 = TriPos(l, p)
									}
									got := out[(s*np+p)*ctot+off : (s*np+p)*ctot+off+cout]
									for f, w := range want[(i0*l+j0)*cout : (i0*l+j0+1)*cout] {
										if math.Abs(float64(got[f]-w)) > 3e-7*float64(k*k*cin) { // as in TestConvForwardDirect
											t.Fatalf("sample %d branch %d (k=%d) pixel (%d,%d) channel %d: %g, want %g", s, i, k, i0, j0, f, got[f], w)
										}
									}
								}
								off += cout
							}
						}
						for _, workers := range []int{1, 3} {
							g.Workers = workers
							again := make([]float32, len(out))
							ConvForwardBranches(g, bc.ks, bc.couts, again, x, ws, bs)
							if d := maxDiff(again, out); d != 0 {
								t.Fatalf("%d workers: results differ from 2 workers' by %g", workers, d)
							}
						}
					})
				}
			}
		}
	})
}

// UseDirect's rule without forcing: the narrow layers of at least a
// vector's width, on a kernel set with the micro-kernel (pairnet's memory
// estimate relies on it through scnn.DirectConv).
func TestUseDirectRule(t *testing.T) {
	has := activeSet.Load().direct != nil
	for _, tc := range []struct {
		k, cin, cout, w int
		want            bool
	}{
		{9, 31, 8, 128, true}, {3, 16, 8, 16, true}, {7, 86, 8, 100, true}, {3, 32, 16, 64, true},
		{3, 33, 16, 64, false}, // wide input, more than 8 outputs
		{3, 16, 17, 64, false}, // more than 16 outputs
		{3, 16, 8, 15, false},  // under a vector wide
		{1, 16, 8, 64, false},  // 1 x 1
		{17, 16, 8, 64, false}, // over directMaxK
	} {
		g := ConvGeom{B: 1, H: tc.w, W: tc.w, K: tc.k, Cin: tc.cin, Cout: tc.cout}
		if got := g.UseDirect(); got != (tc.want && has) {
			t.Errorf("k %d, %d -> %d, W %d: UseDirect %v, want %v (kernel set %s)", tc.k, tc.cin, tc.cout, tc.w, got, tc.want && has, activeSet.Load().name)
		}
	}
}

// TestForwardFoldsPairs: ForwardFoldsPairs says what ConvForward does. A
// folded pass sums each position pair's inputs before the multiply, so
// on random inputs its output differs in rounding from the unfolded
// pass's (directPairNever); an unfolded one is the same bits.
func TestForwardFoldsPairs(t *testing.T) {
	defer func(n bool) { directPairNever = n }(directPairNever)
	rng := rand.New(rand.NewPCG(3, 4))
	folded := 0
	for _, sh := range [][4]int{{3, 16, 8, 40}, {5, 31, 8, 40}, {9, 31, 8, 40}, {3, 8, 1, 40}, {5, 31, 8, 12}, {3, 64, 64, 40}, {1, 8, 8, 40}} {
		k, cin, cout, l := sh[0], sh[1], sh[2], sh[3]
		g := ConvGeom{Packed: true, SymKernel: true, B: 2, H: l, W: l, K: k, Cin: cin, Cout: cout, Workers: 1}
		x := randSlice(g.B*g.Pixels()*cin, rng)
		w := symKernel(k, cin, cout, rng)
		out := func(never bool) []float32 {
			directPairNever = never
			o := make([]float32, g.B*g.Pixels()*cout)
			ConvForward(g, o, x, w, nil)
			return o
		}
		plain, got := out(true), out(false)
		differ := false
		for i := range got {
			if got[i] != plain[i] {
				differ = true
				break
			}
		}
		if f := ForwardFoldsPairs(k, cin, cout, l); f != differ {
			t.Errorf("k %d, %d -> %d, L = %d: ForwardFoldsPairs %v, but the pass's bits differ from the unfolded pass's: %v", k, cin, cout, l, f, differ)
		} else if f {
			folded++
		}
	}
	if folded == 0 && directPairKernelOf() != nil {
		t.Error("no shape folded on a kernel set with the pair kernel")
	}
}
