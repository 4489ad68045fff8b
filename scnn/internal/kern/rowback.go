package kern

// The backward pass of narrow layers by kernel rows.
//
// The im2col of dy holds k*k*Cout floats per output pixel, k*k copies of
// every value of dy. Along one output row i the windows of neighbouring
// pixels overlap in k-1 of their k columns, so the windows' k rows can be
// stored once per column instead (rowWindows):
//
//	t[(q-q0)*k*C + a*C + f] = dy(i+a-pad, q, f)   for the window columns q0 <= q < q0+nq
//
// and pixel j's im2col row, reordered to (b, a, f), is the k*k*C floats
// from t[(j-pad-q0)*k*C] on: rows of one matrix k*C floats apart, which
// overlap. Both gradients are then GEMMs on t with the leading dimension
// k*C, over the pixels of the row:
//
//	dx[j, c]            = sum_{b, a, f} t[(j-pad-q0)*k*C + (b*k+a)*C + f] * flip[(b*k+a)*C + f, c]
//	gw[(b*k+a)*C + f, c] += sum_j t[(j-pad-q0)*k*C + (b*k+a)*C + f] * x[j, c]
//
// with flip the flipped kernel's rows in (b, a) order. That copies k*C
// floats per pixel instead of k*k*C, and the GEMMs read them from a
// buffer of (W+k-1)*k*C floats (31 KB for a 9x9 kernel to 8 channels at
// W = 100). A packed map's diagonal pixel, the first of its row, enters
// the kernel gradient at half weight (as halveDyRows does for the tile
// method): its row of x is halved in the kernel gradient's packed copy.
//
// The sums run in another order than the tile method's (per map row,
// not per tile of pixels): the gradients agree with it to float32
// rounding, not in bits. As there, each worker sums the kernel and bias
// gradients of its rows, and the workers' sums are added in worker
// order.

// rowsAlways makes ConvBackwardBranches take the row method wherever it
// can, whatever rowsPays says (tests and benchmarks); rowsNever never.
var rowsAlways, rowsNever bool

// rowsPays reports whether the row method is the faster for a branch
// of kernel k from cin to cout channels on a dense or packed map w
// columns wide. By BenchmarkConvBackwardRows (paired ratios, one worker,
// batch 10 of 100 x 100 maps), rows over tiles: on dense
// maps 1.0-1.2x for the 3x3 layers (16->8 1.08x), 1.1-1.2x for 5x5,
// 1.15-1.4x for 7x7, 1.59x for 9x9 31->8; on packed maps 0.88-1.02x for
// 3x3 (rows of 50 pixels on average: more calls per pixel), 1.0-1.15x
// for 5x5, 1.06-1.3x for 7x7, 1.43x for 9x9. Measured for 4 and 8 output
// channels and 1-86 input channels, and (BenchmarkConvBackwardRowsBlocks)
// on 64 x 64 maps; wider layers keep the tile method, whose GEMMs fill
// their vectors, and maps under 24 columns, where the forward pass by
// rows lost (fwdRowsPays).
func rowsPays(k, cin, cout, w int, packed bool) bool {
	return k >= 3 && cout <= 8 && cin <= 96 && w >= 24 && (!packed || k >= 5)
}

// useRows reports whether ConvBackwardBranches runs gs by kernel rows:
// the Go kernels in float32, no branch folding its kernel's position
// pairs, no tile size set, and (unless forced) every branch where
// rowsPays.
func useRows(gs []ConvGeom) bool {
	if rowsNever || backend != "go" || bf16Active.Load() != nil {
		return false
	}
	for _, g := range gs {
		if g.foldsPairs() || g.TilePixels > 0 {
			return false
		}
		if !rowsAlways && !rowsPays(g.K, g.Cin, g.Cout, g.W, g.Packed) {
			return false
		}
	}
	return true
}

