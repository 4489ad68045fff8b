package interrupt

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// The first signal cancels the context and is told to onSignal; the
// work not returning within the grace period is forced out with that
// signal, not before the period ends.
func TestForcedAfterGrace(t *testing.T) {
	const grace = 100 * time.Millisecond
	told, forced := make(chan os.Signal, 1), make(chan os.Signal, 1)
	ctx, stop := Watch(grace, func(s os.Signal) { told <- s }, func(s os.Signal) { forced <- s })
	defer stop()
	start := time.Now()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the context was not cancelled by SIGINT")
	}
	if s := <-told; Name(s) != "SIGINT" {
		t.Errorf("onSignal got %v", s)
	}
	select {
	case s := <-forced:
		if s != os.Interrupt {
			t.Errorf("forced with %v, want the first signal", s)
		}
		if waited := time.Since(start); waited < grace {
			t.Errorf("forced after %v, before the grace period of %v", waited, grace)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not forced after the grace period")
	}
}

// Work that returns within the grace period (stop) is not forced out,
// and stop may be called twice.
func TestStopInTime(t *testing.T) {
	const grace = 100 * time.Millisecond
	forced := make(chan os.Signal, 1)
	ctx, stop := Watch(grace, func(os.Signal) {}, func(s os.Signal) { forced <- s })
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	stop()
	stop()
	select {
	case s := <-forced:
		t.Fatalf("forced out with %v after stop", s)
	case <-time.After(3 * grace):
	}
}

func TestName(t *testing.T) {
	for s, want := range map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "hangup"} {
		if got := Name(s); got != want {
			t.Errorf("Name(%v) = %q, want %q", s, got, want)
		}
	}
}
