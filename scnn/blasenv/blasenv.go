//go:build openblas

// Package blasenv makes a command run with the OpenBLAS kernels that suit
// the CPU (see scnn.PreferredBLASCore): OpenBLAS reads OPENBLAS_CORETYPE
// only when it is loaded, before main runs, so the command re-executes
// itself once with the variable set.
//
// SelectKernels applies CONTACTMAP_SGEMM, a user's choice of the Go
// sgemm's micro-kernels: the library leaves that choice to its caller
// (scnn.SetKernels), the commands read it here.
package blasenv

import (
	"os"
	"syscall"

	"github.com/contactmap/contactmap/scnn"
)

// Variable is the OpenBLAS environment variable that selects the kernels.
const Variable = "OPENBLAS_CORETYPE"

// Reexec replaces the process with itself, same arguments, with
// OPENBLAS_CORETYPE set to scnn.PreferredBLASCore(), when that is not
// empty and the variable is not set already (a user's setting, or the
// re-executed process, is left alone). It returns only if no re-exec is
// needed or it failed; the command then runs with OpenBLAS's own choice.
func Reexec() {
	if _, set := os.LookupEnv(Variable); set {
		return
	}
	core := scnn.PreferredBLASCore()
	if core == "" {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(self, os.Args, append(os.Environ(), Variable+"="+core))
}
