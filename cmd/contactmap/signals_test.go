package main

import (
	"bytes"

	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
func TestSignalForcedExit(t *testing.T) {
	oldGrace, oldExit := stopGrace, exitNow
	defer func() { stopGrace, exitNow = oldGrace, oldExit }()
	stopGrace = 200 * time.Millisecond
	exited := make(chan int, 1)
	exitNow = func(code int) { exited <- code }
	tmp := filepath.Join(t.TempDir(), ".x.rr.tmp1")
	if err := os.WriteFile(tmp, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	atExit.Lock()
	saved := atExit.fns
	atExit.fns = nil
	atExit.Unlock()
	defer func() { atExit.Lock(); atExit.fns = saved; atExit.Unlock() }()
	onForcedExit(func() { os.Remove(tmp) })
	setFinished("2 of 5 chains written to preds")
	defer setFinished("")

	var errOut syncBuffer
	ctx, stop := signalContext("predict", &errOut)
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
	if waited := time.Since(start); waited < stopGrace {
		t.Errorf("forced out after %v, before the grace period of %v", waited, stopGrace)
	}
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary file survived the forced exit: %v", err)
	}
	msg := errOut.String()
	for _, want := range []string{"SIGINT: stopping", "interrupted by SIGINT", "finished: 2 of 5 chains written to preds"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}

	// A command that stops in time is not forced out.
	ctx2, stop2 := signalContext("predict", &errOut)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx2.Done()
	stop2()
	select {
	case code := <-exited:
		t.Fatalf("forced exit %d of a command that returned within the grace period", code)
	case <-time.After(2 * stopGrace):
	}
}

// Issue 57: an MFE fold of a long RNA (minutes of work) stops within
// seconds of SIGINT, writes no output, exits 1 and says it was
// interrupted.
func TestSIGINTLongFold(t *testing.T) {
	if testing.Short() {
		t.Skip("a long fold in a child process")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "long.fa"), filepath.Join(dir, "preds")
	r := rand.New(rand.NewPCG(1, 2))
	seq := make([]byte, 6000)
	for i := range seq {
		seq[i] = "ACGU"[r.IntN(4)]
	}
	if err := os.WriteFile(in, []byte(">long\n"+string(seq)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCLI$")
	cmd.Env = append(os.Environ(), "CONTACTMAP_CLI="+strings.Join([]string{"rna", "predict", "--method", "mfe", "--force", "--out", out, in}, "\n"))
	var text bytes.Buffer
	cmd.Stdout, cmd.Stderr = &text, &text
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running 20 s after SIGINT:\n%s", text.String())
	}
	t.Logf("stopped %v after SIGINT", time.Since(sent).Round(time.Millisecond))
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(text.String(), "interrupted") {
		t.Fatalf("exit %d, want 1 with 'interrupted':\n%s", code, text.String())
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		t.Errorf("output left after the interruption: %s", e.Name())
	}
}
