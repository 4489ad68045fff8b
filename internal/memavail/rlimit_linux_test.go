package memavail

import (
	"syscall"
	"testing"
)

// Under a real RLIMIT_AS (this process's soft limit lowered to
// its virtual size plus 1 GiB for the test, as prlimit --as does), that
// limit bounds the figure, at about 1 GiB.
func TestAvailableUnderRLIMIT_AS(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	st, err := statusKB("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	lim := uint64(st["VmSize"]*1024 + 1<<30)
	if lim > old.Max {
		t.Skip("hard RLIMIT_AS below the test's")
	}
	set := syscall.Rlimit{Cur: lim, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &set); err != nil {
		t.Skip(err)
	}
	got, err := Available()
	syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	if err != nil || got.Source != "RLIMIT_AS (ulimit -v)" || got.Bytes < 1<<29 || got.Bytes > 2<<30 {
		t.Fatalf("%+v %v, want about 1 GiB from RLIMIT_AS", got, err)
	}
	t.Logf("%d MiB available (%s)", got.Bytes>>20, got.Source)
}
