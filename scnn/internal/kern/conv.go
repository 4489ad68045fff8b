package kern

// ConvGeom describes a stride-1 "same" convolution over a batch of maps.
// With Packed set the maps are symmetric L x L maps (H = W = L) stored as
// packed upper triangles, and only the output pixels i <= j are computed.
type ConvGeom struct {
	Packed     bool
	B, H, W    int // batch and map size
	Cin, Cout  int // channels
	K          int // odd kernel size
	Workers    int // goroutines; 0 means GOMAXPROCS
	TilePixels int // output pixels per GEMM of the im2col methods (set: they run, not the kernel rows); 0 picks one from the kernel size
	// SymKernel says that the kernel is spatially symmetric, w[(a,b)] =
	// w[(b,a)] (an spConv's tied kernel). Where FoldsPairs allows it,
	// ConvBackward then multiplies the output gradient's k(k+1)/2
	// position pairs instead of its k*k positions (see fold.go), and
	// the kernel gradient it adds is one V with V[a,b] + V[b,a] equal to
	// the full gradient's, as on a packed map. On a packed map the
	// direct forward pass likewise takes each pair a < b as one tap on
	// the sum of its two inputs (convForwardDirectBranches); the other
	// forward methods do not read it.
	SymKernel bool
}

// Pixels is the number of stored pixels per sample: H*W, or L(L+1)/2 packed.
func (g ConvGeom) Pixels() int {
	if g.Packed {
		return TriSize(g.H)
	}
	return g.H * g.W
}

// Rows is the im2col row length k*k*Cin.
func (g ConvGeom) Rows() int { return g.K * g.K * g.Cin }

func (g ConvGeom) tile() int {
	if g.TilePixels > 0 {
		return g.TilePixels
	}
	// Up to 1,024 pixels (and at most 4M floats) of im2col per worker.
	// With the Go sgemm, tiles of 1/16 and 1/8 of that ran within noise
	// of it, 1/32 and 1/64 slower (BenchmarkConvForwardBackward). The
	// backward pass aims lower (backwardTile).
	t := (4 << 20) / g.Rows()
	return min(max(t, 64), 1024)
}

// backwardTileFloats is the im2col tile of dy that backwardTile aims at,
// in floats: 512 KB, so that the tile stays in a core's second-level
// cache between the im2col that writes it and the two GEMMs that read
// it. Before backwardTileFloats the backward pass took tile's 1,024 pixels for
// every layer narrower than 4,096 floats a row: 1.4 MB for the RNA
// recipe's folded 9x9 layer, 3.9 and 6.6 MB for a 5x5 64 -> 64 one
// folded and dense.
// BenchmarkConvBackwardTile compares aims of 256, 512 and 768 KB with
// that. In one run (-benchtime 15x), at 512 KB the 9x9
// 31 -> 8 spConv ran 1.23x, the 64 -> 64 layers 1.13-1.39x, the 5x5
// 31 -> 8 and 7x7 86 -> 8 spConvs 0.99x and 0.96x (1.00x in an earlier
// run: noise); at 256 KB the 5x5 64 -> 64 layers ran faster still
// (1.37x, 1.59x), but the 9x9 spConv 1.12x and the 5x5 31 -> 8 one
// 0.97x (0.93x and 0.96x in two earlier runs).
var backwardTileFloats = 1 << 17

// tileFloatsOld is the aim of the backward pass's tiles before
// backwardTileFloats (tile's), for BenchmarkConvBackwardTile.
const tileFloatsOld = 4 << 20

// backwardTile is the number of output pixels per tile of the backward
// pass's im2col method for an im2col row of n floats: TilePixels where
// set, else backwardTileFloats/n pixels, at least 64 and at most 1,024.
func (g ConvGeom) backwardTile(n int) int {
	if g.TilePixels > 0 {
		return g.TilePixels
	}
	return min(max(backwardTileFloats/n, 64), 1024)
}

func (g ConvGeom) im2col(col, x []float32, pix0, n int) {
	if g.Packed {
		Im2colPacked(col, x, g.H, g.Cin, g.K, pix0, n)
	} else {
		Im2colDense(col, x, g.H, g.W, g.Cin, g.K, pix0, n)
	}
}

// forIm2colTiles calls fn(b, p0, n, col) for every tile of n stored output
// pixels p0.. of sample b, in parallel, with col the tile's im2col of x
// (n rows of k*k*Cin), in a buffer owned by the calling worker.
func (g ConvGeom) forIm2colTiles(x []float32, fn func(b, p0, n int, col []float32)) {
	np, kk, t := g.Pixels(), g.Rows(), g.tile()
	tiles := (np + t - 1) / t
	workers := Workers(g.Workers)
	cols := make([][]float32, workers)
	defer putScratch(cols...)
	ParallelFor(g.B*tiles, workers, func(wk, item int) {
		if cols[wk] == nil {
			cols[wk] = getScratch(t * kk)
		}
		b, p0 := item/tiles, (item%tiles)*t
		n := min(t, np-p0)
		col := cols[wk][:n*kk]
		g.im2col(col, x[b*np*g.Cin:(b+1)*np*g.Cin], p0, n)
		fn(b, p0, n, col)
	})
}

