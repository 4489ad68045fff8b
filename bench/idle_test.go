package main

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCPUNanosGrows: the CPU time read for this process grows by about the
// work it does.
func TestCPUNanosGrows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("cpuNanos reads /proc")
	}
	before, ok := cpuNanos(os.Getpid())
	if !ok {
		t.Skip("no /proc/PID/task/*/schedstat (a kernel without CONFIG_SCHED_INFO): settle does not wait here")
	}
	// The work is measured by the kernel's own CPU accounting of the
	// process (getrusage), not by the wall clock: on a loaded machine 20
	// ms of wall time may hold half as much CPU time.
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	x := 1.0
	for cpu()-start < 20*time.Millisecond { // busy on this thread, not asleep
		for i := 0; i < 1e5; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	used := cpu() - start
	after, _ := cpuNanos(os.Getpid())
	if x == 0 || time.Duration(after-before) < used/2 {
		t.Errorf("cpuNanos grew by %v over %v of CPU time (getrusage)", time.Duration(after-before), used)
	}
}

// TestSettle: settle returns at once for a process it can't read, and
// after a reading or two for a sleeping one (not after settleMax).
func TestSettle(t *testing.T) {
	if d := settle(1 << 30); d != 0 {
		t.Errorf("settle of no process waited %v", d)
	}
	if _, ok := cpuNanos(os.Getpid()); !ok {
		t.Skip("no per-thread CPU times here: settle does not wait")
	}
	// A child that sleeps: idle at the first reading after its start.
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep program:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	time.Sleep(50 * time.Millisecond) // past its exec
	if d := settle(cmd.Process.Pid); d <= 0 || d >= settleMax {
		t.Errorf("settle of a sleeping process waited %v (want (0, %v))", d, settleMax)
	}
}

// TestReportSettleNote: a run with settle times says so, with their
// range; a run recorded before them renders without it (as
// TestRenderRecordedRuns checks).
func TestReportSettleNote(t *testing.T) {
	r := report{Reps: 1, Cases: []caseResult{{Group: "conv", Name: "k3_16x8", Sides: []sideResult{
		{Label: "go", Seconds: []float64{1}, Median: 1, Settle: []float64{0.0017}},
		{Label: "torch", Seconds: []float64{2}, Median: 2, Settle: []float64{0.0101}},
	}}}}
	if md := r.markdown(); !strings.Contains(md, "waits took 1.7-10.1 ms") {
		t.Errorf("no settle note with the waits' range in:\n%s", md[:min(len(md), 600)])
	}
	r.Cases[0].Sides[0].Settle, r.Cases[0].Sides[1].Settle = nil, nil
	if md := r.markdown(); strings.Contains(md, "idle.go") {
		t.Error("a run without settle times has the settle note")
	}
}
