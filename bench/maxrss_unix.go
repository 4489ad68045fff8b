//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the maximum resident set size of an exited child, in bytes,
// from its rusage (getrusage's ru_maxrss: KiB on Linux and the BSDs, bytes
// on macOS); 0 where there is none. On Linux it includes the peak RSS of
// the process that forked it, up to the exec (see coevo.go).
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
