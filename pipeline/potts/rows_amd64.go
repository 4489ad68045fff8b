//go:build amd64 && !purego

package potts

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// gatherTileAVX512 and the others are gatherTile and scatterColumn in
// assembly (rows_amd64.s): a row's 24 lanes held in three ZMM (AVX-512)
// or six YMM (AVX2) registers of doubles, float32 couplings converted on
// load. n and t are at least 1.
//
//go:noescape
func gatherTileAVX512(e *float64, jt *float32, off *int32, n, t int)

//go:noescape
func scatterColumnAVX512(grad *float64, perm *int32, bounds *int32, res *float64, add int)

//go:noescape
func gatherTileAVX2(e *float64, jt *float32, off *int32, n, t int)

//go:noescape
func scatterColumnAVX2(grad *float64, perm *int32, bounds *int32, res *float64, add int)

func gatherAVX512(e []float64, jt []float32, off []int32, n, t int) {
	checkTile(off, n, t, len(jt), len(e))
	if n > 0 && t > 0 {
		gatherTileAVX512(&e[0], &jt[0], &off[0], n, t)
	}
}

func scatterAVX512(g []float64, c *column, chunk int, r []float64) {
	checkColumn(c, chunk, len(r))
	g = g[:qp]
	scatterColumnAVX512(&g[0], unsafe.SliceData(c.perm), &c.bounds[chunk*(q+1)], unsafe.SliceData(r), chunk)
}

func gatherAVX2(e []float64, jt []float32, off []int32, n, t int) {
	checkTile(off, n, t, len(jt), len(e))
	if n > 0 && t > 0 {
		gatherTileAVX2(&e[0], &jt[0], &off[0], n, t)
	}
}

func scatterAVX2(g []float64, c *column, chunk int, r []float64) {
	checkColumn(c, chunk, len(r))
	g = g[:qp]
	scatterColumnAVX2(&g[0], unsafe.SliceData(c.perm), &c.bounds[chunk*(q+1)], unsafe.SliceData(r), chunk)
}

// rowKernels lists the kernel sets this CPU runs, the default first.
func rowKernels() []rowKernel {
	var ks []rowKernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, rowKernel{"avx512", gatherAVX512, scatterAVX512})
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasAVX {
		ks = append(ks, rowKernel{"avx2", gatherAVX2, scatterAVX2})
	}
	return append(ks, rowKernel{"go", gatherTileGo, scatterColumnGo})
}

func init() {
	k := rowKernels()[0]
	gatherTile, scatterColumn = k.gather, k.scatter
}
