package kern

// The folded im2col of a spatially symmetric kernel's output gradient
// (ConvGeom.SymKernel): each output pixel's row holds, for the k(k+1)/2
// position pairs (a, b), a <= b, numbered row by row (s = 0 for (0, 0),
// then (0, 1) .. (0, k-1), (1, 1), ...), c channels of
//
//	x(i+a-pad, j+b-pad) + x(i+b-pad, j+a-pad)   (a < b)
//	x(i+a-pad, j+a-pad)                          (a == b)
//
// with x zero outside the map (each zero a +0 in the sum) and a packed
// map's (p, q), q < p, read as (q, p): the im2col row's two positions of
// a pair summed in one float32 addition, the first position's value
// first. A kernel with w[(a,b)] = w[(b,a)] multiplies both terms of a
// pair by the same weights, so the input gradient is the folded rows
// times the pairs' kernel (foldedKernel), and the kernel gradient of a
// pair is what the two positions' gradients sum to: k(k+1)/2 positions'
// work instead of k*k.
//
// Each row is written pixel by pixel, all its pairs at once, from a list
// of operations (foldOp) that name the two places per pair: the row is
// written once, in order, while it is in the first-level cache. The
// places are in copies of the window's map rows, padded and with a
// packed map's mirrored pixels filled in (im2colFolded), where every
// place moves by one pixel, c floats, per pixel, so one list serves an
// output row.

// foldNone as a foldOp's b: the pair is a diagonal one, (a, a), with no
// second term; foldZero as a or b: that term lies outside the map, +0.
const (
	foldNone = -2
	foldZero = -1
)

// A foldOp is one pair of a folded im2col row: for the t-th pixel of a
// run, c floats
//
//	dst[t*nd + d + f] = x[a + t*c + f] + x[b + t*c + f]
//
// a or b foldZero: that term +0; b foldNone: dst = the first term alone.
// The layout is fold_amd64.s's.
type foldOp struct{ d, a, b, _ int32 }

// foldRows writes m folded im2col rows, nd floats apart in dst, of
// pixels one after another along a map row (foldOp), c channels each.
// zero holds max(c, 32) zeros. dst must not overlap x or zero (the
// AVX-512 kernel reads four pixels' places before it writes their rows).
// It checks every place the operations name.
func foldRows(dst []float32, nd int, x, zero []float32, ops []foldOp, m, c int) {
	if m <= 0 || len(ops) == 0 {
		return
	}
	if c < 1 || len(zero) < max(c, 32) || len(dst) < (m-1)*nd+nd {
		panic("kern: foldRows: slices too short")
	}
	// A place moves by (m-1)*c over the run; its last c floats must lie
	// in x.
	inX := func(o int32) bool {
		return o >= 0 && int64(o)+int64(m)*int64(c) <= int64(len(x))
	}
	for _, op := range ops {
		if op.d < 0 || int(op.d)+c > nd {
			panic("kern: foldRows: pair outside the row")
		}
		if op.a != foldZero && !inX(op.a) || op.b != foldZero && op.b != foldNone && !inX(op.b) {
			panic("kern: foldRows: place outside x")
		}
	}
	foldRowsUnchecked(dst, nd, x, zero, ops, m, c)
}

// foldRowsUnchecked is foldRows for a caller that has checked every
// place (im2colFolded, whose places lie in its window rows by
// construction).
func foldRowsUnchecked(dst []float32, nd int, x, zero []float32, ops []foldOp, m, c int) {
	if f := activeSet.Load().foldRows; f != nil {
		f(dst, nd, x, zero, ops, m, c)
		return
	}
	foldRowsGo(dst, nd, x, zero, ops, m, c)
}

// foldRowsGo is the portable foldRows (the places checked).
func foldRowsGo(dst []float32, nd int, x, zero []float32, ops []foldOp, m, c int) {
	for t := 0; t < m; t++ {
		row := dst[t*nd : t*nd+nd]
		for _, op := range ops {
			d := row[op.d : int(op.d)+c]
			xa := zero[:c]
			if op.a != foldZero {
				xa = x[int(op.a)+t*c : int(op.a)+t*c+c]
			}
			if op.b == foldNone {
				copy(d, xa)
				continue
			}
			xb := zero[:c]
			if op.b != foldZero {
				xb = x[int(op.b)+t*c : int(op.b)+t*c+c]
			}
			for f := range d {
				d[f] = xa[f] + xb[f]
			}
		}
	}
}

