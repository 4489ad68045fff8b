package kern

// Direct convolution for narrow layers, vectorised over the pixels of an
// output row.
//
// The networks the project trains map a few dozen channels to 4-8 (the
// RNA blocks: 31 -> 8, 8, 4; the protein default: 86 -> 8). With so few
// output channels an im2col GEMM uses a quarter of each vector (N = 8
// against 32-64 columns per micro-kernel) and the output-side method
// writes and re-reads k*k*Cout values per pixel. Here the vector runs
// over 16 neighbouring output pixels of one row instead, so every lane
// does useful work whatever the channel counts.
//
// For output row i the k input rows p = i-pad..i+pad are copied channel
// by channel into row buffers (packed maps read (p, q) with q < p as
// (q, p)), zero outside the map:
//
//	R_p[c*ldr + pad + q] = x(p, q, c)   for 0 <= q < W, 0 elsewhere
//
// and a block of 16*nv output pixels j0.. and 8 output channels is
//
//	acc[f][j] = bias[f] + sum_{a<k, c<Cin, b<k} w[((a*k+b)*Cin + c)*Cout + f] * R_{i+a-pad}[c*ldr + j + b]
//
// summed in the order a, c, b. The micro-kernel (directKernel) holds acc
// in registers for one a and walks c and b; each input row is copied once
// per band of output rows (a ring of k buffers), so the copies cost Cin
// floats per pixel against k*k*Cin*Cout multiply-adds.
//
// Each output pixel is computed whole by one work item in a fixed order,
// so the results do not depend on the number of workers or on the bands.
// They do depend on the micro-kernel: the AVX-512 one fuses each
// multiply-add, the portable one rounds the product first, and both sum
// in another order than the im2col and output-side methods (agreement
// to float32 rounding, not bits).

// directF is the number of output channels of one micro-kernel call;
// directV the pixels of one vector.
const (
	directF = 8
	directV = 16
	// directMaxNV is the most vectors per output row of one call.
	directMaxNV = 3
)

// A directKernel computes, for f < 8, v < nv (1..3), l < 16:
//
//	acc[(f*nv+v)*16 + l] += sum_{c < cin, b < k} w[(c*k+b)*8 + f] * x[c*ldx + b + v*16 + l]
//
// summed over c, then b, in that order. x must hold (cin-1)*ldx + k-1 +
// nv*16 floats.
type directKernel func(nv int, acc, x []float32, ldx int, w []float32, cin, k int)

// directGo is the portable directKernel.
func directGo(nv int, acc, x []float32, ldx int, w []float32, cin, k int) {
	n := nv * directV
	acc = acc[:directF*n]
	for c := 0; c < cin; c++ {
		xc := x[c*ldx:]
		for b := 0; b < k; b++ {
			xb := xc[b : b+n]
			wb := w[(c*k+b)*directF : (c*k+b+1)*directF]
			for f, wv := range wb {
				a := acc[f*n : (f+1)*n]
				for j, xv := range xb {
					a[j] += wv * xv
				}
			}
		}
	}
}

// A directPairKernel computes kernel row a of a spatially symmetric
// kernel (w[(a,b)] = w[(b,a)]) on a symmetric map, each tap (a, b),
// b >= a, with its mirror (b, a) at once, on the sum of their inputs:
// for f < 8, v < nv (1..3), l < 16, over c, then j < nb = len(xbs),
//
//	acc[(f*nv+v)*16 + l] += w[(c*nb + j)*8 + f] * (xa[c*ldx + j + v*16 + l] + xbs[j][c*ldx + v*16 + l])
//
// xa must hold (cin-1)*ldx + nb-1 + nv*16 floats, each xbs[j]
// (cin-1)*ldx + nv*16.
type directPairKernel func(nv int, acc, xa []float32, xbs [][]float32, ldx int, w []float32, cin int)

// directPairGo is the portable directPairKernel.
func directPairGo(nv int, acc, xa []float32, xbs [][]float32, ldx int, w []float32, cin int) {
	n, nb := nv*directV, len(xbs)
	acc = acc[:directF*n]
	for c := 0; c < cin; c++ {
		for j, xb := range xbs {
			xs, ys := xa[c*ldx+j:c*ldx+j+n], xb[c*ldx:c*ldx+n]
			for f, wv := range w[(c*nb+j)*directF : (c*nb+j+1)*directF] {
				a := acc[f*n : (f+1)*n]
				for l := range a {
					a[l] += wv * (xs[l] + ys[l])
				}
			}
		}
	}
}

