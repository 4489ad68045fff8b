package interrupt

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the watchdog's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A command that ignores its context (a long kernel) is stopped after
// the grace period: the cleanups run, the line says what was finished,
// and the exit status is 1. One that returns within the grace period is
// not forced out.
func TestCommandForcedExit(t *testing.T) {
	const grace = 200 * time.Millisecond
	exited := make(chan int, 1)
	exit := func(code int) { exited <- code }
	tmp := filepath.Join(t.TempDir(), ".x.rr.tmp1")
	if err := os.WriteFile(tmp, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	cleanups.Lock()
	saved := cleanups.fns
	cleanups.fns = nil
	cleanups.Unlock()
	defer func() { cleanups.Lock(); cleanups.fns = saved; cleanups.Unlock() }()
	OnForcedExit(func() { os.Remove(tmp) })
	SetFinished("%d of %d chains written to %s", 2, 5, "preds")
	defer SetFinished("")

	var errOut syncBuffer
	ctx, stop := Command("contactmap predict", &errOut, grace, exit)
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
	var code int
	select {
	case code = <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("no forced exit after the grace period")
	}
	if waited := time.Since(start); waited < grace {
		t.Errorf("forced out after %v, before the grace period of %v", waited, grace)
	}
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary file survived the forced exit: %v", err)
	}
	want := "contactmap predict: SIGINT: stopping\ncontactmap predict: interrupted by SIGINT; finished: 2 of 5 chains written to preds\n"
	if msg := errOut.String(); msg != want {
		t.Errorf("messages %q, want %q", msg, want)
	}

	// A command that stops in time is not forced out.
	ctx2, stop2 := Command("contactmap predict", &errOut, grace, exit)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx2.Done()
	stop2()
	select {
	case code := <-exited:
		t.Fatalf("forced exit %d of a command that returned within the grace period", code)
	case <-time.After(2 * grace):
	}
}

// Line says what finished, or that nothing did.
func TestLine(t *testing.T) {
	defer SetFinished("")
	SetFinished("")
	if got := Line("x: interrupted"); got != "x: interrupted; nothing was finished" {
		t.Errorf("%q", got)
	}
	SetFinished("%d molecules", 3)
	if got := Line("x: interrupted"); got != "x: interrupted; finished: 3 molecules" {
		t.Errorf("%q", got)
	}
}
