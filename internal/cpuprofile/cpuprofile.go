package cpuprofile

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// Start writes a CPU profile of the process to path, where path is not
// "", until the returned function is called. A profile that cannot be
// started is a line on errw, prefixed by what, and the process runs
// without one.
func Start(path, what string, errw io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(errw, "%s: %v\n", what, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
