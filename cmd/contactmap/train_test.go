package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Through the command line: `train --budget 1ns` on a new run
// panicked (the epoch's progress bar finished before it started) and
// left a model without a checkpoint; `--resume --budget` below the time
// spent panicked too. Now the run stops with both files, resumes with
// the spent budget (stopping again), with --epochs and no limit (a note
// for each), and refuses another --lr naming both values. A checkpoint
// of a protein run resumed by rna train or rec train names what it holds
// and the command to use; given as a model it names the model file.
func TestTrainBudgetAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a small model")
	}
	dir := t.TempDir()
	feats, out := filepath.Join(dir, "features"), filepath.Join(dir, "run")
	if code, _, errOut := runCLI(t, "features", "--list", "../../pipeline/train/testdata/tiny.list", "--pdb-dir", "../../data/pdb",
		"--out", feats, "--workers", "1"); code != 0 {
		t.Fatalf("features: %s", errOut)
	}
	base := []string{"train", "--features", feats, "--model", "cnn", "--workers", "1", "--out", out}
	code, stdOut, errOut := runCLI(t, append(base, "--budget", "1ns")...)
	if code != 0 || !strings.Contains(stdOut, "time budget of 1ns spent") {
		t.Fatalf("--budget 1ns: exit %d\n%s\n%s", code, stdOut, errOut)
	}
	for _, f := range []string{"model.scnn", "checkpoint.scnn"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	resume := []string{"train", "--resume", "--model", "cnn", "--out", out} // --features: the checkpoint's
	if code, stdOut, errOut = runCLI(t, resume...); code != 0 || !strings.Contains(stdOut, "time budget of 1ns spent") {
		t.Fatalf("--resume with the spent budget: exit %d\n%s\n%s", code, stdOut, errOut)
	}
	if code, _, errOut = runCLI(t, append(resume, "--lr", "0.01")...); code != 1 || !strings.Contains(errOut, "--lr 0.01 differs from the checkpoint's 0.001") {
		t.Fatalf("--resume --lr 0.01: exit %d\n%s", code, errOut)
	}
	code, stdOut, errOut = runCLI(t, append(resume, "--epochs", "1", "--budget", "0")...)
	if code != 0 || !strings.Contains(stdOut, "reached 1 epochs") || !strings.Contains(stdOut, "resume: --epochs 1: the checkpoint's run had 40") ||
		!strings.Contains(stdOut, "resume: --budget none: the checkpoint's run had 1ns") {
		t.Fatalf("--resume --epochs 1 --budget 0: exit %d\n%s\n%s", code, stdOut, errOut)
	}
	for cmd, use := range map[string]string{"rna": "use `contactmap train`", "rec": "use `contactmap train`"} {
		code, _, errOut := runCLI(t, cmd, "train", "--resume", "--out", out)
		if code != 1 || !strings.Contains(errOut, "checkpoint.scnn holds a protein contact model; "+use) {
			t.Errorf("%s train --resume of a protein run: exit %d, %s", cmd, code, errOut)
		}
	}
	code, _, errOut = runCLI(t, "eval", "--model", filepath.Join(out, "checkpoint.scnn"), "--features", feats, "--split", "all")
	if code != 1 || !strings.Contains(errOut, "is a checkpoint of the training run of a protein contact model, not a protein contact model file") {
		t.Errorf("a checkpoint as --model: exit %d, %s", code, errOut)
	}
}

// Counts that overflowed step counts (`rec train --batch
// 9223372036854775807` trained no step, `rna train --steps ...` failed
// with negative rounds) are usage errors naming the flag and the range;
// so is an absurd --workers (checkRanges' cap).
func TestTrainFlagLimits(t *testing.T) {
	const huge = "9223372036854775807"
	for _, args := range [][]string{
		{"rec", "train", "--batch", huge},
		{"rec", "train", "--epochs", huge},
		{"rec", "train", "--workers", "100000"},
		{"rna", "train", "--steps", huge},
		{"rna", "train", "--workers", "100000"},
		{"train", "--epochs", huge},
		{"train", "--patience", huge},
		{"train", "--workers", "100000"},
	} {
		code, _, errOut := runCLI(t, args...)
		flagName := args[len(args)-2]
		if code != 2 || !strings.Contains(errOut, flagName+" ") || !strings.Contains(errOut, "want a number from") && !strings.Contains(errOut, "want at most") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s and its range", args, code, errOut, flagName)
		}
	}
}
