package kern

import "fmt"

// Gemm computes, with row-major matrices,
//
//	C = alpha * op(A) * op(B) + beta * C
//
// where op(A) is m x k, op(B) is k x n and C is m x n with leading
// dimension ldc. transA and transB select op(X) = X^T. It runs the Go
// sgemm (sgemm.go) with the best kernels of the CPU, or OpenBLAS in a
// build with the openblas tag.
//
// The slices must hold every element the shapes address; Gemm panics if
// they do not (the assembly kernels read memory without bounds checks).
func Gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("kern: Gemm: negative shape %d x %d x %d", m, n, k))
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		// BLAS leaves C scaled by beta; do it here so callers can rely on it.
		checkGemm("C", c, m, n, ldc)
		scaleC(m, n, beta, c, ldc)
		return
	}
	ar, ac, br, bc := m, k, k, n
	if transA {
		ar, ac = k, m
	}
	if transB {
		br, bc = n, k
	}
	checkGemm("A", a, ar, ac, lda)
	checkGemm("B", b, br, bc, ldb)
	checkGemm("C", c, m, n, ldc)
	gemmBackend(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// checkGemm panics unless x holds a rows x cols row-major matrix with
// leading dimension ld.
func checkGemm(name string, x []float32, rows, cols, ld int) {
	if ld < cols || len(x) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("kern: Gemm: %s is %d x %d with leading dimension %d: needs %d elements, has %d", name, rows, cols, ld, (rows-1)*ld+cols, len(x)))
	}
}

// Backend names the sgemm behind Gemm: "go" or "openblas".
func Backend() string { return backend }
