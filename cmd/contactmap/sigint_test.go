package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contactmap/contactmap/scnn/loop"
)

// TestHelperCLI is the command line in a child process (CONTACTMAP_CLI
// holds its arguments, one a line); it is not a test of its own.
func TestHelperCLI(t *testing.T) {
	args := os.Getenv("CONTACTMAP_CLI")
	if args == "" {
		t.Skip("the child process of the SIGINT tests")
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// interruptAfter runs the command line in a child process, sends it
// SIGINT after d, and returns its exit status and output.
func interruptAfter(t *testing.T, d time.Duration, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCLI$")
	cmd.Env = append(os.Environ(), "CONTACTMAP_CLI="+strings.Join(args, "\n"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(d, func() { cmd.Process.Signal(syscall.SIGINT) })
	defer timer.Stop()
	cmd.Wait()
	return cmd.ProcessState.ExitCode(), out.String()
}

// Every system's training, interrupted by SIGINT 10 seconds
// after it starts (before its first validation, for the RNA and protein
// runs here), leaves a checkpoint and a message to resume; --resume then
// continues from the checkpoint's step.
func TestSIGINTAt10Seconds(t *testing.T) {
	if testing.Short() {
		t.Skip("three training runs of 10 s and more in child processes")
	}
	dir := t.TempDir()
	feats := filepath.Join(dir, "features")
	if code, _, errOut := runCLI(t, "features", "--list", "../../pipeline/train/testdata/tiny.list", "--pdb-dir", "../../data/pdb",
		"--out", feats, "--workers", "1"); code != 0 {
		t.Fatalf("features: %s", errOut)
	}
	movielens := "../../../shared/data/movielens-100k"
	systems := []struct {
		name string
		args []string
	}{
		{"protein", []string{"train", "--features", feats, "--model", "scnn", "--epochs", "100000", "--patience", "100000", "--workers", "1"}},
		{"rna", []string{"rna", "train", "--protocol", "default", "--steps", "100000", "--workers", "1",
			"--train", "../../data/rna/16s-finaltrain.txt", "--valid", "../../data/rna/16s-finalvalid.txt"}},
		{"rec", []string{"rec", "train", "--data", movielens, "--model", "scosrec", "--epochs", "1000", "--workers", "1"}},
	}
	for _, s := range systems {
		t.Run(s.name, func(t *testing.T) {
			if s.name == "rec" {
				if _, err := os.Stat(movielens); err != nil {
					t.Skip("no MovieLens 100K beside the checkout")
				}
			}
			out := filepath.Join(dir, s.name)
			args := append(append([]string(nil), s.args...), "--out", out)
			code, text := interruptAfter(t, 10*time.Second, args...)
			if code != 1 || !strings.Contains(text, "--resume") {
				t.Fatalf("interrupted: exit %d, want 1 with a message to resume:\n%s", code, text)
			}
			st, err := loop.Info(out, nil)
			if err != nil {
				t.Fatalf("no checkpoint after SIGINT: %v\n%s", err, text)
			}
			if st.Steps == 0 {
				t.Fatalf("the checkpoint holds no step after 10 s:\n%s", text)
			}
			code, text = interruptAfter(t, 4*time.Second, append(args, "--resume")...)
			if code != 1 {
				t.Fatalf("resumed: exit %d:\n%s", code, text)
			}
			st2, err := loop.Info(out, nil)
			if err != nil || st2.Steps <= st.Steps || st2.Seconds <= st.Seconds {
				t.Fatalf("resumed from step %d (%.1f s): now step %d (%.1f s), %v\n%s", st.Steps, st.Seconds, st2.Steps, st2.Seconds, err, text)
			}
		})
	}
}

// A run stopped while it prepares its molecules (the families protocol
// folds every molecule's MFE structure first: minutes without a cache)
// stops there, with no checkpoint and a message to start it again, and
// the folds it finished are in the cache file.
func TestSIGINTWhilePreparing(t *testing.T) {
	if testing.Short() {
		t.Skip("a training run's preparation in a child process")
	}
	dir := t.TempDir()
	out, cache := filepath.Join(dir, "run"), filepath.Join(dir, "mfe.tsv.gz")
	code, text := interruptAfter(t, 3*time.Second, "rna", "train", "--protocol", "families", "--workers", "1",
		"--train", "../../data/rna/16s-finaltrain.txt", "--valid", "../../data/rna/16s-finalvalid.txt",
		"--mfe-cache", cache, "--out", out)
	if code != 1 || !strings.Contains(text, "preparing the molecules") || !strings.Contains(text, "run the same command again") {
		t.Fatalf("interrupted while preparing: exit %d, want 1 with a message to start again:\n%s", code, text)
	}
	if _, err := loop.Info(out, nil); err == nil {
		t.Fatalf("a checkpoint in %s after an interruption before the first step", out)
	}
}
