package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuNanos is the CPU time all threads of process pid have run so far, in
// nanoseconds: the sum of the first fields (sum_exec_runtime) of
// /proc/PID/task/*/schedstat. ok is false where they can't be read.
func cpuNanos(pid int) (ns int64, ok bool) {
	files, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	if err != nil || len(files) == 0 {
		return 0, false
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that exited in between
		}
		first, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		v, err := strconv.ParseInt(first, 10, 64)
		if err != nil {
			return 0, false
		}
		ns += v
	}
	return ns, true
}
