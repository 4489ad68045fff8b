package potts

import "unsafe"

// The two inner loops of the objective, on rows of q = 21 states held in
// lanes = 24 lanes (the vector kernels work on 3 x 8 doubles); lanes
// 21-23 of every row are padding, 0 in the couplings.
//
// gatherTile runs over a tile of t columns j and all n sequences s of
// one column i, the sequences outermost, so that the tile's rows of
// couplings stay in the L1 cache while the sequences' energies stream
// through it in order. off holds the tile's row offsets column by
// column: off[k*n+s] is the row of the state of sequence s at the tile's
// k-th column. It adds, for every sequence s, the coupling rows of the
// tile's columns to the energies of s:
//
//	for s := 0; s < n; s++ {
//		for k := 0; k < t; k++ {
//			o := off[k*n+s]
//			for a := 0; a < q; a++ {
//				e[s*lanes+a] += float64(jt[o+a])
//			}
//		}
//	}
//
// one lane at a time, the columns in order, so that every kernel set and
// every tile size gives the sums of a loop over the columns one by one,
// bit for bit.
//
// scatterColumn is its transpose for the gradient, one column j at a
// time: it sets each row of g, one per state b at j, to the sum of the
// residuals of the sequences in state b. The sequences come sorted by
// their state at j, stably (c.perm[c.bounds[b]:c.bounds[b+1]] are those
// in state b, in their order), so that each row is summed in registers
// and written once, never read:
//
//	for b := 0; b < q; b++ {
//		sum := [lanes]float64{} // +0
//		for _, o := range c.perm[c.bounds[b]:c.bounds[b+1]] {
//			for a := 0; a < lanes; a++ {
//				sum[a] += r[int(o)+a]
//			}
//		}
//		g[b*lanes : (b+1)*lanes] = sum
//	}
//
// where o = s*lanes is the offset of sequence s's residuals. Each row of
// g gets its sequences' terms in the order of the sequences, from +0, as
// a loop over the sequences one by one adding to a zeroed g gives them,
// bit for bit. The vector
// kernels read and write all 24 lanes of a row: lanes 21-23 of e are
// left undefined, and those of r must be 0.

const (
	lanes = 24
	qp    = q * lanes // floats of a block of couplings, 21 padded rows
)

// gatherTileCols is the width of a gather tile in columns: its rows
// (21 rows of 24 float32, 2 KB a column) take 16 KB, half of a 32 KB L1
// data cache.
const gatherTileCols = 8

// column is one column's sequences sorted by state, for scatterColumn;
// made by newColumn, whose perm holds offsets s*lanes for s < n only:
// the kernels check maxOff, not every offset.
type column struct {
	perm   []int32 // offsets s*lanes of the sequences' residuals, by state
	bounds [q + 1]int32
	maxOff int32 // the largest offset in perm, negative if none
}

// newColumn returns the column of the states x[s] of n sequences, sorted
// by a counting sort (stable).
func newColumn(x func(s int) uint8, n int, perm []int32) column {
	var count [q + 1]int32
	for s := 0; s < n; s++ {
		count[x(s)+1]++
	}
	for b := 0; b < q; b++ {
		count[b+1] += count[b]
	}
	c := column{perm: perm[:n], bounds: count, maxOff: int32(n-1) * lanes}
	for s := 0; s < n; s++ {
		b := x(s)
		c.perm[count[b]] = int32(s * lanes)
		count[b]++
	}
	return c
}

// gatherTile and scatterColumn are the kernels of this CPU: the Go loops
// above, AVX2 or AVX-512 (rows_amd64.go).
var (
	gatherTile    = gatherTileGo
	scatterColumn = scatterColumnGo
)

func gatherTileGo(e []float64, jt []float32, off []int32, n, t int) {
	e = e[:n*lanes]
	for s := 0; s < n; s++ {
		es := (*[lanes]float64)(e[s*lanes:])
		for k := 0; k < t; k++ {
			o := off[k*n+s]
			row := jt[o : o+q]
			for a, v := range row {
				es[a] += float64(v)
			}
		}
	}
}

func scatterColumnGo(g []float64, c *column, r []float64) {
	g = g[:qp]
	for b := 0; b < q; b++ {
		var sum [lanes]float64
		for _, o := range c.perm[c.bounds[b]:c.bounds[b+1]] {
			rs := (*[lanes]float64)(r[o:])
			for a, v := range rs {
				sum[a] += v
			}
		}
		*(*[lanes]float64)(g[b*lanes:]) = sum
	}
}

// checkTile panics unless e (or r) holds n rows, off holds the tile, and
// the offsets of its first and last columns, with their scratch lanes,
// lie within m elements (a programmer error). It checks the extreme
// columns only: the offsets are built by newProblem as j*qp + b*lanes
// with b < q, so they grow with the column j, the first column holding
// the smallest and the last the largest; a full check would read every
// offset a second time.
func checkTile(off []int32, n, t, m, rows int) {
	if n <= 0 || t <= 0 {
		return
	}
	if len(off) < t*n || rows < n*lanes {
		panic("potts: tile out of range")
	}
	for _, o := range off[(t-1)*n : t*n] {
		if int(o)+lanes > m {
			panic("potts: row offset out of range")
		}
	}
	for _, o := range off[:n] {
		if o < 0 {
			panic("potts: row offset out of range")
		}
	}
}

// checkColumn panics unless c's bounds are ordered within its perm and
// its offsets, with their scratch lanes, lie within r's m elements.
func checkColumn(c *column, m int) {
	if c.bounds[0] != 0 || int(c.bounds[q]) > len(c.perm) {
		panic("potts: column bounds out of range")
	}
	for b := 0; b < q; b++ {
		if c.bounds[b] > c.bounds[b+1] {
			panic("potts: column bounds out of order")
		}
	}
	if c.bounds[q] > 0 && (c.maxOff < 0 || int(c.maxOff)+lanes > m) {
		panic("potts: residual offset out of range")
	}
}

// alignedFloat32 and alignedFloat64 return zeroed slices of n values
// that start on a 64-byte boundary, so that rows of 24 lanes never
// straddle cache lines in a vector access.
func alignedFloat32(n int) []float32 {
	s := make([]float32, n+16)
	k := int(uintptr(unsafe.Pointer(&s[0]))%64) / 4
	if k != 0 {
		k = 16 - k
	}
	return s[k : k+n : k+n]
}

func alignedFloat64(n int) []float64 {
	s := make([]float64, n+8)
	k := int(uintptr(unsafe.Pointer(&s[0]))%64) / 8
	if k != 0 {
		k = 8 - k
	}
	return s[k : k+n : k+n]
}

// rowKernel is one kernel set, for the tests and the benchmark.
type rowKernel struct {
	name    string
	gather  func(e []float64, jt []float32, off []int32, n, t int)
	scatter func(g []float64, c *column, r []float64)
}
