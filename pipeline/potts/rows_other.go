//go:build !amd64 || purego

package potts

// rowKernels lists the kernel sets this CPU runs: the Go loops.
func rowKernels() []rowKernel {
	return []rowKernel{{"go", gatherTileGo, scatterColumnGo}}
}