// directPairKernelOf returns the pair micro-kernel of the active set, or
// directGo's companion directPairGo where tests force the direct method on
// a set without one; nil where the set has none.
func directPairKernelOf() directPairKernel {
	if d := activeSet.Load().directPair; d != nil {
		return d
	}
	if forceDirect && activeSet.Load().direct == nil {
		return directPairGo
	}
	return nil
}

// directPairMinK is the smallest kernel whose position pairs the direct
// forward pass folds: every spConv's. BenchmarkConvForwardDirectPairs
// (paired, unfolded/folded, -benchtime 31x) read on an Intel Xeon
// 1.10-1.16x for 5x5 to 9x9 kernels to 8 channels, 1.07x for
// 5x5 8 -> 4 and 0.98-1.01x for the 3x3 ones, which kept them unfolded
// then; on an AMD EPYC (Zen 4: one 512-bit FMA a cycle, so the kernel
// waits on its multiply-adds more than on its loads; two
// runs) 1.23-1.59x from 5x5 and 1.04-1.16x for 3x3 (16 -> 8 1.06, 1.09;
// 86 -> 8 1.16, 1.12; 8 -> 1 1.04, 1.04). Neutral on the one, faster on
// the other: 3.
var directPairMinK = 3

// ForwardFoldsPairs reports whether ConvForward of an spConv (kernel k,
// cin -> cout channels, ConvGeom.SymKernel) on packed l x l maps computes
// its k(k+1)/2 position pairs instead of its k*k positions: where it
// takes the direct method (UseDirect) with the active kernel set's pair
// kernel, in float32 (not bfloat16), for k >= directPairMinK
// (convForwardDirectBranches). For counting what a pass executes.
func ForwardFoldsPairs(k, cin, cout, l int) bool {
	g := ConvGeom{Packed: true, SymKernel: true, B: 1, H: l, W: l, K: k, Cin: cin, Cout: cout}
	return k >= directPairMinK && g.UseDirect() && g.directFoldsPairs()
}

// directFoldsPairs reports whether the direct forward pass of g folds the
// position pairs of its branches of at least directPairMinK: an spConv
// on a packed map, in float32, with the active set's pair kernel.
func (g ConvGeom) directFoldsPairs() bool {
	return g.Packed && g.SymKernel && bf16Active.Load() == nil && directPairKernelOf() != nil && !directPairNever
}

// directPairNever keeps the direct forward pass from folding an spConv's
// position pairs (tests and benchmarks: the unfolded pass beside it).
var directPairNever bool

// forceDirect makes UseDirect true for every k > 1 layer with a kernel
// set's directKernel, or directGo for a set without one (tests).
var forceDirect bool

// directKernelOf returns the direct micro-kernel of the active set, or
// nil where it has none (and tests do not force one).
func directKernelOf() directKernel {
	if d := activeSet.Load().direct; d != nil {
		return d
	}
	if forceDirect {
		return directGo
	}
	return nil
}

// UseDirect reports whether ConvForward uses the direct method: for
// 1 < k <= 15 where the kernel set has a direct micro-kernel, on maps at
// least a vector (16 pixels) wide, one sample under 2^31 floats, and
// for narrow layers: at most 16
// output channels, and at most 32 input channels or at most 8 output
// channels. (The shapes of the networks the project trains; the RNA and
// protein training steps with and without it: make bench's table
// against a baseline build. Below 16 pixels most lanes would idle:
// CosRec's 5 x 5 maps ran slower by it.)
func (g ConvGeom) UseDirect() bool {
	if g.K <= 1 || g.K > directMaxK || directKernelOf() == nil {
		return false
	}
	if int64(g.H)*int64(g.W)*int64(g.Cin) >= 1<<31 {
		return false // directRow's pixel offsets are int32
	}
	if forceDirect {
		return true
	}
	return g.W >= directV && g.Cout <= 16 && (g.Cin <= 32 || g.Cout <= 8)
}

// directLdr is the length of one channel of a row buffer: the W columns,
// k-1 columns of padding and a vector of overrun, rounded up to a vector.
func directLdr(w, k int) int {
	n := w + k - 1 + directV
	return (n + directV - 1) / directV * directV
}

