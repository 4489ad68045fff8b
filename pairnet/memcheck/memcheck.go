// Package memcheck decides, before a target is predicted, whether its
// prediction fits in the memory the process has, so that a command skips
// an over-long input with a message instead of being killed by the
// kernel or its container:
//
//	if err := memcheck.Check(name, []pairnet.Spec{m.Net.Spec}, len(seq), workers, extra); err != nil {
//		// *TooLargeError: skip this target (or go on under the command's force)
//	}
//
// # The estimate
//
// Estimate is Factor times the live heap of one target's prediction: the
// largest pairnet.Spec.InferenceBytes of the networks (an ensemble's
// members must run one after another, each in the buffers the one before
// released or after they are collected, as pipeline/predict runs them:
// then the largest pass is the peak, whatever the number of members) plus
// the caller's own buffers for the target, which live through every pass
// (its features and input batch, the probability maps, an ensemble's
// float64 mean, the outputs' buffers).
//
// # The garbage collector's margin
//
// InferenceBytes bounds the live heap; the process needs more: with
// GOGC=100 the heap grows to about twice the live data between
// collections, and large buffers freed by one pass are not at once given
// back to the system. Factor (2) is that room. Check, and Gate when it
// reads the memory available, also set the runtime's soft memory limit
// (debug.SetMemoryLimit) to what the process holds plus what is available,
// unless the user set one (GOMEMLIMIT): the collector then works harder as
// the heap nears the limit instead of letting garbage push the process
// past it. Measured max RSS (2 cores; the process with its models, 31 to
// 39 MB, besides): the default protein ensemble (5 CNN + 5 SCNN, run one
// after another over one inference pass, its largest member's peak: see
// pipeline/predict) at L = 500, 1,000 and 2,000 peaked at 245, 612 and
// 2,099 MiB against estimates of 408, 1,231 and 4,305 MiB (at 500 and
// 1,000 told that only the estimate is available; with no limit 213 and
// 642 MiB, and at 2,000 one CNN alone 2,061 MiB). Before the members
// shared their buffers the limit was what held the ensemble:
// 1,270 MiB at L = 1,000 without it, 4,712 MiB at 2,000. The shipped RNA
// model at L = 1,000 and 2,000 peaked at 198 and 524 MiB against 420 and
// 1,088 MiB (its extra counted as 8 L^2). TestPredictMemoryWithinEstimate
// in cmd/contactmap repeats the protein measurement at L = 200 and 400.
//
// # The memory available
//
// Available (package internal/memavail by default) is the smallest of the
// cgroup limits' room, the room under RLIMIT_AS and RLIMIT_DATA (ulimit
// -v and -d, prlimit), a GOMEMLIMIT's and MemAvailable, with what bounds
// it: under prlimit --as=3000000000 a chain of 6,000 residues is refused
// with its estimate instead of dying of the runtime's out-of-memory abort.
// When a target looks too large, the check first collects garbage and
// gives freed memory back to the system
// (debug.FreeOSMemory), then reads the figure again: memory this process
// freed but still holds counts as available. Where no figure can be read
// (not Linux), nothing is refused.
package memcheck

import (
	"fmt"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/contactmap/contactmap/internal/memavail"
	"github.com/contactmap/contactmap/pairnet"
)

// Factor is the ratio of the memory a prediction is given room for to its
// estimated live heap (see the package documentation).
const Factor = 2

// Available is the source of the memory available; tests replace it.
var Available = memavail.Available

// TooLargeError says that a target's prediction needs more memory than is
// available.
type TooLargeError struct {
	Name   string // the target; "" where the caller names it (the message then starts with the length)
	L      int    // its length
	Need   int64  // Estimate's bytes
	Avail  int64  // bytes available
	Source string // what bounds Avail, e.g. "cgroup v2 /sys/fs/cgroup/x/memory.max", "/proc/meminfo MemAvailable"
}

func (e *TooLargeError) Error() string {
	msg := fmt.Sprintf("length %d needs about %s of memory to predict, and %s is available (%s)", e.L, GiB(e.Need), GiB(e.Avail), e.Source)
	if e.Name != "" {
		msg = e.Name + ": " + msg
	}
	return msg
}

