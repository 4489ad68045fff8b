package memavail

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const meminfo = "MemTotal:       32000000 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n"

// The smallest of every cgroup level's room and MemAvailable, with its
// source.
func TestAvailable(t *testing.T) {
	for _, c := range []struct {
		name   string
		files  map[string]string
		bytes  int64
		source string
	}{
		{"meminfo only", map[string]string{"proc/meminfo": meminfo}, 20000000 * 1024, "/proc/meminfo MemAvailable"},
		{"cgroup v2, limit at a parent", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "0::/user.slice/job\n",
			"sys/fs/cgroup/user.slice/job/memory.max": "max\n", "sys/fs/cgroup/user.slice/job/memory.current": "100\n",
			"sys/fs/cgroup/user.slice/memory.max": "1000000000\n", "sys/fs/cgroup/user.slice/memory.current": "400000000\n",
		}, 600000000, "cgroup v2 /sys/fs/cgroup/user.slice/memory.max"},
		{"cgroup v2 over its limit", map[string]string{
			"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "1000\n", "sys/fs/cgroup/memory.current": "2000\n",
		}, 0, "cgroup v2 /sys/fs/cgroup/memory.max"},
		{"cgroup v1", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "9:name=systemd:/\n4:memory:/api/x\n0::/\n",
			"sys/fs/cgroup/memory/api/x/memory.limit_in_bytes": "2147483648\n", "sys/fs/cgroup/memory/api/x/memory.usage_in_bytes": "1073741824\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n", "sys/fs/cgroup/memory/memory.usage_in_bytes": "5\n",
		}, 1073741824, "cgroup v1 /sys/fs/cgroup/memory/api/x/memory.limit_in_bytes"},
		{"no limit set anywhere", map[string]string{
			"proc/meminfo": "MemAvailable: 1000 kB\n", "proc/self/cgroup": "4:memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n", "sys/fs/cgroup/memory/memory.usage_in_bytes": "5\n",
		}, 1024000, "/proc/meminfo MemAvailable"},
	} {
		root := t.TempDir()
		write(t, root, c.files)
		got, err := sources{root: root}.available()
		if err != nil || got.Bytes != c.bytes || got.Source != c.source {
			t.Errorf("%s: %+v %v, want %d from %s", c.name, got, err, c.bytes, c.source)
		}
	}
	if _, err := (sources{root: t.TempDir()}).available(); !errors.Is(err, ErrUnknown) {
		t.Errorf("nothing to read: %v", err)
	}
}

const status = "Name:\tcontactmap\nVmPeak:\t 2000000 kB\nVmSize:\t 1500000 kB\nVmData:\t  300000 kB\nVmRSS:\t   50000 kB\n"

