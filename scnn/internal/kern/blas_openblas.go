//go:build cgo && !purego

package kern

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int num_threads);
*/
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/netlib/blas/netlib"
)

const backend = "openblas"

func init() {
	// Layers parallelise over samples and tiles themselves; one OpenBLAS
	// thread per call avoids oversubscription and keeps results
	// independent of OpenBLAS's own threading.
	C.openblas_set_num_threads(1)
	blas32.Use(netlib.Implementation{})
}
