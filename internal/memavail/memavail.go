// Package memavail tells how much memory this process can still take
// before the kernel's out-of-memory killer, a container's limit or a
// resource limit stops it, so that a command can refuse an input whose
// estimated memory (pairnet.Spec.InferenceBytes) does not fit, with a
// message, instead of being killed:
//
//	lim, err := memavail.Available()
//	if err == nil && need > lim.Bytes {
//		return fmt.Errorf("... needs about %d MB, %s leaves %d MB", need>>20, lim.Source, lim.Bytes>>20)
//	}
//
// Available is the smallest of
//
//   - each cgroup v2 level of this process (the directories of
//     /sys/fs/cgroup from the one /proc/self/cgroup names up to the
//     root, also under /sys/fs/cgroup/unified): memory.max minus
//     memory.current, where memory.max is not "max";
//   - each cgroup v1 memory level (/sys/fs/cgroup/memory/...):
//     memory.limit_in_bytes minus memory.usage_in_bytes, where a limit is
//     set (below 2^60);
//   - the address space limit RLIMIT_AS (ulimit -v, prlimit --as) minus
//     the process's virtual size (VmSize of /proc/self/status), and the
//     data limit RLIMIT_DATA (ulimit -d) minus its data size (VmData),
//     where set, each plus the heap memory the Go runtime has mapped but
//     not in use (free or released), which it reuses without mapping
//     more;
//   - the Go runtime's memory limit where the user set one (the
//     GOMEMLIMIT environment variable), minus the memory the runtime
//     holds;
//   - MemAvailable of /proc/meminfo (the machine's estimate of what can
//     be allocated without swapping).
//
// A cgroup's usage counts its page cache, which the kernel can reclaim,
// so the cgroup figures err on the low side. The virtual size counts the
// address space the Go runtime reserves at start (about 1.2 GiB on
// linux/amd64, measured: its page allocator's sparse indexes), which it
// never needs to grow, and the heap grows in arenas of 64 MiB, so a large
// block can take up to 64 MiB of address space more than its size. Where
// none of these can be read (not Linux), Available returns ErrUnknown and
// the caller goes on without a check.
package memavail

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
)

// Limit is the memory available to the process and what bounds it.
type Limit struct {
	Bytes  int64
	Source string // e.g. "cgroup v2 /sys/fs/cgroup/x/memory.max" or "/proc/meminfo MemAvailable"
}

// ErrUnknown: no source of the available memory could be read.
var ErrUnknown = errors.New("memavail: available memory unknown (no cgroup limit or /proc/meminfo)")

// Available returns the memory available to this process (see the
// package documentation).
func Available() (Limit, error) { return system.available() }

// sources are where available reads: files under root ("/" for /proc
// and /sys), the resource limits, and the Go runtime's figures; a test
// gives fakes.
type sources struct {
	root string
	// rlimit returns the soft limit of RLIMIT_AS or RLIMIT_DATA (as); ok
	// false where unlimited or unknown.
	rlimit func(as bool) (cur uint64, ok bool)
	// goIdle is the heap memory the runtime has mapped and does not use
	// (free and released), reused before it maps more.
	goIdle func() int64
	// goLimit is the runtime's memory limit where the user set one
	// (GOMEMLIMIT), and the memory the runtime holds; ok false where none.
	goLimit func() (limit, held int64, ok bool)
}

var system = sources{root: "/", rlimit: rlimit, goIdle: goIdle, goLimit: goLimit}

