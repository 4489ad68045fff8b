package memcheck

import (
	"errors"
	"math"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contactmap/contactmap/internal/memavail"
	"github.com/contactmap/contactmap/pairnet"
)

// fake makes Available return b bytes (or ErrUnknown when b < 0) for the
// test, and restores the soft memory limit afterwards.
func fake(t *testing.T, b int64) {
	t.Helper()
	old := Available
	Available = func() (memavail.Limit, error) {
		if b < 0 {
			return memavail.Limit{}, memavail.ErrUnknown
		}
		return memavail.Limit{Bytes: b, Source: "cgroup v2 /sys/fs/cgroup/test/memory.max"}, nil
	}
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		Available = old
		debug.SetMemoryLimit(prev)
		limitMu.Lock()
		limitOurs = false
		limitMu.Unlock()
	})
}

func spec() pairnet.Spec {
	return pairnet.Spec{Symmetric: true, In1D: 4, Pair: pairnet.MapSpec{}, Blocks: []pairnet.Block{pairnet.Uniform(8, 3)}, OutKernel: 1}
}

// Estimate: Factor times the largest pass plus the caller's buffers.
func TestEstimate(t *testing.T) {
	a := spec()
	b := spec()
	b.Blocks = []pairnet.Block{pairnet.Uniform(16, 3)}
	pa, err := a.InferenceBytes(300, 1)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := b.InferenceBytes(300, 1)
	got, err := Estimate([]pairnet.Spec{a, b}, 300, 1, 1000)
	if want := Factor * (max(pa, pb) + 1000); err != nil || got != want {
		t.Errorf("Estimate = %d, %v; want %d", got, err, want)
	}
	// A model-free method: its own buffers alone.
	if got, err := Estimate(nil, 300, 1, 5000); err != nil || got != Factor*5000 {
		t.Errorf("no specs: %d, %v; want %d", got, err, Factor*5000)
	}
}

// Check refuses with the estimate, the memory available in GiB and its
// source; lets through what fits, and everything when the figure is
// unknown.
func TestCheck(t *testing.T) {
	need, _ := Estimate([]pairnet.Spec{spec()}, 500, 1, 0)
	fake(t, need-1)
	err := Check("long", []pairnet.Spec{spec()}, 500, 1, 0)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Need != need || tl.Avail != need-1 || tl.L != 500 {
		t.Fatalf("Check = %v", err)
	}
	for _, w := range []string{"long: length 500 needs about ", " GiB of memory", "GiB is available", "memory.max"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		t.Error("no soft memory limit set")
	}
	fake(t, need)
	if err := Check("fits", []pairnet.Spec{spec()}, 500, 1, 0); err != nil {
		t.Errorf("fits: %v", err)
	}
	fake(t, -1)
	if err := Check("unknown", []pairnet.Spec{spec()}, 500, 1, 0); err != nil {
		t.Errorf("unknown memory: %v", err)
	}
}

// A user's GOMEMLIMIT is kept.
func TestUserLimitKept(t *testing.T) {
	fake(t, 1<<30)
	debug.SetMemoryLimit(5 << 30)
	Check("x", []pairnet.Spec{spec()}, 100, 1, 0)
	if got := debug.SetMemoryLimit(-1); got != 5<<30 {
		t.Errorf("limit %d, want the user's", got)
	}
}

// Gate: a target too large alone is refused (under Force let through
// with the error); targets that together exceed the memory wait for each
// other.
func TestGate(t *testing.T) {
	fake(t, 100)
	var g Gate
	if rel, err := g.Acquire("big", 10, 101); rel != nil || err == nil {
		t.Fatalf("too large: release %v, err %v", rel != nil, err)
	}
	g.Force = true
	rel, err := g.Acquire("big", 10, 101)
	if rel == nil || err == nil {
		t.Fatalf("forced: release %v, err %v", rel != nil, err)
	}
	rel()
	g.Force = false
	r1, err := g.Acquire("a", 10, 60)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	started := false
	done := make(chan struct{})
	go func() {
		r2, err := g.Acquire("b", 10, 60)
		mu.Lock()
		started = true
		mu.Unlock()
		if err == nil {
			r2()
		}
		close(done)
	}()
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	early := started
	mu.Unlock()
	if early {
		t.Error("b started while a held 60 of 100 bytes")
	}
	r1()
	<-done
	r3, err := g.Acquire("c", 10, 40) // fits beside nothing running
	if err != nil {
		t.Fatal(err)
	}
	r4, err := g.Acquire("d", 10, 60) // fits beside c
	if err != nil {
		t.Fatal(err)
	}
	r3()
	r4()
}
