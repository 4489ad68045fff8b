//go:build !amd64 || purego

package msa

// mismatchKernels lists the kernels this CPU runs: the word loop.
func mismatchKernels() []mismatchKernel {
	return []mismatchKernel{{"go", withinMismatchesGo}}
}