// directRow fills dst (c channels of ldr floats) with row p of the map xs
// (one sample: H x W x c dense, or packed L x L x c), channel-major with
// pad leading zeros, from column q0 on:
//
//	dst[ch*ldr + pad + q] = xs(p, q, ch) for q0 <= q < W
//
// With clearAll it first sets every element of dst to 0, so that dst is
// the whole zero-padded row where q0 is 0. Without, it writes only those
// elements: for a caller whose buffer's padding is already zero (it never
// writes there) and which reads no column below q0. When p is outside the
// map, dst is all zeros either way. idx (at least W long) is scratch: the
// offsets of the row's pixels, which gatherRows transposes from.
func directRow(dst, xs []float32, packed bool, h, w, c, pad, ldr, p, q0 int, idx []int32, clearAll bool) {
	dst = dst[:c*ldr]
	if clearAll || p < 0 || p >= h {
		clear(dst)
	}
	if p < 0 || p >= h || q0 >= w {
		return
	}
	q0 = max(q0, 0)
	rowOffsets(idx[:w], packed, h, w, c, p, q0)
	gatherRows(dst[pad+q0:], ldr, xs, idx[q0:w], c)
}

// rowOffsets sets idx[q], q0 <= q < w, to the offset of pixel (p, q)'s c
// channels in one sample's map (dense H x W, or packed L x L, where
// (p, q) with q < p is read as (q, p)).
func rowOffsets(idx []int32, packed bool, h, w, c, p, q0 int) {
	if !packed {
		for q := q0; q < w; q++ {
			idx[q] = int32((p*w + q) * c)
		}
		return
	}
	// q < p: element (q, p) of row q of the triangle.
	for q := q0; q < p; q++ {
		idx[q] = int32(Tri(h, q, p) * c)
	}
	t := Tri(h, p, p)
	for q := max(p, q0); q < w; q++ {
		idx[q] = int32((t + q - p) * c)
	}
}

// DirectWorkspace is what the direct forward pass of a block of
// convolutions with largest kernel k on W-wide maps of cin channels takes,
// in floats: per worker, ring (the k+1 row buffers) and acc (the
// accumulator block), both from the kernels' scratch pools; and weights,
// the repacked kernel of one branch of kernel kb and cout channels
// (directWeights: allocated per call). For a caller that models memory
// (pairnet's InferenceBytes).
func DirectWorkspace(k, cin, w, kb, cout int) (ring, acc, weights int) {
	return (k + 1) * cin * directLdr(w, k), directF * directMaxNV * directV,
		(cout + directF - 1) / directF * kb * kb * cin * directF
}

// directWeights repacks the kernel matrix w ((k*k*cin) x cout) for the
// micro-kernel, in chunks of 8 output channels, zero beyond cout:
//
//	wp[(((ch*k + a)*cin + c)*k + b)*8 + f] = w[((a*k+b)*cin + c)*cout + ch*8 + f]
func directWeights(w []float32, k, cin, cout int) []float32 {
	chunks := (cout + directF - 1) / directF
	wp := make([]float32, chunks*k*k*cin*directF)
	for ch := 0; ch < chunks; ch++ {
		for a := 0; a < k; a++ {
			for c := 0; c < cin; c++ {
				for b := 0; b < k; b++ {
					dst := wp[(((ch*k+a)*cin+c)*k+b)*directF:][:directF]
					src := w[((a*k+b)*cin+c)*cout:][:cout]
					for f := range dst {
						if o := ch*directF + f; o < cout {
							dst[f] = src[o]
						}
					}
				}
			}
		}
	}
	return wp
}

// directPairWeights repacks the kernel matrix w ((k*k*cin) x cout) of a
// spatially symmetric kernel for directPairKernel: per chunk of 8 output
// channels and kernel row a, the taps b = a..k-1 (j = b-a) channel by
// channel, zero beyond cout:
//
//	wpp[pairRowStart(k, ch, a, cin) + ((c*(k-a) + j)*8 + f] = w[((a*k+a+j)*cin + c)*cout + ch*8 + f]
func directPairWeights(w []float32, k, cin, cout int) []float32 {
	chunks := (cout + directF - 1) / directF
	wpp := make([]float32, chunks*k*(k+1)/2*cin*directF)
	for ch := 0; ch < chunks; ch++ {
		for a := 0; a < k; a++ {
			nb, base := k-a, pairRowStart(k, ch, a, cin)
			for c := 0; c < cin; c++ {
				for j := 0; j < nb; j++ {
					dst := wpp[base+(c*nb+j)*directF:][:directF]
					src := w[((a*k+a+j)*cin+c)*cout:][:cout]
					for f := range dst {
						if o := ch*directF + f; o < cout {
							dst[f] = src[o]
						}
					}
				}
			}
		}
	}
	return wpp
}

