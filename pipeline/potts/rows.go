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
// scatterColumn is its transpose for the gradient, one column j and one
// chunk of sequences at a time: it adds to each row of g, one per state
// b at j, the residuals of the chunk's sequences in state b (chunk 0
// sets the rows, from +0). Within a chunk the sequences come sorted by
// their state at j, stably (bounds = c.bounds[chunk*(q+1):], and
// c.perm[bounds[b]:bounds[b+1]] are those in state b, in their order),
// so that each row is summed in registers, read and written once a
// chunk:
//
//	for b := 0; b < q; b++ {
//		sum := [lanes]float64{} // +0
//		if chunk > 0 {
//			sum = g[b*lanes : (b+1)*lanes]
//		}
//		for _, o := range c.perm[bounds[b]:bounds[b+1]] {
//			for a := 0; a < lanes; a++ {
//				sum[a] += r[int(o)+a]
//			}
//		}
//		g[b*lanes : (b+1)*lanes] = sum
//	}
//
// where o = s*lanes is the offset of sequence s's residuals. The chunks
// run in order, each over every column before the next (the caller's
// loop), so each row of g gets its sequences' terms in the order of the
// sequences, from +0, as a loop over the sequences one by one adding to
// a zeroed g gives them, bit for bit, whatever the chunk size. The vector
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

// scatterChunk is the number of sequences whose residuals the scatter
// sums over every column before it goes on to the next sequences: 2,048
// rows of 24 doubles, 384 KB, stay in a 1 MB L2 cache while the columns
// read them in their orders by state. A column's residuals (3.2 MB at
// 17,000 sequences) do not, and the scatter read them from L3 at about
// twice the time (BenchmarkScatterChunk). A variable for the tests.
var scatterChunk = 2048

// column is one column's sequences sorted by state within each chunk of
// scatterChunk sequences, for scatterColumn; made by newColumn, whose
// perm holds offsets s*lanes for s < n only: the kernels check maxOff,
// not every offset.
type column struct {
	// perm holds the offsets s*lanes of the sequences' residuals,
	// chunk by chunk, by state within a chunk, in their order within a
	// state.
	perm []int32
	// bounds[c*(q+1)+b : c*(q+1)+b+1] are the indices in perm of chunk
	// c's sequences in state b.
	bounds []int32
	maxOff int32 // the largest offset in perm, negative if none
}

// chunks returns the number of chunks of c.
func (c *column) chunks() int { return len(c.bounds) / (q + 1) }

// newColumn returns the column of the states x[s] of n sequences, sorted
// within each chunk of chunk sequences by a counting sort (stable).
func newColumn(x func(s int) uint8, n int, perm []int32, chunk int) column {
	nc := max(1, (n+chunk-1)/chunk)
	c := column{perm: perm[:n], bounds: make([]int32, nc*(q+1)), maxOff: int32(n-1) * lanes}
	for k := 0; k < nc; k++ {
		lo, hi := k*chunk, min(n, (k+1)*chunk)
		count := c.bounds[k*(q+1):][:q+1]
		count[0] = int32(lo)
		for s := lo; s < hi; s++ {
			count[x(s)+1]++
		}
		for b := 0; b < q; b++ {
			count[b+1] += count[b]
		}
		var next [q]int32
		copy(next[:], count[:q])
		for s := lo; s < hi; s++ {
			b := x(s)
			c.perm[next[b]] = int32(s * lanes)
			next[b]++
		}
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

func scatterColumnGo(g []float64, c *column, chunk int, r []float64) {
	g = g[:qp]
	bounds := c.bounds[chunk*(q+1):][:q+1]
	for b := 0; b < q; b++ {
		var sum [lanes]float64
		if chunk > 0 {
			sum = *(*[lanes]float64)(g[b*lanes:])
		}
		for _, o := range c.perm[bounds[b]:bounds[b+1]] {
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

// checkColumn panics unless chunk is one of c's, its bounds are ordered
// within c's perm, and c's offsets, with their scratch lanes, lie within
// r's m elements (a programmer error).
func checkColumn(c *column, chunk, m int) {
	if chunk < 0 || chunk >= c.chunks() {
		panic("potts: column chunk out of range")
	}
	bounds := c.bounds[chunk*(q+1):][:q+1]
	if bounds[0] < 0 || int(bounds[q]) > len(c.perm) {
		panic("potts: column bounds out of range")
	}
	for b := 0; b < q; b++ {
		if bounds[b] > bounds[b+1] {
			panic("potts: column bounds out of order")
		}
	}
	if bounds[q] > bounds[0] && (c.maxOff < 0 || int(c.maxOff)+lanes > m) {
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
	scatter func(g []float64, c *column, chunk int, r []float64)
}
