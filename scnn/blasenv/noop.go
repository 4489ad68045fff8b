//go:build !openblas

// Package blasenv makes a command of the OpenBLAS build (build tag
// openblas) run with the OpenBLAS kernels that suit the CPU. In the
// default build, whose sgemm is Go with its own CPU dispatch, Reexec does
// nothing.
//
// SelectKernels applies CONTACTMAP_SGEMM, a user's choice of the Go
// sgemm's micro-kernels: the library leaves that choice to its caller
// (scnn.SetKernels), the commands read it here.
package blasenv

// Reexec does nothing: there is no OpenBLAS in this build.
func Reexec() {}