// pairRowStart is the offset in directPairWeights' matrix of chunk ch's
// kernel row a: the rows before it hold k-a' taps each.
func pairRowStart(k, ch, a, cin int) int {
	taps := ch*k*(k+1)/2 + a*k - a*(a-1)/2
	return taps * cin * directF
}

// directBands splits the rows of one map into bands of about equal
// stored pixels (a packed row i has W - i), n bands at most.
func (g ConvGeom) directBands(n int) []int {
	n = max(1, min(n, g.H))
	total := g.Pixels()
	bounds := []int{0}
	done := 0
	for i := 0; i < g.H; i++ {
		if g.Packed {
			done += g.W - i
		} else {
			done += g.W
		}
		if len(bounds) < n && done*n >= len(bounds)*total && i+1 < g.H {
			bounds = append(bounds, i+1)
		}
	}
	return append(bounds, g.H)
}

// A directBranch is one convolution of a direct forward pass: kernel
// size k, kernel matrix w ((k*k*Cin) x cout), an optional bias, written
// to channels [off, off+cout) of each output pixel. The pass packs w
// once, into the one form it uses: wp (directWeights), wpb (bfloat16)
// or wpp (folded tap pairs).
type directBranch struct {
	k, cout, off int
	w, bias      []float32
	wp           []float32 // directWeights(w)
	wpb          []uint32  // wp as channel pairs (bfloat16 only)
	wpp          []float32 // the kernel by position pairs (folded only: directPairWeights)
}

// convForwardDirect is ConvForwardStrided by the direct method.
func convForwardDirect(g ConvGeom, out []float32, ldo, off int, x, w, bias []float32) {
	convForwardDirectBranches(g, out, ldo, x, []directBranch{{k: g.K, cout: g.Cout, off: off, w: w, bias: bias}})
}