// rowWindows writes the window rows of output row i of the map x (one
// sample, g.Cin channels; dense H x W or packed L x L) for the window
// columns q0 <= q < q0+nq:
//
//	t[(q-q0)*k*C + a*C + f] = x(i+a-pad, q, f)
//
// zero outside the map; a packed map reads (p, q) with q < p as (q, p).
// zero holds at least C zeros.
func (g ConvGeom) rowWindows(t, x []float32, i, q0, nq int, zero []float32) {
	k, c, pad := g.K, g.Cin, g.K/2
	kc := k * c
	zero = zero[:c]
	for a := 0; a < k; a++ {
		p := i + a - pad
		slot := t[a*c:]
		if p < 0 || p >= g.H {
			CopyRuns(slot, zero, c, nq, kc, 0)
			continue
		}
		// Columns [q0, lo) and [hi, q0+nq) lie outside the map.
		lo, hi := max(q0, 0), min(q0+nq, g.W)
		if lo > q0 {
			CopyRuns(slot, zero, c, lo-q0, kc, 0)
		}
		if hi < q0+nq {
			CopyRuns(slot[(hi-q0)*kc:], zero, c, q0+nq-hi, kc, 0)
		}
		if !g.Packed {
			if hi > lo {
				CopyRuns(slot[(lo-q0)*kc:], x[(p*g.W+lo)*c:], c, hi-lo, kc, c)
			}
			continue
		}
		// Packed: columns below p read the mirrored pixel (q, p), one
		// triangle row each; from p on, row p of the triangle, in order.
		m := max(min(p, hi), lo)
		for q := lo; q < m; q++ {
			src := Tri(g.W, q, p) * c
			copy(slot[(q-q0)*kc:(q-q0)*kc+c], x[src:src+c])
		}
		if hi > m {
			CopyRuns(slot[(m-q0)*kc:], x[Tri(g.W, p, m)*c:], c, hi-m, kc, c)
		}
	}
}

// rowPixels returns the first column and the number of the output pixels
// of map row i (packed: the triangle row, from the diagonal on), and the
// index of its first pixel in the sample (rowStart).
func (g ConvGeom) rowPixels(i int) (j0, n, first int) {
	if g.Packed {
		return i, g.W - i, g.rowStart(i)
	}
	return 0, g.W, g.rowStart(i)
}

// rowOrder returns the kernel matrix w (k*k positions of m = Cin*Cout
// values, rows (a, b) row by row) with its positions in (b, a) order,
// the order of the window rows' columns.
func rowOrder(w []float32, k, m int) []float32 {
	perm := make([]float32, k*k*m)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			copy(perm[(b*k+a)*m:(b*k+a+1)*m], w[(a*k+b)*m:(a*k+b+1)*m])
		}
	}
	return perm
}

// rowBands splits the rows of g's maps into bands for at most
// Workers(g.Workers) workers, about 4 items a worker (directBands), and
// returns them with the number of workers to start (g.B and g.H >= 1).
func (g ConvGeom) rowBands() (bounds []int, workers int) {
	workers = min(Workers(g.Workers), g.B*g.H)
	per := max(1, (4*workers+g.B-1)/g.B)
	bounds = g.directBands(per)
	return bounds, min(workers, g.B*(len(bounds)-1))
}

