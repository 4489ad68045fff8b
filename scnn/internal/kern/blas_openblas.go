//go:build openblas

package kern

import "github.com/contactmap/contactmap/scnn/internal/kern/openblas"

// The openblas build tag (with cgo and libopenblas-dev) makes Gemm call
// OpenBLAS, for comparison with the Go kernels.
const backend = "openblas"

var gemmBackend = openblas.Sgemm

// BLASCore names the kernel set OpenBLAS chose for this CPU at load time.
func BLASCore() string { return openblas.Core() }