// convForwardDirectBranches runs the direct forward pass of several
// convolutions of one input x (g.K the largest kernel; g.Cout is
// ignored), sharing the row buffers: a branch of kernel k < g.K reads
// rows and columns from d = (g.K-k)/2 on. After
// SetGemmPrecision("bfloat16") it runs in bfloat16 (directBF16): row
// buffers and weights as channel pairs, sums in float32.
func convForwardDirectBranches(g ConvGeom, out []float32, ldo int, x []float32, brs []directBranch) {
	dk := directKernelOf()
	bs := bf16Active.Load()
	// An spConv's kernel on a packed (symmetric) map: the taps (a, b) and
	// (b, a) read mirrored inputs with one weight, so each pair a < b is
	// one tap on the sum of its inputs (directPairKernel): k(k+1)/2 taps
	// instead of k*k. The sums round differently (float32 rounding).
	// A branch of at least directPairMinK folds (its wpp is set).
	pk := directPairKernelOf()
	fold := g.directFoldsPairs()
	k, pad := g.K, g.K/2
	np := g.Pixels()
	ldr := directLdr(g.W, k)
	if g.B == 0 || g.H == 0 {
		return
	}
	cp := (g.Cin + 1) / 2 // channel pairs (bfloat16)
	brs = append([]directBranch(nil), brs...)
	for i := range brs {
		br := &brs[i]
		switch {
		case fold && br.k >= directPairMinK:
			br.wpp = directPairWeights(br.w, br.k, g.Cin, br.cout)
		case bs != nil:
			br.wpb = directWeightsBF16(directWeights(br.w, br.k, g.Cin, br.cout), br.k, g.Cin, br.cout)
		default:
			br.wp = directWeights(br.w, br.k, g.Cin, br.cout)
		}
	}
	workers := Workers(g.Workers)
	// Enough items to balance the workers: up to 4 per worker (a map has
	// at most H bands).
	per := max(1, (4*workers+g.B-1)/g.B)
	bounds := g.directBands(per)
	nb := len(bounds) - 1
	rowLen := g.Cin * ldr
	type ws struct {
		ring []float32 // k row buffers and a zero row
		at   []int     // the input row each buffer holds
		acc  []float32
		// bfloat16: ringW holds the k row buffers and a zero row as
		// channel pairs (cp*ldr words each), built through row.
		ringW []uint32
		row   []float32
		idx   []int32 // directRow's pixel offsets
		xbs   [][]float32
	}
	wss := make([]ws, workers)
	defer func() {
		for _, s := range wss {
			putScratch(s.ring, s.acc, s.row)
			putWords(s.ringW)
		}
	}()
	// The accumulators' starting values: per branch, its output
	// channels' biases, padded with 0 to whole groups of directF (0
	// everywhere without a bias).
	inits := make([][]float32, len(brs))
	for bi, br := range brs {
		inits[bi] = make([]float32, (br.cout+directF-1)/directF*directF)
		if br.bias != nil {
			copy(inits[bi], br.bias[:br.cout])
		}
	}
	ParallelFor(g.B*nb, workers, func(wk, item int) {
		s := &wss[wk]
		if s.acc == nil {
			ring, acc, _ := DirectWorkspace(k, g.Cin, g.W, k, 0)
			if bs == nil {
				// Zeroed once: directRow writes no padding column.
				s.ring = getScratch(ring)
				clear(s.ring)
			} else {
				s.ringW = wordScratch((k + 1) * cp * ldr)
				s.row = getScratch(rowLen)
			}
			s.at = make([]int, k)
			s.idx = make([]int32, g.W)
			s.xbs = make([][]float32, k)
			s.acc = getScratch(acc)
		}
		for r := range s.at {
			s.at[r] = -1 << 30
		}
		var zero []float32
		var zeroW []uint32
		if bs == nil {
			zero = s.ring[k*rowLen : (k+1)*rowLen] // zeroed with the ring, never written
		} else {
			zeroW = s.ringW[k*cp*ldr : (k+1)*cp*ldr]
			clear(zeroW)
		}
		smp, band := item/nb, item%nb
		xs := x[smp*np*g.Cin : (smp+1)*np*g.Cin]
		os := out[smp*np*ldo:]
		var rows [directMaxK][]float32
		var rowsW [directMaxK][]uint32
		for i := bounds[band]; i < bounds[band+1]; i++ {
			// The rows of output row i, built where not yet in the ring.
			for a := 0; a < k; a++ {
				p := i + a - pad
				if p < 0 || p >= g.H {
					rows[a], rowsW[a] = zero, zeroW
					continue
				}
				slot := p % k
				if bs != nil {
					buf := s.ringW[slot*cp*ldr : (slot+1)*cp*ldr]
					if s.at[slot] != p {
						directRow(s.row, xs, g.Packed, g.H, g.W, g.Cin, pad, ldr, p, 0, s.idx, true)
						for c := 0; c < cp; c++ {
							lo, dst := s.row[2*c*ldr:(2*c+1)*ldr], buf[c*ldr:(c+1)*ldr]
							if 2*c+1 == g.Cin { // an odd Cin's last pair: hi 0
								for q, v := range lo {
									dst[q] = bf16Word(v, 0)
								}
								continue
							}
							bs.cvtInterleave(dst, lo, s.row[(2*c+1)*ldr:(2*c+2)*ldr])
						}
						s.at[slot] = p
					}
					rowsW[a] = buf
					continue
				}
				buf := s.ring[slot*rowLen : (slot+1)*rowLen]
				if s.at[slot] != p {
					// Output row i is this buffer's first reader in the
					// band (the rows go up), and on a packed map it reads
					// columns q >= i-pad only (its pixels j >= i).
					q0 := 0
					if g.Packed {
						q0 = i - pad
					}
					directRow(buf, xs, g.Packed, g.H, g.W, g.Cin, pad, ldr, p, q0, s.idx, false)
					s.at[slot] = p
				}
				rows[a] = buf
			}
			j0 := 0
			if g.Packed {
				j0 = i
			}
			rs := g.rowStart(i) - j0 // stored index of (i, j) is rs + j
			for jb := j0; jb < g.W; jb += directMaxNV * directV {
				nv := min(directMaxNV, (g.W-jb+directV-1)/directV)
				n := nv * directV
				jn := min(n, g.W-jb)
				acc := s.acc[:directF*n]
				for bi, br := range brs {
					d := (k - br.k) / 2
					for ch := 0; ch*directF < br.cout; ch++ {
						fn := min(directF, br.cout-ch*directF)
						accInit8(acc, n, inits[bi][ch*directF:(ch+1)*directF])
						if bs != nil {
							wc := br.wpb[ch*br.k*cp*br.k*directF:]
							for a := 0; a < br.k; a++ {
								bs.direct(nv, acc, rowsW[a+d][jb+d:], ldr, wc[a*cp*br.k*directF:], cp, br.k)
							}
						} else if br.wpp != nil {
							// Row a's taps (a, b) read row a at columns
							// j+b, their mirrors (b, a) row b at j+a (the
							// diagonal's: the zero row).
							for a := 0; a < br.k; a++ {
								xbs := s.xbs[:br.k-a]
								xbs[0] = zero[jb:]
								for b := a + 1; b < br.k; b++ {
									xbs[b-a] = rows[b+d][jb+d+a:]
								}
								pk(nv, acc, rows[a+d][jb+d+a:], xbs, ldr, br.wpp[pairRowStart(br.k, ch, a, g.Cin):], g.Cin)
							}
						} else {
							wc := br.wp[ch*br.k*g.Cin*br.k*directF:]
							for a := 0; a < br.k; a++ {
								dk(nv, acc, rows[a+d][jb+d:], ldr, wc[a*g.Cin*br.k*directF:], g.Cin, br.k)
							}
						}
						base := os[(rs+jb)*ldo+br.off+ch*directF:]
						if fn == directF {
							storeAcc8(base, ldo, acc, n, jn)
							continue
						}
						for j := 0; j < jn; j++ {
							o := base[j*ldo:][:fn]
							for f := range o {
								o[f] = acc[f*n+j]
							}
						}
					}
				}
			}
		}
	})
}