// convBackwardRows is ConvBackwardBranches by kernel rows (see above),
// for geometries useRows accepts.
func convBackwardRows(gs []ConvGeom, dx []float32, dws, dbs [][]float32, x []float32, dys, ws [][]float32) {
	g0 := gs[0]
	if g0.B == 0 || g0.H == 0 {
		return
	}
	np, cin := g0.Pixels(), g0.Cin
	pfs := make([]*goPackedB, len(gs))
	maxT, maxC := 0, 0
	for bi, g := range gs {
		k, c := g.K, g.Cout
		m := c * cin
		flip := make([]float32, len(ws[bi]))
		FlipKernel(flip, ws[bi], k, cin, c)
		pfs[bi] = packGo(false, k*k*c, cin, 1, rowOrder(flip, k, m), cin)
		defer putScratch(pfs[bi].bp)
		// A ragged last block of the GEMMs reads up to a micro-kernel's
		// rows past the row's pixels (sgemmPacked's ownA): room for them.
		maxT = max(maxT, (g.W+k+32)*k*c)
		maxC = max(maxC, c)
	}
	// Each branch's geometry of dy (its channels in, x's out), for
	// rowWindows.
	gys := make([]ConvGeom, len(gs))
	for bi, g := range gs {
		gys[bi] = g
		gys[bi].Cin, gys[bi].Cout = g.Cout, g.Cin
	}
	mk := activeSet.Load().pick(cin)
	inPlace := mk.nr == cin
	maxEdge := sgemmEdge(mk)
	for _, p := range pfs {
		maxEdge = max(maxEdge, sgemmEdge(p.mk))
	}
	bounds, workers := g0.rowBands()
	nb := len(bounds) - 1
	type acc struct {
		t, tmp, xp, zero, edge []float32
		gw, db                 [][]float32
		px                     goPackedB
	}
	accs := make([]acc, workers)
	defer func() {
		for _, a := range accs {
			putScratch(a.t, a.tmp, a.xp, a.edge)
		}
	}()
	ParallelFor(g0.B*nb, workers, func(wk, item int) {
		a := &accs[wk]
		if a.t == nil {
			a.t = getScratch(maxT)
			if len(gs) > 1 {
				a.tmp = getScratch(g0.W * cin)
			}
			if !inPlace || g0.Packed {
				a.xp = getScratch(g0.W * ((cin + mk.nr - 1) / mk.nr * mk.nr))
			}
			a.zero = make([]float32, maxC)
			a.edge = getScratch(maxEdge)
			a.gw, a.db = make([][]float32, len(gs)), make([][]float32, len(gs))
			for bi, g := range gs {
				a.gw[bi] = make([]float32, g.K*g.K*g.Cout*cin)
				a.db[bi] = make([]float32, g.Cout)
			}
		}
		s, band := item/nb, item%nb
		for i := bounds[band]; i < bounds[band+1]; i++ {
			j0, n, first := g0.rowPixels(i)
			xr := x[(s*np+first)*cin : (s*np+first+n)*cin]
			dxr := dx[(s*np+first)*cin : (s*np+first+n)*cin]
			// x's row packed for the kernel gradient (in place where it
			// is one panel wide); on a packed map the diagonal pixel's
			// row halved, which halves its term of the kernel gradient
			// (as halveDyRows does its im2col row).
			px := &a.px
			if inPlace && !g0.Packed {
				*px = goPackedB{bp: xr, k: n, n: cin, mk: mk}
			} else {
				nr := mk.nr
				pn := (cin + nr - 1) / nr
				bp := a.xp[:n*pn*nr]
				packB(bp, false, xr, cin, n, cin, nr, 1)
				if g0.Packed {
					kb := min(sgemmKC, n)
					for jp := 0; jp < pn; jp++ {
						for j := range nr {
							bp[jp*kb*nr+j] *= 0.5
						}
					}
				}
				*px = goPackedB{bp: bp, k: n, n: cin, mk: mk}
			}
			for bi, g := range gs {
				k, c, pad := g.K, g.Cout, g.K/2
				kc := k * c
				dyr := dys[bi][(s*np+first)*c : (s*np+first+n)*c]
				t := a.t[:(n+k-1)*kc]
				gys[bi].rowWindows(t, dys[bi][s*np*c:(s+1)*np*c], i, j0-pad, n+k-1, a.zero)
				if bi == 0 {
					sgemmPackedEdge(false, n, t, kc, pfs[bi], 0, dxr, cin, true, a.edge)
				} else {
					tmp := a.tmp[:n*cin]
					sgemmPackedEdge(false, n, t, kc, pfs[bi], 0, tmp, cin, true, a.edge)
					AddRuns(dxr, tmp, n*cin, 1, 0, 0) // dxr += tmp
				}
				// The bias gradient, the diagonal pixel's term halved.
				db, d := a.db[bi], dyr
				if g.Packed {
					for f, v := range dyr[:c] {
						db[f] += 0.5 * v
					}
					d = dyr[c:]
				}
				if len(d) > 0 {
					AddRuns(db, d, c, len(d)/c, 0, c)
				}
				// gw += A^T x over the row's pixels: A's rows overlap
				// (lda = k*C < k*k*C).
				sgemmPackedEdge(true, k*kc, t, kc, px, 1, a.gw[bi], cin, true, a.edge)
			}
		}
	})
	for bi, g := range gs {
		k := g.K
		pos := make([][2]int, 0, k*k)
		for b := 0; b < k; b++ {
			for a := 0; a < k; a++ {
				pos = append(pos, [2]int{a, b})
			}
		}
		for _, a := range accs {
			if a.gw == nil {
				continue
			}
			addFlippedGrad(dws[bi], dbs[bi], a.gw[bi], a.db[bi], g, pos)
		}
	}
}
