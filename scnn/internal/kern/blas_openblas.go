//go:build cgo && !purego

package kern

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

const backend = "openblas"

var oneThread sync.Once

// sgemmImpl is OpenBLAS, called directly: gonum's process-wide blas32
// implementation is left alone.
func sgemmImpl() blas.Float32Level3 {
	// Layers parallelise over samples and tiles themselves; one OpenBLAS
	// thread per call avoids oversubscription and keeps results
	// independent of OpenBLAS's own threading.
	oneThread.Do(func() { C.openblas_set_num_threads(1) })
	return netlib.Implementation{}
}

// BLASCore names the kernel set OpenBLAS chose for this CPU at load time
// (for example "SkylakeX", "Haswell", or "Prescott" when it did not
// recognise the CPU model). It can be set with OPENBLAS_CORETYPE.
func BLASCore() string { return C.GoString(C.openblas_get_corename()) }
