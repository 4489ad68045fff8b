//go:build !openblas

package kern

const backend = "go"

// gemmBackend is the Go sgemm (sgemm.go) with the kernels of the CPU.
var gemmBackend = sgemmGo

// BLASCore is empty: there is no OpenBLAS in this build.
func BLASCore() string { return "" }
