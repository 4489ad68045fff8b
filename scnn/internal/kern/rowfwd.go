package kern

// The forward pass by kernel rows: ConvForward's GEMM on the window
// rows of rowWindows (rowback.go) instead of the im2col of x.
//
// For output row i, t holds each window column's k rows once,
//
//	t[(q-q0)*k*Cin + a*Cin + c] = x(i+a-pad, q, c)
//
// and pixel j's im2col row, reordered to (b, a, c), is the k*k*Cin floats
// of t from column j-pad on. So the layer's output rows are one GEMM of
// those overlapping rows (leading dimension k*Cin) with the kernel
// matrix's rows in (b, a, c) order. The buffers of several output rows
// are laid one after another, each k-1 columns longer than its row, so
// that one GEMM covers them all: it computes k-1 outputs past the end of
// each row, which are dropped. A branch of a smaller kernel k' (centred
// in the largest, d = (k-k')/2 rows and columns in) reads, for each of
// its window columns b', the k'*Cin floats of rows d.. of column j-pad+d+b':
// k' GEMMs of k'*Cin rows each, added up.
//
// Against the im2col this copies k*Cin floats per pixel instead of
// k*k*Cin, and the GEMM reads them from a buffer of a few hundred
// kilobytes instead of a tile of up to 16 MB. The sums run in another
// order (b, a, c instead of a, b, c): outputs agree with the im2col
// method to float32 rounding, not in bits.

// fwdRowsAlways makes ConvForward and ConvForwardBranches take the row
// method wherever it can (tests); fwdRowsNever never.
var fwdRowsAlways, fwdRowsNever bool

// fwdRowsPays reports whether the row method is the faster forward pass
// for the im2col layers (those UseDirect and UseOutputSide leave to it)
// of largest kernel k on maps w columns wide. BenchmarkConvForwardRows
// (paired runs, two workers) had every layer it times on
// maps of 24 columns or more faster by rows, dense and packed: 1.09-1.17x
// for 3x3 16->32, 1.14-1.25x for 3x3 64->64, 1.2-2.3x for the layers of
// 5x5 and up. Its layers have 8-108 input and 20-64 output channels per
// branch. On smaller maps the fixed costs (the kernel reordered and
// packed per call, k-1 dropped outputs per row) outweigh the copies
// saved: 0.64x for 3x3 64->64 at 12 columns, 0.89x packed for the 13x13
// block at 16 (CosRec's 5 x 5 maps stay on the im2col).
func fwdRowsPays(k, w int) bool {
	return k >= 3 && w >= 24
}

// useFwdRows reports whether the forward pass of g (its K the largest
// kernel, its Cout the branches' channels together) goes by kernel rows:
// the Go kernels in float32, and fwdRowsPays (unless forced).
func useFwdRows(g ConvGeom) bool {
	if fwdRowsNever || backend != "go" || bf16Active.Load() != nil || g.K < 1 {
		return false
	}
	return fwdRowsAlways || fwdRowsPays(g.K, g.W)
}

// fwdRowsTarget is the number of GEMM rows (output pixels, with the
// dropped ones) the row method gathers into one product: enough rows to
// reuse each packed panel of the kernel matrix, few enough for the
// buffers to stay in the second-level cache.
const fwdRowsTarget = 256

// convForwardRows computes ConvForwardBranches's branches (kernels ks,
// couts channels each, kernel matrices ws, biases bs, nil: none) by
// kernel rows, writing output pixel p's branch channels to
// out[p*ldo+off+...]: branch b at off plus the channels of the branches
// before it. g gives the batch, map, Cin, layout and workers.
func convForwardRows(g ConvGeom, ks, couts []int, out []float32, ldo, off int, x []float32, ws, bs [][]float32) {
	kmax, ctot := 0, 0
	for b, k := range ks {
		kmax = max(kmax, k)
		ctot += couts[b]
	}
	if g.B == 0 || g.H == 0 || ctot == 0 {
		return
	}
	g.K, g.Cout = kmax, ctot
	cin, pad := g.Cin, kmax/2
	kc := kmax * cin
	// Each branch's kernel matrix in (b, a, c) row order, packed: a
	// branch of the largest kernel as one matrix, a smaller one per
	// window column b' (rows (b', a', c), a' < k').
	packed := make([][]*goPackedB, len(ks))
	maxEdge := 0
	for bi, k := range ks {
		m := cin * couts[bi]
		perm := rowOrder(ws[bi], k, m)
		if k == kmax {
			packed[bi] = []*goPackedB{packGo(false, k*k*cin, couts[bi], 1, perm, couts[bi])}
		} else {
			for b := 0; b < k; b++ {
				packed[bi] = append(packed[bi], packGo(false, k*cin, couts[bi], 1, perm[b*k*m:], couts[bi]))
			}
		}
		for _, p := range packed[bi] {
			defer putScratch(p.bp)
			maxEdge = max(maxEdge, sgemmEdge(p.mk))
		}
	}
	// Rows per product: their buffers hold up to W + k - 1 columns each.
	wk := g.W + kmax - 1
	group := max(1, fwdRowsTarget/wk)
	bounds, workers := g.rowBands()
	nb := len(bounds) - 1
	np := g.Pixels()
	type buf struct{ t, c, zero, edge []float32 }
	bufs := make([]buf, workers)
	defer func() {
		for _, b := range bufs {
			putScratch(b.t, b.c, b.edge)
		}
	}()
	ParallelFor(g.B*nb, workers, func(wk_, item int) {
		bf := &bufs[wk_]
		if bf.t == nil {
			// A ragged last block of the GEMM reads up to a
			// micro-kernel's rows past the last (sgemmPacked's ownA).
			bf.t = getScratch((group*wk + kmax + 32) * kc)
			bf.c = getScratch(group * wk * ctot)
			bf.zero = make([]float32, cin)
			bf.edge = getScratch(maxEdge)
		}
		s, band := item/nb, item%nb
		xs := x[s*np*cin : (s+1)*np*cin]
		for i0 := bounds[band]; i0 < bounds[band+1]; i0 += group {
			i1 := min(i0+group, bounds[band+1])
			// The window rows of output rows i0..i1-1, one after another.
			m := 0
			for i := i0; i < i1; i++ {
				j0, n, _ := g.rowPixels(i)
				g.rowWindows(bf.t[m*kc:], xs, i, j0-pad, n+kmax-1, bf.zero)
				m += n + kmax - 1
			}
			// The last row's dropped outputs need no computing.
			mg := m - (kmax - 1)
			c := bf.c[:m*ctot]
			o := 0 // the branch's first channel in c
			for bi, k := range ks {
				cout := couts[bi]
				beta := float32(0)
				if bs[bi] != nil {
					CopyRuns(c[o:], bs[bi], cout, mg, ctot, 0)
					beta = 1
				}
				if k == kmax {
					sgemmPackedEdge(false, mg, bf.t, kc, packed[bi][0], beta, c[o:], ctot, true, bf.edge)
				} else {
					d := (kmax - k) / 2
					for b := 0; b < k; b++ {
						sgemmPackedEdge(false, mg, bf.t[((d+b)*kmax+d)*cin:], kc, packed[bi][b], beta, c[o:], ctot, true, bf.edge)
						beta = 1
					}
				}
				o += cout
			}
			// The rows' outputs, without the k-1 dropped after each.
			m = 0
			for i := i0; i < i1; i++ {
				_, n, first := g.rowPixels(i)
				CopyRuns(out[(s*np+first)*ldo+off:], c[m*ctot:], ctot, n, ldo, ctot)
				m += n + kmax - 1
			}
		}
	})
}
