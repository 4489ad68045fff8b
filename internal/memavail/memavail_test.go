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
		got, err := available(root)
		if err != nil || got.Bytes != c.bytes || got.Source != c.source {
			t.Errorf("%s: %+v %v, want %d from %s", c.name, got, err, c.bytes, c.source)
		}
	}
	if _, err := available(t.TempDir()); !errors.Is(err, ErrUnknown) {
		t.Errorf("nothing to read: %v", err)
	}
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
