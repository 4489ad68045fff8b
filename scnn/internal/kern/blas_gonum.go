//go:build !cgo || purego

package kern

// In this build blas32 keeps its default, gonum's pure-Go implementation.
const backend = "gonum"

// BLASCore is empty: there is no OpenBLAS in this build.
func BLASCore() string { return "" }
