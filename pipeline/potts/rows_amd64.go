//go:build amd64 && !purego

package potts

import "golang.org/x/sys/cpu"

// gatherRowsAVX512 and the others are gatherRows and scatterRows over n
// offsets in assembly (rows_amd64.s): the 24 lanes held in three ZMM
// (AVX-512) or six YMM (AVX2) registers of doubles, each row's float32
// couplings converted on load.
//
//go:noescape
func gatherRowsAVX512(e *float64, jt *float32, off *int32, n int)

//go:noescape
func scatterRowsAVX512(grad *float64, off *int32, n int, res *float64)

//go:noescape
func gatherRowsAVX2(e *float64, jt *float32, off *int32, n int)

//go:noescape
func scatterRowsAVX2(grad *float64, off *int32, n int, res *float64)

func gatherAVX512(e *[lanes]float64, jt []float32, off []int32) {
	checkRows(off, len(jt))
	if len(off) > 0 {
		gatherRowsAVX512(&e[0], &jt[0], &off[0], len(off))
	}
}

func scatterAVX512(g []float64, off []int32, r *[lanes]float64) {
	checkRows(off, len(g))
	if len(off) > 0 {
		scatterRowsAVX512(&g[0], &off[0], len(off), &r[0])
	}
}

func gatherAVX2(e *[lanes]float64, jt []float32, off []int32) {
	checkRows(off, len(jt))
	if len(off) > 0 {
		gatherRowsAVX2(&e[0], &jt[0], &off[0], len(off))
	}
}

func scatterAVX2(g []float64, off []int32, r *[lanes]float64) {
	checkRows(off, len(g))
	if len(off) > 0 {
		scatterRowsAVX2(&g[0], &off[0], len(off), &r[0])
	}
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
	return append(ks, rowKernel{"go", gatherRowsGo, scatterRowsGo})
}

func init() {
	k := rowKernels()[0]
	gatherRows, scatterRows = k.gather, k.scatter
}
