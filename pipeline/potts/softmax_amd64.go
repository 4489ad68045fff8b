//go:build amd64 && !purego

package potts

import "golang.org/x/sys/cpu"

// softmaxColumnAVX512 is softmaxColumnGo in assembly
// (softmax_amd64.s); n is at least 1.
//
//go:noescape
func softmaxColumnAVX512(eb *float64, xs *uint8, ws *float64, zd *float64, gh *float64, n int)

func softmaxAVX512(eb []float64, xs []uint8, ws []float64, zd []float64, gh *[lanes]float64) {
	n := len(xs)
	if n == 0 {
		return
	}
	eb, ws, zd = eb[:n*lanes], ws[:n], zd[:2*n]
	for _, x := range xs {
		if x >= q {
			panic("potts: state out of range")
		}
	}
	softmaxColumnAVX512(&eb[0], &xs[0], &ws[0], &zd[0], &gh[0], n)
}

// softmaxKernels lists the softmaxColumn kernels this CPU runs, the
// default first.
func softmaxKernels() []softmaxKernel {
	var ks []softmaxKernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, softmaxKernel{"avx512", softmaxAVX512})
	}
	return append(ks, softmaxKernel{"go", softmaxColumnGo})
}

func init() {
	softmaxColumn = softmaxKernels()[0].softmax
}
