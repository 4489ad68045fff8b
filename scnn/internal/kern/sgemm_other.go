//go:build !amd64 || purego

package kern

// archKernelSets is empty: this build uses the portable Go kernels.
func archKernelSets() []*kernelSet { return nil }

// fmaLoop has no vector loop to run in this build.
func fmaLoop(n int) (flops float64, isa string) { return 0, "" }
