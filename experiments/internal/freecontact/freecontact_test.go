package freecontact

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The outputs in testdata are freecontact 1.0.21's for the PSICOV family
// 1aapA (56 columns): evfold lists every pair, psicov only those with a
// nonzero score.
func TestParseRealOutputs(t *testing.T) {
	const l = 56
	for _, tc := range []struct {
		file  string
		lines int
	}{{"testdata/1aapA.evfold.out", l * (l - 1) / 2}, {"testdata/1aapA.psicov.out", 1207}} {
		out, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(out), "\n"); n != tc.lines {
			t.Fatalf("%s: %d lines, want %d", tc.file, n, tc.lines)
		}
		s, err := Parse(out, l)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		for i := 0; i < l; i++ {
			if s[i*l+i] != 0 {
				t.Errorf("%s: diagonal %d = %g", tc.file, i, s[i*l+i])
			}
			for j := 0; j < l; j++ {
				if s[i*l+j] != s[j*l+i] {
					t.Fatalf("%s: not symmetric at (%d, %d)", tc.file, i, j)
				}
			}
		}
	}
	// Spot values, read off the files' lines.
	ev, _ := os.ReadFile("testdata/1aapA.evfold.out")
	s, _ := Parse(ev, l)
	first := strings.Fields(strings.SplitN(string(ev), "\n", 2)[0]) // "1 V 2 R mi score"
	if first[0] != "1" || first[2] != "2" {
		t.Fatalf("first evfold line %q", first)
	}
	if got := s[0*l+1]; got != mustFloat(t, first[5]) {
		t.Errorf("evfold (1, 2) = %g, want the line's last field %s", got, first[5])
	}
	ps, _ := os.ReadFile("testdata/1aapA.psicov.out")
	p, _ := Parse(ps, l)
	if got := p[13*l+37]; got != 42.015293 { // "14 38 0 8 42.015293"
		t.Errorf("psicov (14, 38) = %g, want 42.015293", got)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, out, want string }{
		{"empty", "", "no pairs"},
		{"fields", "1 2 3\n", "line 1: 3 fields"},
		{"number", "1 V x R 0 1\n", "line 1"},
		{"range", "1 V 9 R 0 1\n", "outside 1..4"},
		{"diagonal", "2 V 2 R 0 1\n", "diagonal"},
		{"second line", "1 V 2 R 0 1\n1 V 3 R 0 one\n", "line 2"},
		{"nan", "1 V 2 R 0 NaN\n", "not a finite number"},
		{"inf", "1 V 2 R 0 1\n1 V 3 R -Inf 0.5\n1 V 4 R 0 +Inf\n", "line 3: score \"+Inf\" is not a finite"},
	} {
		_, err := Parse([]byte(tc.out), 4)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to say %q", tc.name, err, tc.want)
		}
	}
}

// FuzzParse feeds Parse arbitrary outputs: an accepted one gives an l x l
// map, symmetric, finite, zero on the diagonal.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"1aapA.evfold.out", "1aapA.psicov.out"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4000)], 56)
	}
	f.Add([]byte("1 V 2 R 0 1\n1 V 3 R 0 0.5\n"), 4)
	f.Add([]byte("1 2 0.1 0 1\n"), 2)
	f.Fuzz(func(t *testing.T, out []byte, l int) {
		if l < 0 || l > 300 {
			return
		}
		s, err := Parse(out, l)
		if err != nil {
			return
		}
		if len(s) != l*l {
			t.Fatalf("%d scores for l = %d", len(s), l)
		}
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				v := s[i*l+j]
				if v != s[j*l+i] || math.IsNaN(v) || math.IsInf(v, 0) || i == j && v != 0 {
					t.Fatalf("score (%d, %d) = %v, (%d, %d) = %v", i, j, v, j, i, s[j*l+i])
				}
			}
		}
	})
}

