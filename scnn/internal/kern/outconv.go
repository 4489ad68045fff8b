package kern

// Output-side convolution (the "kn2row" method of Vasudevan, Anderson and
// Gregg, "Parallel multi channel convolution using general matrix
// multiplication", ASAP 2017). im2col copies k*k*Cin values per pixel,
// which dominates when Cout is much smaller than Cin (the contact models'
// blocks map 86 channels to 8). Instead, the forward pass multiplies each
// input pixel by every kernel position at once,
//
//	Z[q, (a*k+b)*Cout + f] = sum_c x[q, c] * w[((a*k+b)*Cin + c)*Cout + f]
//
// one GEMM straight on the input (M = pixels, K = Cin, N = k*k*Cout, no
// copy), then gathers out[p, f] = bias[f] + sum_{a,b} Z[p + (a-pad, b-pad),
// (a*k+b)*Cout + f]. The backward pass needs only the im2col of dy (k*k*Cout
// per pixel), which serves both gradients.

// zBudget bounds the Z buffer of one worker (floats).
var zBudget = 8 << 20 // a variable so tests can force several bands

// minBandItems is the number of work items the output-side forward pass
// makes at least, splitting maps into bands when the batch is smaller, so
// that a single chain keeps several workers busy. It is a constant, not
// the worker count: the bands decide which GEMM computes each value, and
// results must not depend on the number of workers.
const minBandItems = 4

// outBand returns the output rows per work item of the output-side
// forward pass: as many as fit the Z budget with their halo (pad rows
// above and below), at least 1, and few enough for minBandItems items.
func (g ConvGeom) outBand() int {
	pad := g.K / 2
	rows := zBudget / (g.W * g.K * g.K * g.Cout) // rows of Z that fit
	band := max(min(rows-2*pad, g.H), 1)
	if g.B < minBandItems {
		per := (minBandItems + g.B - 1) / g.B // bands wanted per map
		band = min(band, (g.H+per-1)/per)
	}
	return max(band, 1)
}

// UseOutputSide reports whether ConvForward uses the output-side method:
// for k > 1 when Cout <= Cin/2 and the halo rows it recomputes cost at
// most a quarter of the GEMM.
func (g ConvGeom) UseOutputSide() bool {
	band := g.outBand()
	return g.K > 1 && 2*g.Cout <= g.Cin && (band == g.H || 4*2*(g.K/2) <= band)
}

// outWeights reorders w ((k*k*Cin) x Cout) into Wr (Cin x k*k*Cout):
//
//	Wr[c*N + (a*k+b)*Cout + f] = w[((a*k+b)*Cin + c)*Cout + f],  N = k*k*Cout
func outWeights(wr, w []float32, kk, cin, cout int) {
	n := kk * cout
	for pos := 0; pos < kk; pos++ {
		for c := 0; c < cin; c++ {
			copy(wr[c*n+pos*cout:c*n+(pos+1)*cout], w[(pos*cin+c)*cout:(pos*cin+c+1)*cout])
		}
	}
}

// rowStart is the index of the first stored pixel of row i: i*W, or
// Tri(L, i, i) packed.
func (g ConvGeom) rowStart(i int) int {
	if g.Packed {
		return Tri(g.H, i, i)
	}
	return i * g.W
}

// convForwardOut is ConvForward by the output-side method.
func convForwardOut(g ConvGeom, out []float32, ldo, off int, x, w, bias []float32) {
	np, kk, pad := g.Pixels(), g.K*g.K, g.K/2
	n := kk * g.Cout
	wr := make([]float32, g.Cin*n)
	outWeights(wr, w, kk, g.Cin, g.Cout)
	pw := PackB(false, g.Cin, n, 1, wr, n) // one packing for every band
	defer pw.Release()
	band := g.outBand()
	bands := (g.H + band - 1) / band
	workers := Workers(g.Workers)
	addRows := activeSet.Load().addRows
	zs := make([][]float32, workers)
	defer putScratch(zs...)
	ParallelFor(g.B*bands, workers, func(wk, item int) {
		s, i0 := item/bands, (item%bands)*band
		i1 := min(i0+band, g.H)
		r0, r1 := max(0, i0-pad), min(g.H, i1+pad)
		q0, q1 := g.rowStart(r0), g.rowStart(r1)
		if r1 == g.H {
			q1 = np
		}
		if zs[wk] == nil {
			zs[wk] = getScratch((band + 2*pad) * g.W * n)
		}
		z := zs[wk][:(q1-q0)*n]
		xs := x[s*np*g.Cin:]
		GemmPacked(false, q1-q0, xs[q0*g.Cin:], g.Cin, pw, 0, z, n)
		os := out[s*np*ldo+off:]
		for i := i0; i < i1; i++ {
			j0 := 0
			if g.Packed {
				j0 = i
			}
			for j := j0; j < g.W; j++ {
				o := os[(g.rowStart(i)+j-j0)*ldo:][:g.Cout]
				if bias != nil {
					copy(o, bias)
				} else {
					clear(o)
				}
				g.gatherPixel(addRows, o, z, i, j, q0, n)
			}
		}
	})
}