// directWeightsBF16 is the kernel wp of directWeights (cin channels) as
// channel pairs, zero past cin:
//
//	wpb[(((ch*k + a)*cp + c)*k + b)*8 + f] = bf16Word(wp[(((ch*k + a)*cin + 2c)*k + b)*8 + f],
//	                                                  wp[(((ch*k + a)*cin + 2c+1)*k + b)*8 + f])
func directWeightsBF16(wp []float32, k, cin, cout int) []uint32 {
	chunks := (cout + directF - 1) / directF
	cp := (cin + 1) / 2
	wpb := make([]uint32, chunks*k*cp*k*directF)
	for ca := 0; ca < chunks*k; ca++ { // ch*k + a
		for c := 0; c < cp; c++ {
			for b := 0; b < k; b++ {
				dst := wpb[((ca*cp+c)*k+b)*directF:][:directF]
				lo := wp[((ca*cin+2*c)*k+b)*directF:][:directF]
				for f := range dst {
					hi := float32(0)
					if 2*c+1 < cin {
						hi = wp[((ca*cin+2*c+1)*k+b)*directF+f]
					}
					dst[f] = bf16Word(lo[f], hi)
				}
			}
		}
	}
	return wpb
}

// A directBF16Kernel is a directKernel on channel pairs: for f < 8,
// v < nv (1..3), l < 16, over c < cp, then b < k:
//
//	acc[(f*nv+v)*16 + l] = dpBF16(acc[(f*nv+v)*16 + l], w[(c*k+b)*8 + f], x[c*ldx + b + v*16 + l])
//
// x must hold (cp-1)*ldx + k-1 + nv*16 words.
type directBF16Kernel func(nv int, acc []float32, x []uint32, ldx int, w []uint32, cp, k int)

// directBF16Go is the portable directBF16Kernel.
func directBF16Go(nv int, acc []float32, x []uint32, ldx int, w []uint32, cp, k int) {
	n := nv * directV
	acc = acc[:directF*n]
	for c := 0; c < cp; c++ {
		xc := x[c*ldx:]
		for b := 0; b < k; b++ {
			xb := xc[b : b+n]
			wb := w[(c*k+b)*directF : (c*k+b+1)*directF]
			for f, wv := range wb {
				a := acc[f*n : (f+1)*n]
				for j, xv := range xb {
					a[j] = dpBF16(a[j], wv, xv)
				}
			}
		}
	}
}

// directMaxK is the largest kernel the direct method takes.
const directMaxK = 15
