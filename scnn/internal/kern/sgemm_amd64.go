//go:build amd64 && !purego

package kern

import "golang.org/x/sys/cpu"

//go:generate go run gen_sgemm.go

// The micro-kernels of sgemm_amd64.s (see gen_sgemm.go): MR x NR blocks
// of C = A * B or C += A * B, a read at a + r*rs + p*cs, b a packed NR-column panel.

//go:noescape
func kernAVX512_6x64(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_12x32(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_24x16(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

// The same kernels for rs = 1 (gen_sgemm.go's unit shapes): the rows of
// a step are consecutive floats, addressed from one register.

//go:noescape
func kernAVX512_6x64u(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_12x32u(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_24x16u(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

// The same kernels with fewer rows, for a ragged last block of rows
// (gen_sgemm.go): the same operations a row, so the same bits.

//go:noescape
func kernAVX512_2x64(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_2x64u(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_4x64(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_4x64u(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_4x32(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_4x32u(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_8x32(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_8x32u(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_8x16(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_8x16u(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_16x16(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX512_16x16u(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernAVX2_6x16(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool)

//go:noescape
func kernAVX2_12x8(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool)

// asmKernel adapts an assembly kernel to microKernel.run. The caller
// (sgemmGo) has checked that every element the kernel touches is inside
// a, b and c; nb is nr.
func asmKernel(mr, nr int, speed float64, f func(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool)) microKernel {
	return microKernel{mr: mr, nr: nr, speed: speed, run: func(k int, a []float32, ao, rs, cs int, b, c []float32, co, ldc int, add bool, nb int) {
		f(k, &a[ao], rs, cs, &b[0], &c[co], ldc, add)
	}}
}

// maskedKernel adapts an AVX-512 kernel, which writes only the first nb
// columns of its block (any 1 <= nb <= nr): its mask has the low nb bits
// set, 16 per vector. Where rs is 1 it runs unit, the kernel's variant
// for consecutive rows (one base register; the same operations in the
// same order, so the same bits). tails are the kernel's variants with
// fewer rows (microKernel.tails), fewest first.
func maskedKernel(mr, nr int, speed float64, f, unit func(k int, a *float32, rs, cs int, b, c *float32, ldc int, add bool, mask uint64), tails ...microKernel) microKernel {
	return microKernel{mr: mr, nr: nr, speed: speed, masked: true, tails: tails, run: func(k int, a []float32, ao, rs, cs int, b, c []float32, co, ldc int, add bool, nb int) {
		mask := ^uint64(0)
		if nb < 64 {
			mask = 1<<nb - 1
		}
		if rs == 1 && !unitNever {
			unit(k, &a[ao], rs, cs, &b[0], &c[co], ldc, add, mask)
			return
		}
		f(k, &a[ao], rs, cs, &b[0], &c[co], ldc, add, mask)
	}}
}

// unitNever makes maskedKernel run the general kernels for every rs
// (tests and benchmarks).
var unitNever bool

// archKernelSets returns the AVX-512 kernels on a CPU with AVX-512F, and
// the AVX2 ones on a CPU with AVX2 and FMA (both, best first), with
// their relative speeds as measured on the development machine's AVX-512
// CPU (BenchmarkMicroKernel, panels in cache, one core: 6x64 187, 12x32
// 175, 24x16 147, AVX2 6x16 106, 12x8 90 GFLOP/s).
func archKernelSets() []*kernelSet {
	var sets []*kernelSet
	if cpu.X86.HasAVX512F {
		sets = append(sets, &kernelSet{name: "avx512", kernels: []microKernel{
			maskedKernel(6, 64, 1, kernAVX512_6x64, kernAVX512_6x64u,
				maskedKernel(2, 64, 1, kernAVX512_2x64, kernAVX512_2x64u), maskedKernel(4, 64, 1, kernAVX512_4x64, kernAVX512_4x64u)),
			maskedKernel(12, 32, 0.93, kernAVX512_12x32, kernAVX512_12x32u,
				maskedKernel(4, 32, 1, kernAVX512_4x32, kernAVX512_4x32u), maskedKernel(8, 32, 1, kernAVX512_8x32, kernAVX512_8x32u)),
			maskedKernel(24, 16, 0.78, kernAVX512_24x16, kernAVX512_24x16u,
				maskedKernel(8, 16, 1, kernAVX512_8x16, kernAVX512_8x16u), maskedKernel(16, 16, 1, kernAVX512_16x16, kernAVX512_16x16u)),
		}, addRows: addRowsAVX512, direct: directAVX512, directPair: directPairAVX512, directDW: directDWAVX512, axpyF64: axpyRowsF64AVX512Go, prefixF64: prefixSumsF64AVX512Go, adam: adamAVX512Go,
			relu: reluAVX512Go, reluMask: reluMaskAVX512Go, bn: &bnAVX512, copyRuns: copyRunsAVX512Go,
			gatherRows: transposeRowsAVX512Go, storeAcc8: storeAcc8AVX512Go, accInit8: accInit8AVX512Go,
			addRuns: addRunsAVX512Go, sumRuns: sumRunsAVX512Go, foldRows: foldRowsAVX512Go, mirrorColumn: mirrorColumnAVX512Go, gemvRows: gemvRowsAVX512Go, ger: gerAVX512Go, cartesianAdd: cartesianAddAVX512Go, packRows: packRowsAVX512Go,
			outerSumRow: outerSumRowAVX512Go, rowSumsRow: rowSumsRowAVX512Go})
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		sets = append(sets, &kernelSet{name: "avx2", kernels: []microKernel{
			asmKernel(6, 16, 1, kernAVX2_6x16),
			asmKernel(12, 8, 0.85, kernAVX2_12x8),
		}, addRows: addRowsAVX2})
	}
	return sets
}

//go:noescape
func fmaLoopAVX512(n int)

//go:noescape
func fmaLoopAVX2(n int)

// fmaLoop runs n (at least 1) steps of the peak loop of the widest instruction set the
// CPU has and returns the float32 operations done (0 without AVX2).
func fmaLoop(n int) (flops float64, isa string) {
	n = max(n, 1) // the loop runs at least one step (DECQ; JNZ)
	switch {
	case cpu.X86.HasAVX512F:
		fmaLoopAVX512(n)
		return float64(n) * 16 * 16 * 2, "avx512"
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		fmaLoopAVX2(n)
		return float64(n) * 12 * 8 * 2, "avx2"
	}
	return 0, ""
}