// The resource limits RLIMIT_AS and RLIMIT_DATA, less
// the process's virtual and data sizes and plus the heap the runtime has
// mapped and does not use, and a GOMEMLIMIT less the memory held, count
// with the cgroups and MemAvailable; the smallest wins and is named.
func TestAvailableLimits(t *testing.T) {
	const gib = 1 << 30
	cg2 := map[string]string{
		"proc/meminfo": meminfo, "proc/self/status": status, "proc/self/cgroup": "0::/job\n",
		"sys/fs/cgroup/job/memory.max": "4294967296\n", "sys/fs/cgroup/job/memory.current": "1073741824\n",
	} // cgroup v2: 3 GiB left
	cg1 := map[string]string{
		"proc/meminfo": meminfo, "proc/self/status": status, "proc/self/cgroup": "4:memory:/x\n",
		"sys/fs/cgroup/memory/x/memory.limit_in_bytes": "6442450944\n", "sys/fs/cgroup/memory/x/memory.usage_in_bytes": "1073741824\n",
	} // cgroup v1: 5 GiB left
	none := func(bool) (uint64, bool) { return 0, false }
	limits := func(as, data uint64) func(bool) (uint64, bool) {
		return func(isAS bool) (uint64, bool) {
			v := data
			if isAS {
				v = as
			}
			return v, v != 0
		}
	}
	idle := func(b int64) func() int64 { return func() int64 { return b } }
	for _, c := range []struct {
		name    string
		files   map[string]string
		rlimit  func(bool) (uint64, bool)
		idle    int64
		goLimit func() (int64, int64, bool)
		bytes   int64
		source  string
	}{
		{"cgroup v2, no rlimit", cg2, none, 0, nil, 3 * gib, "cgroup v2 /sys/fs/cgroup/job/memory.max"},
		{"RLIMIT_AS under cgroup v2", cg2, limits(3000000000, 0), 0, nil, 3000000000 - 1500000*1024, "RLIMIT_AS (ulimit -v)"},
		{"RLIMIT_AS above cgroup v2", cg2, limits(8*gib, 0), 0, nil, 3 * gib, "cgroup v2 /sys/fs/cgroup/job/memory.max"},
		{"RLIMIT_AS plus the runtime's idle heap", cg2, limits(3000000000, 0), 100 << 20, nil, 3000000000 - 1500000*1024 + 100<<20, "RLIMIT_AS (ulimit -v)"},
		{"RLIMIT_AS over its limit", cg1, limits(1000000000, 0), 0, nil, 0, "RLIMIT_AS (ulimit -v)"},
		{"RLIMIT_DATA under cgroup v1", cg1, limits(0, 2*gib), 0, nil, 2*gib - 300000*1024, "RLIMIT_DATA (ulimit -d)"},
		{"RLIMIT_DATA below RLIMIT_AS", cg1, limits(4*gib, gib), 0, nil, gib - 300000*1024, "RLIMIT_DATA (ulimit -d)"},
		{"RLIMIT_AS below RLIMIT_DATA", cg1, limits(2*gib, 4*gib), 0, nil, 2*gib - 1500000*1024, "RLIMIT_AS (ulimit -v)"},
		{"rlimit without a status file", map[string]string{"proc/meminfo": meminfo}, limits(gib, gib), 0, nil, 20000000 * 1024, "/proc/meminfo MemAvailable"},
		{"GOMEMLIMIT", cg2, limits(8*gib, 0), 0, func() (int64, int64, bool) { return 2 * gib, gib / 2, true }, 3 * gib / 2, "GOMEMLIMIT"},
		{"no GOMEMLIMIT", cg2, none, 0, func() (int64, int64, bool) { return 0, 0, false }, 3 * gib, "cgroup v2 /sys/fs/cgroup/job/memory.max"},
	} {
		root := t.TempDir()
		write(t, root, c.files)
		got, err := sources{root: root, rlimit: c.rlimit, goIdle: idle(c.idle), goLimit: c.goLimit}.available()
		if err != nil || got.Bytes != c.bytes || got.Source != c.source {
			t.Errorf("%s: %+v %v, want %d from %s", c.name, got, err, c.bytes, c.source)
		}
	}
}

// statusKB reads the kB fields of /proc/self/status; here, this process's
// sizes, VmData within VmSize.
func TestStatusKB(t *testing.T) {
	st, err := statusKB("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	if st["VmSize"] <= 0 || st["VmData"] <= 0 || st["VmData"] > st["VmSize"] {
		t.Fatalf("VmSize %d kB, VmData %d kB", st["VmSize"], st["VmData"])
	}
	t.Logf("VmSize %d MiB, VmData %d MiB", st["VmSize"]>>10, st["VmData"]>>10)
}

// On this machine (Linux): a positive amount, at most MemAvailable.
func TestAvailableHere(t *testing.T) {
	kb, err := memAvailable("/proc/meminfo")
	if err != nil {
		t.Skip("no /proc/meminfo")
	}
	got, err := Available()
	if err != nil || got.Bytes <= 0 || got.Bytes > kb*1024*2 {
		t.Fatalf("%+v %v (MemAvailable %d kB)", got, err, kb)
	}
	t.Logf("%d MB available (%s)", got.Bytes>>20, got.Source)
}
