package kern

// ConvBackwardBranches is ConvBackward for the parallel branches of a
// block: len(gs) convolutions of one input x, with equal Packed, B, H, W,
// Cin and Workers and each its own K and Cout. It overwrites dx with the
// sum of their input gradients, in branch order,
//
//	dx = ((dx_0 + dx_1) + dx_2) + ...
//
// and adds each branch's kernel and bias gradients to dws[i] and dbs[i]
// (a dbs[i] may be nil); dys[i] and ws[i] are branch i's output gradient
// and kernel. Every value is bit for bit what ConvBackward per branch
// (with TilePixels set to the branches' shared tile, below, where they
// go by tiles) and the elementwise sums in that order give. Per tile of
// output pixels the branches run one after another: x's tile is packed
// once for every branch's kernel gradient (or used in place, where it is
// one panel of the GEMM kernel wide), and each later branch's input
// gradient is added to the first's while the tile is in cache, instead
// of through a map-sized gradient per branch.
//
// ConvBackward is this with one branch. Narrow branches go by kernel
// rows instead of tiles (rowback.go), all of them or, where only some
// would, each by ConvBackward. The branches share one tile of output
// pixels (sharedTile: the smallest of their own), and each gives what
// ConvBackward with TilePixels set to it gives; where their TilePixels
// differ it calls ConvBackward per branch and adds.
func ConvBackwardBranches(gs []ConvGeom, dx []float32, dws, dbs [][]float32, x []float32, dys, ws [][]float32) {
	if len(gs) == 0 || len(dws) != len(gs) || len(dbs) != len(gs) || len(dys) != len(gs) || len(ws) != len(gs) {
		panic("kern: ConvBackwardBranches: branch counts differ")
	}
	g0 := gs[0]
	for _, g := range gs {
		if g.Packed != g0.Packed || g.B != g0.B || g.H != g0.H || g.W != g0.W || g.Cin != g0.Cin || g.Workers != g0.Workers {
			panic("kern: ConvBackwardBranches: the branches' geometries differ")
		}
	}
	if useRows(gs) {
		convBackwardRows(gs, dx, dws, dbs, x, dys, ws)
		return
	}
	t := sharedTile(gs)
	if t < 0 {
		convBackwardEach(gs, dx, dws, dbs, x, dys, ws)
		return
	}
	np, cin := g0.Pixels(), g0.Cin
	ns := make([]int, len(gs)) // im2col row length of each branch's dy (folded: pairs)
	maxN := 0
	pfs := make([]*PackedB, len(gs))
	for i, g := range gs {
		ns[i] = len(g.dyPositions()) * g.Cout
		flip := make([]float32, len(ws[i]))
		FlipKernel(flip, ws[i], g.K, g.Cin, g.Cout)
		if g.foldsPairs() {
			flip = foldedKernel(flip, g, g.Cout*cin)
		}
		maxN = max(maxN, ns[i])
		pfs[i] = PackB(false, ns[i], cin, 1, flip, cin)
		defer pfs[i].Release()
	}
	tiles := (np + t - 1) / t
	workers := min(Workers(g0.Workers), g0.B*tiles)
	// The shared packing of x's tile is sgemmPacked's own; with another
	// backend or bfloat16 each branch goes through gemmOwnATrans.
	shareX := backend == "go" && bf16Active.Load() == nil
	type acc struct {
		col, tmp []float32
		gw, db   [][]float32
	}
	accs := make([]acc, workers)
	defer func() {
		for _, a := range accs {
			putScratch(a.col, a.tmp)
		}
	}()
	ParallelFor(g0.B*tiles, workers, func(wk, item int) {
		a := &accs[wk]
		if a.col == nil {
			a.col = getScratch(t * maxN)
			if len(gs) > 1 {
				a.tmp = getScratch(t * cin)
			}
			a.gw, a.db = make([][]float32, len(gs)), make([][]float32, len(gs))
			for i, g := range gs {
				a.gw[i] = make([]float32, cin*ns[i])
				a.db[i] = make([]float32, g.Cout)
			}
		}
		s, p0 := item/tiles, (item%tiles)*t
		rows := min(t, np-p0)
		dxt := dx[(s*np+p0)*cin : (s*np+p0+rows)*cin]
		xt := x[(s*np+p0)*cin : (s*np+p0+rows)*cin]
		var px *goPackedB
		if shareX {
			if mk := activeSet.Load().pick(cin); mk.nr == cin {
				// x's tile is its own packing: one panel of nr columns,
				// its chunks of sgemmKC rows one after another (packB).
				px = &goPackedB{bp: xt, k: rows, n: cin, mk: mk}
			} else {
				px = packGo(false, rows, cin, 1, xt, cin)
				defer putScratch(px.bp)
			}
		}
		for i, g := range gs {
			gy := g
			gy.Cin, gy.Cout = g.Cout, g.Cin
			n := ns[i]
			col := a.col[:rows*n]
			dyi := dys[i][s*np*g.Cout : (s+1)*np*g.Cout]
			if g.foldsPairs() {
				gy.im2colFolded(col, dyi, p0, rows)
			} else {
				gy.im2col(col, dyi, p0, rows)
			}
			if i == 0 {
				gemmPackedOwnA(rows, col, n, pfs[i], 0, dxt, cin)
			} else {
				tmp := a.tmp[:rows*cin]
				gemmPackedOwnA(rows, col, n, pfs[i], 0, tmp, cin)
				AddRuns(dxt, tmp, rows*cin, 1, 0, 0) // dxt += tmp
			}
			d := dys[i][(s*np+p0)*g.Cout : (s*np+p0+rows)*g.Cout]
			halveDyRows(g, col, n, d, a.db[i], p0, rows)
			if shareX {
				checkGemm("A", col, rows, n, n)
				checkGemm("C", a.gw[i], n, cin, cin)
				sgemmPacked(true, n, col, n, px, 1, a.gw[i], cin, true)
			} else {
				gemmOwnATrans(n, cin, rows, 1, col, n, xt, cin, 1, a.gw[i], cin)
			}
		}
	})
	for i, g := range gs {
		for _, a := range accs {
			if a.gw == nil {
				continue
			}
			addFlippedGrad(dws[i], dbs[i], a.gw[i], a.db[i], g, g.dyPositions())
		}
	}
}

