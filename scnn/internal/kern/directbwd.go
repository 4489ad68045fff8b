package kern

// The kernel gradient of a convolution with few input and output
// channels by the direct method: no im2col and no GEMM, vectorised over
// the pixels of an output row as the forward pass (direct.go) is.
//
// ConvWeightGrad's sum, for every kernel position (a, b), input channel
// c and output channel f,
//
//	dw[(a*k+b)*Cin + c, f] += sum_{i, j} X_{i+a-pad}[c*ldr + j + b] * D_i[f*ldd + j]
//
// over output rows i, where X_p are the forward pass's zero-padded row
// buffers of x (directRow) and D_i is row i of dy channel by channel,
// zero beyond the map and, on a packed map, for j < i, its diagonal pixel
// halved (ConvWeightGrad's s(i,i) = 1/2). The micro-kernel
// (directDWKernel) keeps 16 lanes of each sum for up to 3 columns b and 8
// channels f in registers while it walks the row's pixel vectors, channel
// by channel; the lanes are added up once per worker, at the end. Each
// worker sums its own items' rows, and the workers' sums are added in
// worker order: the results depend on the worker count, as the im2col
// method's do, and differ from them by rounding.
//
// With 1-8 input channels the im2col method copies k*k*Cin floats per
// pixel in runs of k*Cin, and its GEMM (k*k*Cin rows, Cout <= 8 columns)
// fills half of each vector at most. Training by halves computes the
// kernel gradients of its dense input channels (3 of the protein
// default's, 5 of the RNA recipe's) so (scnn's cartesian_train.go).
// (The whole backward pass was tried this way, the input gradient by the
// transposed direct convolution: experiments/direct-backward.)

// A directDWKernel computes, for c < cin, b < kb (1..3), f < 8, l < 16,
// over v < nv:
//
//	acc[((c*kb + b)*8 + f)*16 + l] += x[c*ldx + b + v*16 + l] * dy[f*ldd + v*16 + l]
//
// x must hold (cin-1)*ldx + kb-1 + nv*16 floats, dy 7*ldd + nv*16.
type directDWKernel func(kb int, acc, x []float32, ldx int, dy []float32, ldd, nv, cin int)

// directDWGo is the portable directDWKernel.
func directDWGo(kb int, acc, x []float32, ldx int, dy []float32, ldd, nv, cin int) {
	n := nv * directV
	for c := 0; c < cin; c++ {
		for b := 0; b < kb; b++ {
			xb := x[c*ldx+b : c*ldx+b+n]
			for f := 0; f < directF; f++ {
				a := acc[((c*kb+b)*directF+f)*directV:][:directV]
				d := dy[f*ldd : f*ldd+n]
				for j, xv := range xb {
					a[j%directV] += xv * d[j]
				}
			}
		}
	}
}

// directDWKernelOf returns the direct kernel-gradient micro-kernel of the
// active set, or nil where it has none (and tests do not force one).
func directDWKernelOf() directDWKernel {
	if d := activeSet.Load().directDW; d != nil {
		return d
	}
	if forceDirect {
		return directDWGo
	}
	return nil
}

// useDirectWeightGrad reports whether ConvWeightGrad takes the direct
// method: layers of at most 8 input and 8 output channels, kernels from
// 3 x 3, maps at least a vector wide, in float32 on a kernel set with a
// directDWKernel (BenchmarkConvWeightGradDirect).
func (g ConvGeom) useDirectWeightGrad() bool {
	if noDirectWeightGrad || g.Cin > directF || g.Cout > directF || g.K < 3 || g.W < directV || g.TilePixels > 0 ||
		bf16Active.Load() != nil || directDWKernelOf() == nil {
		return false
	}
	return int64(g.H)*int64(g.W)*int64(g.Cin) < 1<<31 // directRow's pixel offsets are int32
}

// noDirectWeightGrad turns the direct kernel gradient off (tests and
// benchmarks: the im2col method to compare with).
var noDirectWeightGrad bool