// TestRun runs the installed freecontact on a small alignment, where it is
// installed; Cached reads its own file back without running it again.
func TestRun(t *testing.T) {
	if _, err := exec.LookPath("freecontact"); err != nil {
		if _, _, err := Run([]string{"ACDE"}, "evfold", 1); !errors.Is(err, ErrNotInstalled) {
			t.Fatalf("without freecontact: %v, want ErrNotInstalled", err)
		}
		t.Skip("freecontact not installed")
	}
	rows := []string{"ACDEFGHIKL", "ACDEFGHIKL", "ACEEFGHVKL", "SCDEWGHIKM", "ACDQFGAIKL", "TCDEFGHLKL", "ACDEYGHIRL"}
	s, _, err := Run(rows, "evfold", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 100 {
		t.Fatalf("%d scores, want 100", len(s))
	}
	dir := t.TempDir()
	c1, _, err := Cached(dir, "toy", rows, "evfold", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "") // a second call must not need the program
	c2, _, err := Cached(dir, "toy", rows, "evfold", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for k := range s {
		if s[k] != c1[k] || c1[k] != c2[k] {
			t.Fatalf("score %d: run %g, cached %g, read back %g", k, s[k], c1[k], c2[k])
		}
	}
}

// TestCachedTimeLimit runs a stand-in freecontact (a shell script) that
// sleeps past the limit: the run is stopped, leaves its .timeout, and a
// later call under the same limit returns ErrTimeLimit without running;
// one without a limit runs it and clears the mark.
func TestCachedTimeLimit(t *testing.T) {
	bin := t.TempDir()
	count := filepath.Join(bin, "runs")
	slow := filepath.Join(bin, "slow")
	script := "#!/bin/sh\necho run \"$@\" >> " + count + "\ncat > /dev/null\n" +
		"if [ -f " + slow + " ]; then exec sleep 30; fi\necho '1 A 2 C 0 0.5'\n"
	if err := os.WriteFile(filepath.Join(bin, "freecontact"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(slow, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	runs := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "run")
	}
	dir := t.TempDir()
	rows := []string{"AC", "AC"}
	limit := 300 * time.Millisecond
	if _, _, err := Cached(dir, "k", rows, "psicov", 1, limit); !errors.Is(err, ErrTimeLimit) {
		t.Fatalf("first call: %v, want ErrTimeLimit", err)
	}
	mark := filepath.Join(dir, "k.psicov.timeout")
	if b, err := os.ReadFile(mark); err != nil || strings.TrimSpace(string(b)) != "0.300" {
		t.Fatalf("timeout mark %q, %v; want 0.300", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "k.psicov.out")); err == nil {
		t.Fatal("a stopped run left an output file")
	}
	// The stand-in may not have started before it was killed (a loaded
	// machine): count the runs from here.
	n0 := runs()
	if _, _, err := Cached(dir, "k", rows, "psicov", 1, limit); !errors.Is(err, ErrTimeLimit) || runs() != n0 {
		t.Fatalf("second call: %v after %d runs, want ErrTimeLimit without a second run", err, runs()-n0)
	}
	// A limit read back from its marker compares to the millisecond:
	// 1.001 s is not taken for less than 1001 ms.
	if err := os.WriteFile(filepath.Join(dir, "p.psicov.timeout"), []byte("1.001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Cached(dir, "p", rows, "psicov", 1, 1001*time.Millisecond); !errors.Is(err, ErrTimeLimit) || runs() != n0 {
		t.Fatalf("under the marked limit of 1.001 s: %v after %d runs, want ErrTimeLimit without a run", err, runs()-n0)
	}
	if _, _, err := Stored(dir, "k", 2, "psicov"); !errors.Is(err, ErrTimeLimit) {
		t.Fatalf("Stored after a stopped run: %v, want ErrTimeLimit", err)
	}
	if _, _, err := Stored(dir, "other", 2, "psicov"); !errors.Is(err, ErrNotCached) {
		t.Fatalf("Stored of a key never run: %v, want ErrNotCached", err)
	}
	if err := os.Remove(slow); err != nil {
		t.Fatal(err)
	}
	s, _, err := Cached(dir, "k", rows, "psicov", 1, 0)
	if err != nil || runs() != n0+1 || s[1] != 0.5 || s[2] != 0.5 {
		t.Fatalf("without a limit: %v, %d runs, scores %v", err, runs()-n0, s)
	}
	if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the timeout mark outlived a finished run: %v", err)
	}
	if st, _, err := Stored(dir, "k", 2, "psicov"); err != nil || st[1] != 0.5 || runs() != n0+1 {
		t.Fatalf("Stored after the finished run: %v, scores %v, %d runs", err, st, runs()-n0)
	}
	// freecontact's own limit on the PSICOV estimation (1800 s by
	// default) is lifted above ours, so ours governs; without one of
	// ours, freecontact's default holds.
	if _, _, err := Cached(dir, "q", rows, "psicov", 1, 9500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(count)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "--icme-timeout 70") {
		t.Fatalf("under a 9.5 s limit the stand-in ran with %q, want --icme-timeout 70 (rounded up, plus a minute)", last)
	}
	if prev := lines[len(lines)-2]; strings.Contains(prev, "icme") {
		t.Fatalf("without a limit the stand-in ran with %q", prev)
	}
}