// im2colFolded writes the folded im2col of x for the output pixels
// pix0..pix0+n-1 (n rows of k(k+1)/2 position pairs of g.Cin channels).
// The pixels of each output row are folded from copies of its window's
// k map rows (windowRow): full width, pad zero pixels at either end, a
// packed map's mirrored places filled in, a row outside the map all
// zeros. In those copies every place moves by c floats a pixel, so one
// list of operations serves the whole row; the copies sit in a ring of
// k+1 slots (the last one zero), so each map row is copied about once.
func (g ConvGeom) im2colFolded(col, x []float32, pix0, n int) {
	k, c, pad, w := g.K, g.Cin, g.K/2, g.W
	nd := k * (k + 1) / 2 * c
	if n <= 0 {
		return
	}
	if len(x) < g.Pixels()*c || len(col) < n*nd || pix0 < 0 || pix0+n > g.Pixels() {
		panic("kern: im2colFolded: slices too short")
	}
	var i, j int
	if g.Packed {
		i, j = TriPos(g.H, pix0)
	} else {
		i, j = pix0/w, pix0%w
	}
	ldr := (w + 2*pad) * c // a slot's floats
	ring := getScratch((k + 1) * ldr)
	defer putScratch(ring)
	clear(ring[k*ldr:]) // the zero slot
	// held: the map row in each slot (-1: none); slot: window row u's
	// slot (arrays for the kernels up to 15, directMaxK). ops and zero go
	// to the kernel by a function value, so they live on the heap
	// whatever their declaration.
	var heldA, slotA [16]int
	held, slot := heldA[:], slotA[:]
	if k > len(heldA) {
		held, slot = make([]int, k), make([]int, k)
	}
	held, slot = held[:k], slot[:k]
	ops := make([]foldOp, k*(k+1)/2)
	zero := make([]float32, max(c, 32)) // foldRows' contract; no place is foldZero
	for s := range held {
		held[s] = -1
	}
	for r := 0; r < n; {
		for u := range k {
			p := i + u - pad
			if p < 0 || p >= g.H {
				slot[u] = k
				continue
			}
			slot[u] = p % k
			if held[p%k] != p {
				// Output row i is this copy's first reader (the rows go
				// up), and on a packed map it reads columns q >= i-pad
				// only (its pixels j >= i).
				q0 := 0
				if g.Packed {
					q0 = max(0, i-pad)
				}
				g.windowRow(ring[(p%k)*ldr:(p%k+1)*ldr], x, p, q0)
				held[p%k] = p
			}
		}
		// Pair (a, b) of pixel (i, j): window (a, b) at column j+b of
		// row a's copy, (b, a) at column j+a of row b's.
		s := 0
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				op := foldOp{d: int32(s * c), a: int32(slot[a]*ldr + (j+b)*c), b: foldNone}
				if b > a {
					op.b = int32(slot[b]*ldr + (j+a)*c)
				}
				ops[s] = op
				s++
			}
		}
		m := min(n-r, w-j)
		foldRowsUnchecked(col[r*nd:(r+m)*nd], nd, ring, zero, ops, m, c)
		r += m
		i++
		j = 0
		if g.Packed {
			j = i
		}
	}
}

// windowRow writes map row p of x (one sample, g.Cin channels) into
// dst, g.W+2*pad pixels: pad zero pixels, the row's W pixels (a packed
// map's (p, q), q < p, read as (q, p)), pad zero pixels; on a packed map
// it leaves the pixels q < q0 of the row as they were (its readers don't
// read them).
func (g ConvGeom) windowRow(dst, x []float32, p, q0 int) {
	c, pad, w := g.Cin, g.K/2, g.W
	clear(dst[:pad*c])
	clear(dst[(pad+w)*c:])
	row := dst[pad*c : (pad+w)*c]
	if !g.Packed {
		copy(row, x[p*w*c:(p+1)*w*c])
		return
	}
	// (q, p) for q0 <= q < p: the pixels from (q0, q0) on are the packed
	// (w-q0) x (w-q0) triangle of the rows and columns from q0, so that
	// (q, p) is its (q-q0, p-q0): Tri(w-q0, q-q0, p-q0) = p-q0 for
	// q = q0, then w-q-1 pixels further for each next q (a memmove call
	// for 16 or 32 bytes cost more than the copy: the kernel set's
	// mirrorColumn where it has one).
	if q0 < p {
		sub := x[Tri(w, q0, q0)*c:]
		if f := activeSet.Load().mirrorColumn; f != nil && c <= 16 {
			f(row[q0*c:], sub, p-q0, w-q0, c)
		} else {
			o := (p - q0) * c
			for q := q0; q < p; q++ {
				copy(row[q*c:(q+1)*c], sub[o:o+c])
				o += (w - q - 1) * c
			}
		}
	}
	o := Tri(w, p, p) * c
	copy(row[p*c:], x[o:o+(w-p)*c])
}