// ConvForward computes, for every sample b and stored output pixel (i, j),
//
//	out[b,i,j,f] = bias[f] + sum_{a,b',c} x[b, i+a-pad, j+b'-pad, c] * w[((a*k+b')*Cin + c)*Cout + f]
//
// with x read as zero outside the map. w is the (k*k*Cin) x Cout kernel
// matrix; bias may be nil. Work is split over (sample, tile) items.
//
// Narrow layers use the direct method (see UseDirect and
// convForwardDirect), other layers with Cout much smaller than Cin the
// output-side method (convForwardOut); the rest with kernels of 3x3 and
// up the GEMM on kernel rows (convForwardRows), or with another backend,
// bfloat16 or TilePixels set, like 1x1 kernels, im2col and sgemm per
// tile.
func ConvForward(g ConvGeom, out, x, w, bias []float32) {
	ConvForwardStrided(g, out, g.Cout, 0, x, w, bias)
}

// ConvForwardStrided is ConvForward writing output pixel p's channels to
// out[p*ldo+off : p*ldo+off+Cout] (ldo >= off+Cout): one branch's channels
// of a wider map, without a copy.
func ConvForwardStrided(g ConvGeom, out []float32, ldo, off int, x, w, bias []float32) {
	if g.UseDirect() {
		convForwardDirect(g, out, ldo, off, x, w, bias)
		return
	}
	if g.UseOutputSide() {
		convForwardOut(g, out, ldo, off, x, w, bias)
		return
	}
	if useFwdRows(g) {
		convForwardRows(g, []int{g.K}, []int{g.Cout}, out, ldo, off, x, [][]float32{w}, [][]float32{bias})
		return
	}
	kk := g.Rows()
	pw := PackB(false, kk, g.Cout, 1, w, g.Cout) // one packing for every tile
	defer pw.Release()
	g.forIm2colTiles(x, func(b, p0, n int, col []float32) {
		o := out[(b*g.Pixels()+p0)*ldo+off:]
		beta := float32(0)
		if bias != nil {
			for r := 0; r < n; r++ {
				copy(o[r*ldo:r*ldo+g.Cout], bias)
			}
			beta = 1
		}
		gemmPackedOwnA(n, col, kk, pw, beta, o, ldo)
	})
}

// ConvWeightGrad accumulates the kernel and bias gradients of ConvForward
// given the output gradient dy:
//
//	dw[(a*k+b')*Cin + c, f] += sum_{b,i,j} s(i,j) * x[b, i+a-pad, j+b'-pad, c] * dy[b,i,j,f]
//	db[f]                   += sum_{b,i,j} s(i,j) * dy[b,i,j,f]
//
// over stored pixels, with s = 1, except s(i,i) = 1/2 on the diagonal of a
// packed map. For a packed map this sum U is the upper-triangle half: the
// full-map gradient is U[a,b'] + U[b',a] (see scnn's SymPresConv). db may be
// nil. Each worker accumulates privately and the results are added in
// worker order, so the sum is deterministic for a given worker count.
//
// Layers of at most 8 input and output channels go by the direct method
// (directbwd.go: useDirectWeightGrad), whose sums agree to rounding.
func ConvWeightGrad(g ConvGeom, dw, db, x, dy []float32) {
	if g.useDirectWeightGrad() {
		convWeightGradDirect(g, dw, db, x, dy)
		return
	}
	np, kk, t := g.Pixels(), g.Rows(), g.tile()
	tiles := (np + t - 1) / t
	workers := min(Workers(g.Workers), g.B*tiles)
	type acc struct{ col, dyt, dw, db []float32 }
	accs := make([]acc, workers)
	defer func() {
		for _, a := range accs {
			putScratch(a.col)
		}
	}()
	ParallelFor(g.B*tiles, workers, func(wk, item int) {
		a := &accs[wk]
		if a.col == nil {
			a.col = getScratch(t * kk)
			a.dw = make([]float32, kk*g.Cout)
			a.db = make([]float32, g.Cout)
			if g.Packed {
				a.dyt = make([]float32, t*g.Cout)
			}
		}
		b, p0 := item/tiles, (item%tiles)*t
		n := min(t, np-p0)
		col := a.col[:n*kk]
		g.im2col(col, x[b*np*g.Cin:(b+1)*np*g.Cin], p0, n)
		d := dy[(b*np+p0)*g.Cout : (b*np+p0+n)*g.Cout]
		if g.Packed {
			d = halveDiagonal(a.dyt[:n*g.Cout], d, g.H, g.Cout, p0, n)
		}
		gemmOwnATrans(kk, g.Cout, n, 1, col, kk, d, g.Cout, 1, a.dw, g.Cout)
		AddRuns(a.db, d, g.Cout, n, 0, g.Cout) // db[f] += d[r, f], r in order
	})
	for _, a := range accs {
		if a.dw == nil {
			continue
		}
		for i, v := range a.dw {
			dw[i] += v
		}
		if db != nil {
			for i, v := range a.db {
				db[i] += v
			}
		}
	}
}

