package blasenv

import (
	"fmt"
	"io"
	"os"

	"github.com/contactmap/contactmap/scnn"
)

// SgemmVariable is the environment variable with which a user forces the
// Go sgemm's micro-kernels in a command: "avx512", "avx2" or "go"
// (scnn.SetKernels); unset or empty, the best ones the CPU runs.
const SgemmVariable = "CONTACTMAP_SGEMM"

// SelectKernels applies SgemmVariable, if set, with scnn.SetKernels. A
// name this CPU or build cannot run leaves the default and is reported to
// w, as "contactmap: CONTACTMAP_SGEMM: <why>; using <kernels>".
func SelectKernels(w io.Writer) {
	name := os.Getenv(SgemmVariable)
	if name == "" {
		return
	}
	if err := scnn.SetKernels(name); err != nil {
		fmt.Fprintf(w, "contactmap: %s: %v; using %s\n", SgemmVariable, err, scnn.SgemmKernels())
	}
}
