package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// numericFlags lists a command's integer and duration flags from its -h.
func numericFlags(t *testing.T, command string) []string {
	t.Helper()
	_, out, _ := runCLI(t, append(strings.Fields(command), "-h")...)
	re := regexp.MustCompile(`(?m)^  -([a-z0-9-]+) (int|uint|int64|uint64|duration)\b`)
	var names []string
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		names = append(names, m[1])
	}
	return names
}

// Every integer flag of every command, set to the largest
// int64 (and to its negation where it is signed), ends in a clean exit:
// a usage error or a failed run, never a panic or a Go runtime abort, and
// within seconds (no goroutines started until the runtime dies, no
// training of 2^63 steps). Each runs in a child process in an empty
// directory, so nothing is found and nothing is written beside the
// checkout.
func TestHugeNumericFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("a child process for each numeric flag of every command")
	}
	type job struct{ args []string }
	var jobs []job
	for _, c := range allCommands() {
		for _, f := range numericFlags(t, c) {
			for _, v := range []string{"9223372036854775807", "-9223372036854775808"} {
				args := append(strings.Fields(c), "--"+f, v)
				if f == "budget" || f == "checkpoint-every" {
					args[len(args)-1] = "2562047h" // the largest time.Duration
				}
				switch c {
				case "predict": // a real input, so that the outputs' code runs
					args = append(args, "--force", "p.fa")
				case "rna predict":
					args = append(args, "--force", "r.fa")
				case "rec recommend":
					args = append(args, "nothing-here")
				}
				jobs = append(jobs, job{args})
			}
		}
	}
	if len(jobs) < 40 {
		t.Fatalf("only %d numeric flag cases found: the help format changed?", len(jobs))
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"p.fa": ">p\nMKVLAAGIVGLLLAGCSSHKEEAPKTEVKAEQPAAEVKPA\n",
		"r.fa": ">r\nGGGAAACCCAUAGCUAGCUAGGGAAACCC\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCLI$")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "CONTACTMAP_CLI="+strings.Join(j.args, "\n"), "GOTRACEBACK=single")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Error(err)
				return
			}
			timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
			cmd.Wait()
			timedOut := !timer.Stop()
			code := cmd.ProcessState.ExitCode()
			text := out.String()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case timedOut:
				t.Errorf("%v: still running after 30 s:\n%.600s", j.args, text)
			case strings.Contains(text, "panic:") || strings.Contains(text, "fatal error:") || strings.Contains(text, "goroutine "):
				t.Errorf("%v: panicked or aborted (exit %d):\n%.600s", j.args, code, text)
			case code == 0 && (j.args[0] == "predict" || j.args[0] == "rna"):
				// a prediction with a large --rr-min-sep, say: valid
			case code != 1 && code != 2:
				t.Errorf("%v: exit %d, want 1 or 2:\n%.600s", j.args, code, text)
			}
		}()
	}
	wg.Wait()
}
