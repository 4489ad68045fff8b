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
// of operations (foldOp) that name the two places of x per pair: the row
// is written once, in order, while it is in the first-level cache.
// Along a run of pixels whose windows lie inside the map's columns (and,
// packed, in the stored triangle) every place moves by one pixel, c
// floats, per pixel, so one list serves the run.

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

// foldOps sets ops (k(k+1)/2 long) to the folded im2col row of pixel
// (i, j) of g's map (one sample, g.Cin channels): the offsets of its
// pairs' places in x. pos (4k long) is scratch.
func (g ConvGeom) foldOps(ops []foldOp, pos []int32, i, j int) {
	k, c, pad, w := g.K, int32(g.Cin), g.K/2, int32(g.W)
	// rows[u], cols[v]: window row u's map row i+u-pad and window column
	// v's map column j+v-pad, -1 outside the map; rs[u], cs[v]: the
	// offset in pixels of that row's (or, a packed map's mirrored place,
	// that column's) first stored pixel, less its index: dense p*W,
	// packed Tri(W, p, q) - q = p*W - p*(p-1)/2 - p for p <= q, and
	// (p, q) with q < p read as (q, p), at Tri(W, q, p) = cs[v] + p.
	rows, cols, rs, cs := pos[:k], pos[k:2*k], pos[2*k:3*k], pos[3*k:4*k]
	for u := range k {
		rows[u], cols[u] = -1, -1
		if p := i + u - pad; p >= 0 && p < g.H {
			r := int32(p)
			rows[u], rs[u] = r, r*w
			if g.Packed {
				rs[u] -= r*(r-1)/2 + r
			}
		}
		if q := j + u - pad; q >= 0 && q < g.W {
			q := int32(q)
			cols[u], cs[u] = q, q*w-q*(q-1)/2-q
		}
	}
	s := 0
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			op := foldOp{d: int32(s) * c, a: foldZero, b: foldNone}
			// The first place: window (a, b); the second: (b, a).
			if p, q := rows[a], cols[b]; p >= 0 && q >= 0 {
				if !g.Packed || p <= q {
					op.a = (rs[a] + q) * c
				} else {
					op.a = (cs[b] + p) * c
				}
			}
			if b > a {
				op.b = foldZero
				if p, q := rows[b], cols[a]; p >= 0 && q >= 0 {
					if !g.Packed || p <= q {
						op.b = (rs[b] + q) * c
					} else {
						op.b = (cs[a] + p) * c
					}
				}
			}
			ops[s] = op
			s++
		}
	}
}

// foldRows writes m folded im2col rows, nd floats apart in dst, of
// pixels one after another along a map row (foldOp), c channels each.
// zero holds max(c, 32) zeros. It checks every place the operations
// name.
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
// place (im2colFolded, whose places foldOps makes).
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
// pix0..pix0+n-1 (n rows of k(k+1)/2 position pairs of g.Cin channels):
// a run of pixels along a map row whose windows lie inside the map's
// columns (and, packed, in the stored triangle) by one list of
// operations, every other pixel, near the edges and the diagonal, by its
// own. foldOps names only stored pixels of the sample, and a run's last
// pixel's places are stored pixels too, so one check of x's and col's
// lengths covers every place.
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
	ops := make([]foldOp, k*(k+1)/2)
	pos := make([]int32, 4*k)
	zero := make([]float32, max(c, 32))
	for r := 0; r < n; {
		m := 1
		if j >= pad && j+pad < w && (!g.Packed || j >= i+k-1) {
			m = min(n-r, w-pad-j)
		}
		g.foldOps(ops, pos, i, j)
		foldRowsUnchecked(col[r*nd:(r+m)*nd], nd, x, zero, ops, m, c)
		r += m
		if j += m; j == w {
			i++
			j = 0
			if g.Packed {
				j = i
			}
		}
	}
}
