package potts

import "unsafe"

// The two inner loops of the objective, on rows of q = 21 states held in
// lanes = 24 lanes (the vector kernels work on 3 x 8 doubles); lanes
// 21-23 of every row are padding, 0 in the couplings.
//
// gatherRows adds, for every column j, the coupling row of column j's
// state in sequence s to the energies of column i:
//
//	for k, o := range off {
//		for a := 0; a < q; a++ {
//			e[a] += float64(jt[o+a])
//		}
//	}
//
// one lane at a time, in k's order, so that every kernel set gives the
// same sums, bit for bit. scatterRows is its transpose for the gradient:
//
//	for _, o := range off {
//		for a := 0; a < q; a++ {
//			g[o+a] += r[a]
//		}
//	}
//
// The vector kernels read and write all 24 lanes of a row: lanes 21-23
// of e are left undefined, and r[21:24] must be 0.

const (
	lanes = 24
	qp    = q * lanes // floats of a block of couplings, 21 padded rows
)

// gatherRows and scatterRows are the kernels of this CPU: the Go loops
// above, AVX2 or AVX-512 (rows_amd64.go).
var (
	gatherRows  = gatherRowsGo
	scatterRows = scatterRowsGo
)

func gatherRowsGo(e *[lanes]float64, jt []float32, off []int32) {
	for _, o := range off {
		row := jt[o : o+q]
		for a, v := range row {
			e[a] += float64(v)
		}
	}
}

func scatterRowsGo(g []float64, off []int32, r *[lanes]float64) {
	for _, o := range off {
		row := g[o : o+q]
		for a := range row {
			row[a] += r[a]
		}
	}
}

// checkRows panics unless every row of off, with its scratch lanes, lies
// within n elements (a programmer error: the offsets are built by
// newProblem).
func checkRows(off []int32, n int) {
	if len(off) == 0 {
		return
	}
	// A sequence's offsets increase by column: the last is the largest.
	if o := int(off[len(off)-1]); o < 0 || o+lanes > n {
		panic("potts: row offset out of range")
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
	gather  func(e *[lanes]float64, jt []float32, off []int32)
	scatter func(g []float64, off []int32, r *[lanes]float64)
}