// sharedTile is the tile of output pixels that the branches gs share in
// ConvBackwardBranches' tile method: the smallest of their own
// backwardTiles (of their im2col rows of dy), so that each of them is
// ConvBackward with TilePixels set to it. It is -1 where the branches go
// each by ConvBackward instead: their TilePixels differ, or one of
// several would alone go by kernel rows.
func sharedTile(gs []ConvGeom) int {
	t := 1 << 30
	for _, g := range gs {
		if g.TilePixels != gs[0].TilePixels || len(gs) > 1 && useRows([]ConvGeom{g}) {
			return -1
		}
		t = min(t, g.backwardTile(len(g.dyPositions())*g.Cout))
	}
	return t
}

// convBackwardEach is ConvBackwardBranches by one ConvBackward per branch,
// the later branches' input gradients added to the first's in order.
func convBackwardEach(gs []ConvGeom, dx []float32, dws, dbs [][]float32, x []float32, dys, ws [][]float32) {
	var tmp []float32
	for i, g := range gs {
		if i == 0 {
			ConvBackward(g, dx, dws[i], dbs[i], x, dys[i], ws[i])
			continue
		}
		if tmp == nil {
			tmp = getScratch(len(dx))
			defer putScratch(tmp)
		}
		ConvBackward(g, tmp[:len(dx)], dws[i], dbs[i], x, dys[i], ws[i])
		AddRuns(dx, tmp, len(dx), 1, 0, 0)
	}
}

// foldedKernel returns the rows of the kernel matrix w (k*k positions of
// m = Cout*Cin values) of the position pairs (a, b), a <= b, in
// foldPairs' order (dyPositions): w[(a*k+b)*m : (a*k+b+1)*m] for each.
func foldedKernel(w []float32, g ConvGeom, m int) []float32 {
	var out []float32
	for _, p := range g.dyPositions() {
		pos := p[0]*g.K + p[1]
		out = append(out, w[pos*m:(pos+1)*m]...)
	}
	return out
}

// dyPositions lists the kernel positions (a, b) of the columns of the
// backward pass's im2col of dy, in order: every position row by row, or
// where the pass folds a symmetric kernel's pairs (foldsPairs), the pairs
// a <= b row by row, as foldPairs writes them.
func (g ConvGeom) dyPositions() [][2]int {
	var ps [][2]int
	fold := g.foldsPairs()
	for a := 0; a < g.K; a++ {
		b0 := 0
		if fold {
			b0 = a
		}
		for b := b0; b < g.K; b++ {
			ps = append(ps, [2]int{a, b})
		}
	}
	return ps
}

// foldsPairs reports whether ConvBackward works on the kernel's position
// pairs: a spatially symmetric kernel (FoldsPairs).
func (g ConvGeom) foldsPairs() bool {
	return g.SymKernel && (FoldsPairs(g.K, g.Cin, g.Cout) || foldAlways && g.K > 1)
}

// foldAlways makes every SymKernel layer with k > 1 fold its position
// pairs, whatever FoldsPairs says (tests and benchmarks).
var foldAlways bool

// FoldsPairs reports whether ConvBackward folds the position pairs of a
// spatially symmetric kernel of size k from cin to cout channels (with
// ConvGeom.SymKernel): for k >= 3 with at least 4 output channels; with
// fewer, for k >= 5 with cin*cout >= 64 and k = 3 with cin*cout >= 160.
// The fold writes a folded im2col of dy (fold.go); the GEMMs it shortens
// have N = cin columns and k*k*cout rows of dy per pixel, a third
// shorter for k = 3, 40% for k = 5. The first fold (a pass per pair)
// paid only for the wider layers: on packed 100 x 100 maps, one worker,
// 9x9 31->8 1.75x, 7x7 86->8 and 5x5 31->8 about 1.4x, 3x3 86->8 and
// 5x5 31->4 about 1.1x, 3x3 16->8 1.0x. Since the fold goes pixel by
// pixel, four pixels an operation for 4 and 8 channels, it
// pays for every layer with 4 or more output channels: batch 10, two
// workers, paired (BenchmarkConvBackwardFold -benchtime 21x,
// unfolded/folded) 3x3 16->8 1.29x, 8->8 1.31x, 3->8 1.30x, 86->8
// 1.27x, 31->4 1.23x, 8->4 1.25x, 4->4 1.25x, 5x5 8->8 1.37x, 3->8
// 1.48x, 8->4 1.18x, 4->4 1.22x, 7x7 3->8 1.31x; one output channel
// goes one pixel an operation and loses (3x3 8->1 0.68x, 5x5 8->1
// 0.62x). A folding layer goes by tiles, never by kernel rows (useRows),
// so some layers that took the rows before (packed 5x5 4->4 and 8->4)
// now take the folded tiles; the unfolded side of the benchmark is what
// ConvBackward chose for them, the rows included.
func FoldsPairs(k, cin, cout int) bool {
	switch {
	case k < 3:
		return false
	case cout >= 4:
		return true
	case k >= 5:
		return cin*cout >= 64
	}
	return cin*cout >= 160
}