// convWeightGradDirect is ConvWeightGrad by the direct method.
func convWeightGradDirect(g ConvGeom, dw, db, x, dy []float32) {
	if g.B == 0 || g.H == 0 {
		return
	}
	dk := directDWKernelOf()
	k, pad, cin := g.K, g.K/2, g.Cin
	np := g.Pixels()
	ldr := directLdr(g.W, k)
	rowLen := cin * ldr
	workers := Workers(g.Workers)
	per := max(1, (4*workers+g.B-1)/g.B)
	bounds := g.directBands(per)
	nb := len(bounds) - 1
	workers = min(workers, g.B*nb)
	acc := k * k * cin * directF * directV // 16 lanes of every sum
	// The channels go in blocks of cb whose lanes (k*k*cb*128 floats) stay
	// in the first-level cache while the band's rows pass.
	cb := max(1, directAccBudget/(k*k*directF*directV))
	cb = (cin + (cin+cb-1)/cb - 1) / ((cin + cb - 1) / cb) // blocks of equal size
	type ws struct {
		ring, dyt, acc, db []float32
		at                 []int
		idx                []int32
	}
	wss := make([]ws, workers)
	defer func() {
		for _, s := range wss {
			putScratch(s.ring, s.dyt, s.acc)
		}
	}()
	ParallelFor(g.B*nb, workers, func(wk, item int) {
		s := &wss[wk]
		if s.acc == nil {
			s.ring = getScratch((k + 1) * rowLen)
			clear(s.ring) // directRow writes no padding column
			s.dyt = getScratch(directF * ldr)
			clear(s.dyt) // channels past Cout stay 0
			s.acc = getScratch(acc)
			clear(s.acc)
			s.db = make([]float32, g.Cout)
			s.at = make([]int, k)
			s.idx = make([]int32, g.W)
		}
		smp, band := item/nb, item%nb
		xs := x[smp*np*cin : (smp+1)*np*cin]
		dys := dy[smp*np*g.Cout : (smp+1)*np*g.Cout]
		for c0 := 0; c0 < cin; c0 += cb {
			ncb := min(cb, cin-c0)
			for r := range s.at {
				s.at[r] = -1 << 30
			}
			for i := bounds[band]; i < bounds[band+1]; i++ {
				j0 := 0
				if g.Packed {
					j0 = i / directV * directV // D_i is 0 below j = i
				}
				q0 := 0 // D_i is 0 below j = i on a packed map
				if g.Packed {
					q0 = i
				}
				directRow(s.dyt, dys, g.Packed, g.H, g.W, g.Cout, 0, ldr, i, q0, s.idx, true)
				for f := 0; f < g.Cout; f++ {
					row := s.dyt[f*ldr : f*ldr+g.W]
					if g.Packed {
						row[i] *= 0.5
					}
					if c0 > 0 || db == nil {
						continue
					}
					sum := float32(0)
					for _, v := range row[j0:] {
						sum += v
					}
					s.db[f] += sum
				}
				nv := (g.W - j0 + directV - 1) / directV
				for a := 0; a < k; a++ {
					p := i + a - pad
					if p < 0 || p >= g.H {
						continue
					}
					slot := p % k
					buf := s.ring[slot*rowLen : (slot+1)*rowLen]
					if s.at[slot] != p {
						directRowChannels(buf, xs, g.Packed, g.H, g.W, cin, c0, ncb, pad, ldr, p, s.idx)
						s.at[slot] = p
					}
					for b0 := 0; b0 < k; b0 += 3 {
						kb := min(3, k-b0)
						off := ((a*k+b0)*cin + c0*kb) * directF * directV
						dk(kb, s.acc[off:off+ncb*kb*directF*directV], buf[b0+j0:], ldr, s.dyt[j0:], ldr, nv, ncb)
					}
				}
			}
		}
	})
	// The lanes, worker by worker in order, into dw and db.
	for _, s := range wss {
		if s.acc == nil {
			continue
		}
		for a := 0; a < k; a++ {
			for b0 := 0; b0 < k; b0 += 3 {
				kb := min(3, k-b0)
				blk := s.acc[(a*k+b0)*cin*directF*directV:]
				for c := 0; c < cin; c++ {
					for b := 0; b < kb; b++ {
						for f := 0; f < g.Cout; f++ {
							lanes := blk[((c*kb+b)*directF+f)*directV:][:directV]
							sum := float32(0)
							for _, v := range lanes {
								sum += v
							}
							dw[((a*k+b0+b)*cin+c)*g.Cout+f] += sum
						}
					}
				}
			}
		}
		if db != nil {
			for f, v := range s.db {
				db[f] += v
			}
		}
	}
}

// directAccBudget is the floats of the direct kernel gradient's lanes one
// block of channels uses (40 KB: the first-level cache of the machines
// measured holds 48).
const directAccBudget = 10240

// directRowChannels is directRow for channels c0..c0+cb of a map of c
// channels, the whole row (q0 = 0) and without clearing: the buffer's
// padding columns are the caller's zeros.
func directRowChannels(dst, xs []float32, packed bool, h, w, c, c0, cb, pad, ldr, p int, idx []int32) {
	dst = dst[:cb*ldr]
	if p < 0 || p >= h {
		clear(dst)
		return
	}
	rowOffsets(idx[:w], packed, h, w, c, p, 0)
	gatherRows(dst[pad:], ldr, xs[c0:], idx[:w], cb) // offsets from channel c0
}