// available reads the sources.
func (src sources) available() (Limit, error) {
	root := src.root
	best := Limit{Bytes: -1}
	consider := func(b int64, source string) {
		if b < 0 {
			b = 0 // at or over its limit
		}
		if best.Bytes < 0 || b < best.Bytes {
			best = Limit{b, source}
		}
	}
	file := func(p string) string { return path.Join(root, p) }
	v1, v2 := cgroupPaths(file("proc/self/cgroup"))
	// cgroup v2, in the unified mount or the hybrid one's.
	for _, mount := range []string{"sys/fs/cgroup", "sys/fs/cgroup/unified"} {
		if v2 == "" {
			break
		}
		for dir := v2; ; dir = path.Dir(dir) {
			d := file(path.Join(mount, dir))
			max, err1 := readInt(path.Join(d, "memory.max"))
			cur, err2 := readInt(path.Join(d, "memory.current"))
			if err1 == nil && err2 == nil {
				consider(max-cur, "cgroup v2 "+path.Join("/", mount, dir, "memory.max"))
			}
			if dir == "/" {
				break
			}
		}
	}
	// cgroup v1.
	if v1 != "" {
		for dir := v1; ; dir = path.Dir(dir) {
			d := file(path.Join("sys/fs/cgroup/memory", dir))
			lim, err1 := readInt(path.Join(d, "memory.limit_in_bytes"))
			use, err2 := readInt(path.Join(d, "memory.usage_in_bytes"))
			if err1 == nil && err2 == nil && lim < 1<<60 {
				consider(lim-use, "cgroup v1 "+path.Join("/sys/fs/cgroup/memory", dir, "memory.limit_in_bytes"))
			}
			if dir == "/" {
				break
			}
		}
	}
	// Resource limits: the address space and the data segment.
	if src.rlimit != nil {
		var status map[string]int64
		for _, r := range []struct {
			as     bool
			field  string
			source string
		}{{true, "VmSize", "RLIMIT_AS (ulimit -v)"}, {false, "VmData", "RLIMIT_DATA (ulimit -d)"}} {
			cur, ok := src.rlimit(r.as)
			if !ok || cur >= 1<<62 {
				continue
			}
			if status == nil {
				var err error
				if status, err = statusKB(file("proc/self/status")); err != nil {
					break // the size in use is unknown: no figure
				}
			}
			kb, ok := status[r.field]
			if !ok {
				continue
			}
			var idle int64
			if src.goIdle != nil {
				idle = src.goIdle()
			}
			consider(int64(cur)-kb*1024+idle, r.source)
		}
	}
	// The Go runtime's memory limit, where the user set one.
	if src.goLimit != nil {
		if lim, held, ok := src.goLimit(); ok {
			consider(lim-held, "GOMEMLIMIT")
		}
	}
	if kb, err := memAvailable(file("proc/meminfo")); err == nil {
		consider(kb*1024, "/proc/meminfo MemAvailable")
	}
	if best.Bytes < 0 {
		return Limit{}, ErrUnknown
	}
	return best, nil
}

// cgroupPaths returns the process's cgroup v1 memory path and v2 path
// from /proc/self/cgroup ("" when absent), or "/" when the file cannot be
// read (then the mount's root is all there is to look at).
func cgroupPaths(file string) (v1, v2 string) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "/", "/"
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !strings.HasPrefix(f[2], "/") {
			continue
		}
		p := path.Clean(f[2])
		switch {
		case f[0] == "0" && f[1] == "":
			v2 = p
		case contains(strings.Split(f[1], ","), "memory"):
			v1 = p
		}
	}
	return v1, v2
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// readInt reads a file holding one integer ("max" is not one).
func readInt(file string) (int64, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64)
}

// memAvailable reads MemAvailable (kB) from a meminfo file.
func memAvailable(file string) (int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: MemAvailable %q: %w", file, rest, err)
		}
		return v, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no MemAvailable", file)
}

// statusKB reads the "Name: N kB" fields of a /proc/PID/status file.
func statusKB(file string) (map[string]int64, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		v, unit, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if !ok || unit != "kB" {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[name] = n
		}
	}
	return out, nil
}

// goIdle returns the heap memory the Go runtime has mapped but does not
// use.
func goIdle() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() + s[1].Value.Uint64())
}

// goLimit returns the runtime's memory limit where GOMEMLIMIT set it (a
// limit set by debug.SetMemoryLimit in the program, as package memcheck
// does from this package's figure, is not one), and the memory the
// runtime holds (mapped, less what it released to the system).
func goLimit() (limit, held int64, ok bool) {
	if env := os.Getenv("GOMEMLIMIT"); env == "" || env == "off" {
		return 0, 0, false
	}
	limit = debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return 0, 0, false
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return limit, int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64()), true
}
