package kern

import (
	"gonum.org/v1/gonum/blas"
)

// Gemm computes, with row-major matrices,
//
//	C = alpha * op(A) * op(B) + beta * C
//
// where op(A) is m x k, op(B) is k x n and C is m x n with leading
// dimension ldc. transA and transB select op(X) = X^T.
// It calls OpenBLAS in the default cgo build, gonum's pure-Go BLAS with
// the purego tag or without cgo.
func Gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	if k == 0 {
		// BLAS leaves C scaled by beta; do it here so callers can rely on it.
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				row[j] *= beta
			}
		}
		return
	}
	sgemmImpl().Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Backend names the BLAS behind Gemm ("openblas" or "gonum").
func Backend() string { return backend }