// gatherPixel adds to o the Z entries of output pixel (i, j):
//
//	o[f] += Z[(i+a-pad, j+b-pad) - q0, (a*k+b)*Cout + f]  for the (a, b) inside the map
//
// where the pixel index is row-major (dense) or packed (TriSym) and q0 is
// the index of Z's first pixel. Consecutive b step through Z by n + Cout.
func (g ConvGeom) gatherPixel(addRows addRowsFunc, o, z []float32, i, j, q0, n int) {
	pad, cout := g.K/2, g.Cout
	b0, b1 := max(0, pad-j), min(g.K, g.W-j+pad)
	step := n + cout
	for a := 0; a < g.K; a++ {
		p := i + a - pad
		if p < 0 || p >= g.H {
			continue
		}
		bu := b0 // b < bu: q < p, mirrored (packed only)
		var zrow int
		if g.Packed {
			bu = min(max(b0, p-j+pad), b1)
			for b := b0; b < bu; b++ {
				q := j + b - pad
				zi := TriSym(g.H, p, q) - q0
				addRows(o, z[zi*n+(a*g.K+b)*cout:], 0, 1)
			}
			zrow = Tri(g.H, p, p) - p // + q: packed index of (p, q >= p)
		} else {
			zrow = p * g.W
		}
		if bu >= b1 {
			continue
		}
		base := (zrow+j+bu-pad-q0)*n + (a*g.K+bu)*cout
		addRows(o, z[base:], step, b1-bu)
	}
}

// ConvBackward computes both gradients of ConvForward from one im2col of
// dy per tile: the input gradient
//
//	dx[b,i,j,c] = sum_{a,b',f} dy[b, i-a+pad, j-b'+pad, f] * w[((a*k+b')*Cin + c)*Cout + f]
//
// on the stored pixels, and adds the kernel and bias gradients of
// ConvWeightGrad to dw and db (db may be nil). On a packed map, and
// wherever the pass folds a symmetric kernel's position pairs
// (g.SymKernel and FoldsPairs), the kernel gradient V it adds differs from
// ConvWeightGrad's U position by position, but V[a,b] + V[b,a] = U[a,b] +
// U[b,a], which is all a spatially symmetric kernel uses (see scnn's
// SymPresConv); on a packed map that is the full map's gradient. With
// Cout much smaller than Cin this copies k*k*Cout values per pixel
// instead of the k*k*Cin of ConvWeightGrad's im2col of x. dx is
// overwritten.
//
// Derivation: with Y = im2col(dy), Y[q, (a,b), f] = dy[q + (a-pad, b-pad), f],
// dx = Y * flip(w) (the transposed convolution), and
// dw[flip(a,b)] = sum_q x[q]^T Y[q, (a,b)], since x[q + (a'-pad, b'-pad)]
// dy[q] summed over q equals x[q] dy[q - (a'-pad, b'-pad)] summed over q.
//
// Narrow layers go by kernel rows instead (rowback.go: useRows). The
// others go per tile of output pixels: the im2col of dy (folded into
// its position pairs where the pass folds, im2colFolded), the dx GEMM, then
// the halving of a packed map's diagonal rows (halveDyRows), then the
// kernel-gradient GEMM, each worker summing its own kernel gradient
// (added in worker order, addFlippedGrad); ConvBackwardBranches does this
// for one or more branches.
func ConvBackward(g ConvGeom, dx, dw, db, x, dy, w []float32) {
	ConvBackwardBranches([]ConvGeom{g}, dx, [][]float32{dw}, [][]float32{db}, x, [][]float32{dy}, [][]float32{w})
}

// halveDyRows adds the bias gradient of one tile of output pixels p0..
// (rows of d, Cout channels each) to db, in row order. On a packed map it
// also halves the tile's diagonal rows of the im2col of dy (col, rows of
// n; the input gradient, computed before, no longer needs them) and of
// the bias sum: each run of off-diagonal rows is summed into db by
// AddRuns, each diagonal row halved.
func halveDyRows(g ConvGeom, col []float32, n int, d, db []float32, p0, rows int) {
	if !g.Packed {
		AddRuns(db, d, g.Cout, rows, 0, g.Cout) // db[f] += d[r, f], r in order
		return
	}
	i, j := TriPos(g.H, p0)
	for r := 0; r < rows; {
		if i == j {
			row := col[r*n : (r+1)*n]
			for k := range row {
				row[k] *= 0.5
			}
			for f, v := range d[r*g.Cout : (r+1)*g.Cout] {
				db[f] += 0.5 * v
			}
			r, j = r+1, j+1
		} else {
			run := min(rows-r, g.H-j) // the rest of row i, off the diagonal
			AddRuns(db, d[r*g.Cout:], g.Cout, run, 0, g.Cout)
			r, j = r+run, j+run
		}
		if j == g.H {
			i++
			j = i
		}
	}
}

// addFlippedGrad adds one worker's sums to the kernel and bias gradients:
// gw holds a Cout x Cin block for each kernel position (a, b) of the
// im2col of dy, in the order of pos (dyPositions' for the tile method),
// and the block of (a, b) is the gradient of the flipped position
// (k-1-a, k-1-b):
//
//	dw[((k-1-a)*k + k-1-b)*Cin + c, f] += gw[(s*Cout + f)*Cin + c]   ((a, b) = pos[s])
//	db[f]                              += wdb[f]   (db may be nil)
//
// A folded pass's block of the pair (a, b), a <= b, sums the gradients of
// both flipped positions, and goes to the first, on or below the
// diagonal.
func addFlippedGrad(dw, db, gw, wdb []float32, g ConvGeom, pos [][2]int) {
	k := g.K
	for s, p := range pos {
		fp := (k-1-p[0])*k + k - 1 - p[1]
		for f := 0; f < g.Cout; f++ {
			src := gw[(s*g.Cout+f)*g.Cin : (s*g.Cout+f+1)*g.Cin]
			for c, v := range src {
				dw[(fp*g.Cin+c)*g.Cout+f] += v
			}
		}
	}
	if db != nil {
		for f, v := range wdb {
			db[f] += v
		}
	}
}