// GiB formats bytes as "12.3 GiB" (two decimals below 1 GiB).
func GiB(b int64) string {
	g := float64(b) / (1 << 30)
	if g < 1 {
		return fmt.Sprintf("%.2f GiB", g)
	}
	return fmt.Sprintf("%.1f GiB", g)
}

// Estimate returns the memory, in bytes, that predicting one target of
// length l needs: Factor times the largest InferenceBytes(l, workers) of
// specs plus extra, the caller's own buffers for the target (extra alone
// for a model-free method: no specs). The error is InferenceBytes's.
func Estimate(specs []pairnet.Spec, l, workers int, extra int64) (int64, error) {
	var pass int64
	for _, s := range specs {
		b, err := s.InferenceBytes(l, workers)
		if err != nil {
			return 0, err
		}
		pass = max(pass, b)
	}
	return satMul(Factor, pass+max(extra, 0)), nil
}

func satMul(k, b int64) int64 {
	if b > math.MaxInt64/k {
		return math.MaxInt64
	}
	return k * b
}

// Check returns a *TooLargeError when predicting the target name of
// length l with the networks specs (see Estimate) needs more memory than
// is available; nil when it fits or the memory available is unknown. It
// also sets the runtime's soft memory limit (see the package
// documentation). Other errors are Estimate's.
func Check(name string, specs []pairnet.Spec, l, workers int, extra int64) error {
	need, err := Estimate(specs, l, workers, extra)
	if err != nil {
		return err
	}
	lim, ok := available(need)
	if !ok {
		return nil
	}
	if need > lim.Bytes {
		return &TooLargeError{Name: name, L: l, Need: need, Avail: lim.Bytes, Source: lim.Source}
	}
	return nil
}

// available reads the memory available; when it is below need it gives
// freed memory back to the system first and reads again. It sets the
// soft memory limit. ok is false when the figure is unknown.
func available(need int64) (memavail.Limit, bool) {
	lim, err := Available()
	if err == nil && need > lim.Bytes {
		debug.FreeOSMemory()
		lim, err = Available()
	}
	if err != nil {
		return memavail.Limit{}, false
	}
	limitHeap(lim.Bytes)
	return lim, true
}

var limitMu sync.Mutex
var limitOurs bool // the soft limit in force is one limitHeap set

// limitHeap sets the runtime's soft memory limit to the memory the Go
// runtime holds now plus avail, unless a limit was set otherwise
// (GOMEMLIMIT, debug.SetMemoryLimit).
func limitHeap(avail int64) {
	limitMu.Lock()
	defer limitMu.Unlock()
	if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 && !limitOurs {
		return
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	held := int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
	lim := held + avail
	if lim < held { // overflow
		lim = math.MaxInt64
	}
	debug.SetMemoryLimit(lim)
	limitOurs = true
}

// Gate checks targets predicted in parallel against the memory available
// together: a target is let through while the estimates of the targets
// running and its own fit in the memory available, read when no target is
// running (and the soft memory limit set then); otherwise it waits for
// others to finish. A target that does not fit alone is refused with a
// *TooLargeError, or under Force let through to run alone, the error
// returned with it as a warning. The zero Gate is ready to use.
type Gate struct {
	Force bool

	mu       sync.Mutex
	cond     *sync.Cond
	running  int
	reserved int64
	budget   int64 // bytes available when the running targets started; < 0: unknown
}

// Acquire waits until the target name of length l, needing need bytes
// (Estimate), may run, and returns the function to call when it is done.
// release is nil when the target is refused (err a *TooLargeError); under
// Force, release is not nil and err may still say the target does not
// fit.
func (g *Gate) Acquire(name string, l int, need int64) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cond == nil {
		g.cond = sync.NewCond(&g.mu)
	}
	for {
		if g.running == 0 {
			g.budget = -1
			if lim, ok := available(need); ok {
				g.budget = lim.Bytes
				if need > lim.Bytes {
					err = &TooLargeError{Name: name, L: l, Need: need, Avail: lim.Bytes, Source: lim.Source}
					if !g.Force {
						return nil, err
					}
				}
			}
			break // alone: runs whatever it needs
		}
		if g.budget < 0 || g.reserved+need <= g.budget {
			break
		}
		g.cond.Wait()
	}
	g.running++
	g.reserved += need
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.running--
			g.reserved -= need
			g.mu.Unlock()
			g.cond.Broadcast()
		})
	}, err
}
