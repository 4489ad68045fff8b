// Package openblas calls OpenBLAS's sgemm through cgo, one OpenBLAS thread
// per call: the Gemm of kern's openblas build (a package of its own,
// because a package using cgo cannot hold Go assembly).
package openblas

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int num_threads);
char* openblas_get_corename(void);
*/
import "C"

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

var oneThread sync.Once

// Sgemm computes C = alpha * op(A) * op(B) + beta * C (row-major) with
// OpenBLAS, called directly: gonum's process-wide blas32 implementation
// is left alone.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	// Layers parallelise over samples and tiles themselves; one OpenBLAS
	// thread per call avoids oversubscription and keeps results
	// independent of OpenBLAS's own threading.
	oneThread.Do(func() { C.openblas_set_num_threads(1) })
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	netlib.Implementation{}.Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Core names the kernel set OpenBLAS chose for this CPU at load time
// (for example "SkylakeX", "Haswell", or "Prescott" when it did not
// recognise the CPU model). It can be set with OPENBLAS_CORETYPE.
func Core() string { return C.GoString(C.openblas_get_corename()) }
