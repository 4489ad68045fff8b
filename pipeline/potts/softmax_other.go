//go:build !amd64 || purego

package potts

// softmaxKernels lists the softmaxColumn kernels this CPU runs: the Go
// loop.
func softmaxKernels() []softmaxKernel {
	return []softmaxKernel{{"go", softmaxColumnGo}}
}
