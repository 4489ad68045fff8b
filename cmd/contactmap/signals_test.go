package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An MFE fold of a long RNA (minutes of work) stops within
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