// halveDiagonal copies the n packed rows src (starting at packed pixel p0 of
// an L x L map, C channels each) to dst, halving the rows with i == j.
func halveDiagonal(dst, src []float32, l, c, p0, n int) []float32 {
	copy(dst, src)
	i, j := TriPos(l, p0)
	for r := 0; r < n; r++ {
		if i == j {
			row := dst[r*c : (r+1)*c]
			for f := range row {
				row[f] *= 0.5
			}
		}
		if j++; j == l {
			i++
			j = i
		}
	}
	return dst
}

// FlipKernel writes the kernel matrix of the input-gradient convolution:
//
//	dst[((a*k+b)*Cout + f)*Cin + c] = w[(((k-1-a)*k + k-1-b)*Cin + c)*Cout + f]
//
// so that dx = ConvForward(dy, dst) with Cin and Cout swapped.
func FlipKernel(dst, w []float32, k, cin, cout int) {
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			src := w[((k-1-a)*k+k-1-b)*cin*cout:]
			d := dst[(a*k+b)*cout*cin:]
			for c := 0; c < cin; c++ {
				for f := 0; f < cout; f++ {
					d[f*cin+c] = src[c*cout+f]
				}
			}
		}
	}
}

// ConvForwardBranches computes len(ks) convolutions of one input x side by
// side: channels [off_b, off_b + couts[b]) of every output pixel of out
// (sum(couts) channels per pixel) are ConvForward of x with kernel size
// ks[b], kernel matrix ws[b] and bias bs[b] (nil: none). g gives the batch,
// map, Cin, layout and workers; its K and Cout are ignored.
//
// Where every branch takes the direct method (UseDirect), they share its
// row buffers (convForwardDirectBranches); otherwise, with the Go
// kernels in float32, the window rows of convForwardRows. Else one im2col of the
// largest kernel per tile serves every branch: the
// k x k window of a smaller kernel is, in the im2col row of the largest
// one (kmax), k runs of k*Cin values, one per kernel row, kmax*Cin apart;
// each run is one GEMM with K = k*Cin accumulating into the branch's
// channels (a branch of the largest size is one GEMM).
func ConvForwardBranches(g ConvGeom, ks, couts []int, out, x []float32, ws, bs [][]float32) {
	kmax, ctot := 0, 0
	for b, k := range ks {
		kmax = max(kmax, k)
		ctot += couts[b]
	}
	g.K, g.Cout = kmax, ctot
	if g.branchesDirect(ks, couts) {
		brs := make([]directBranch, len(ks))
		off := 0
		for b, k := range ks {
			brs[b] = directBranch{k: k, cout: couts[b], off: off, w: ws[b], bias: bs[b]}
			off += couts[b]
		}
		convForwardDirectBranches(g, out, ctot, x, brs)
		return
	}
	if useFwdRows(g) {
		convForwardRows(g, ks, couts, out, ctot, 0, x, ws, bs)
		return
	}
	np, kk := g.Pixels(), g.Rows()
	// The kernel matrices, packed once for every tile: a branch of the
	// largest size whole, a smaller one kernel row by kernel row.
	packed := make([][]*PackedB, len(ks))
	for b, k := range ks {
		if k == kmax {
			packed[b] = []*PackedB{PackB(false, kk, couts[b], 1, ws[b], couts[b])}
			continue
		}
		for a := 0; a < k; a++ {
			packed[b] = append(packed[b], PackB(false, k*g.Cin, couts[b], 1, ws[b][a*k*g.Cin*couts[b]:], couts[b]))
		}
	}
	defer func() {
		for _, ps := range packed {
			for _, p := range ps {
				p.Release()
			}
		}
	}()
	g.forIm2colTiles(x, func(s, p0, n int, col []float32) {
		o := out[(s*np+p0)*ctot : (s*np+p0+n)*ctot]
		off := 0
		for b, k := range ks {
			cout := couts[b]
			beta := float32(0)
			if bs[b] != nil {
				for r := 0; r < n; r++ {
					copy(o[r*ctot+off:r*ctot+off+cout], bs[b])
				}
				beta = 1
			}
			if k == kmax {
				gemmPackedOwnA(n, col, kk, packed[b][0], beta, o[off:], ctot)
			} else {
				d := (kmax - k) / 2 // the small window starts at row d, column d of the large one
				for a := 0; a < k; a++ {
					gemmPackedOwnA(n, col[((a+d)*kmax+d)*g.Cin:], kk, packed[b][a], beta, o[off:], ctot)
					beta = 1
				}
			}
			off += cout
		}
	})
}

// branchesDirect reports whether every branch of ConvForwardBranches, of
// kernel ks[b] and couts[b] channels on g's input, takes the direct method.
func (g ConvGeom) branchesDirect(ks, couts []int) bool {
	for b, k := range ks {
		gb := g
		gb.K, gb.Cout = k, couts[b]
		if !gb.UseDirect() {
			return false
		}
	}
	return true
}
