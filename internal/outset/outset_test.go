package outset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// deadPID is above Linux's PID_MAX_LIMIT (2^22): no process has it.
const deadPID = 1 << 30

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// set returns the set of four outputs of chain a in dir with content
// "<tag> <ext>".
func set(dir, tag string) []File {
	var fs []File
	for _, ext := range []string{"rr", "npy", "tsv", "png"} {
		fs = append(fs, File{Path: filepath.Join(dir, "a."+ext), Write: text(tag + " " + ext)})
	}
	return fs
}

// contents returns dir's files, name -> content.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func wantSet(t *testing.T, dir, tag string) {
	t.Helper()
	got := contents(t, dir)
	want := map[string]string{}
	for _, ext := range []string{"rr", "npy", "tsv", "png"} {
		want["a."+ext] = tag + " " + ext
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("directory holds %v, want the %s set alone %v", got, tag, want)
	}
}

func TestWriteSet(t *testing.T) {
	dir := t.TempDir()
	if err := Write(context.Background(), set(dir, "old")); err != nil {
		t.Fatal(err)
	}
	wantSet(t, dir, "old")
	if err := Write(context.Background(), set(dir, "new")); err != nil {
		t.Fatal(err)
	}
	wantSet(t, dir, "new")
	st, err := os.Stat(filepath.Join(dir, "a.rr"))
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("a.rr: mode %v, %v; want 0644", st.Mode(), err)
	}
}

// A writer that fails (a full disk) at the 3rd of 4 outputs leaves the
// old set whole: no mixture of old and new, no temporary file.
func TestFailedWriterKeepsOldSet(t *testing.T) {
	dir := t.TempDir()
	if err := Write(context.Background(), set(dir, "old")); err != nil {
		t.Fatal(err)
	}
	fs := set(dir, "new")
	full := errors.New("no space left on device")
	fs[2].Write = func(w io.Writer) error { io.WriteString(w, "half"); return full }
	err := Write(context.Background(), fs)
	if !errors.Is(err, full) || !strings.Contains(err.Error(), "a.tsv") {
		t.Errorf("error %v, want the writer's, naming a.tsv", err)
	}
	wantSet(t, dir, "old")
}

// A rename that fails midway puts the old files back.
func TestFailedRenameRestoresOldSet(t *testing.T) {
	dir := t.TempDir()
	old := set(dir, "old")[:3] // a.png did not exist
	if err := Write(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	n := 0
	rename = func(from, to string) error {
		if n++; n == 4 {
			return errors.New("injected rename failure")
		}
		return os.Rename(from, to)
	}
	defer func() { rename = os.Rename }()
	fs := set(dir, "new")
	// The set in another order: a.png, renamed first, had no old file.
	fs[0], fs[3] = fs[3], fs[0]
	err := Write(context.Background(), fs)
	if err == nil || !strings.Contains(err.Error(), "restored") {
		t.Fatalf("error %v, want the injected failure, old files restored", err)
	}
	got := contents(t, dir)
	want := map[string]string{"a.rr": "old rr", "a.npy": "old npy", "a.tsv": "old tsv"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
}

// An interrupt during a long output removes this process's temporary
// files and leaves the old set.
func TestCancelledWriteLeavesNoTemps(t *testing.T) {
	dir := t.TempDir()
	if err := Write(context.Background(), set(dir, "old")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	fs := set(dir, "new")
	fs[1].Write = func(w io.Writer) error {
		block := bytes.Repeat([]byte("x"), 1<<16)
		for k := 0; k < 1000; k++ {
			if k == 3 {
				cancel() // SIGINT
			}
			if _, err := w.Write(block); err != nil {
				return err
			}
		}
		return nil
	}
	if err := Write(ctx, fs); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	wantSet(t, dir, "old")
}

func TestParseOwn(t *testing.T) {
	for _, base := range []string{"a.rr", "1abc-x_A.png", "x.tmp-3.db", "-"} {
		name := filepath.Base(ownName(filepath.Join("d", base), kindTemp))
		p, ok := parseOwn(name)
		if !ok || p.name != base || p.pid != pid || p.host != host {
			t.Errorf("%s: parsed %+v %v, want %s of pid %d on %s", name, p, ok, base, pid, host)
		}
	}
	for _, name := range []string{"a.rr", ".a.rr.tmp123", ".a.rr.tmp-h-1", ".a.rr.new-h-1-2", ".a.rr.tmp--1-2", ".a.rr.tmp-h-0-2"} {
		if p, ok := parseOwn(name); ok {
			t.Errorf("%s parsed as %+v", name, p)
		}
	}
}

// Cleanup removes the temporary files of processes that are gone, never
// those of a live one: a second run into the same directory leaves the
// first's files alone.
func TestRemoveStaleSparesLiveWriters(t *testing.T) {
	dir := t.TempDir()
	touch := func(name string, age time.Duration) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if age > 0 {
			at := time.Now().Add(-age)
			os.Chtimes(p, at, at)
		}
	}
	live := fmt.Sprintf(".a.rr.tmp-%s-%d-7", host, pid)     // this process: writing
	liveOld := fmt.Sprintf(".a.rr.tmp-%s-%d-8", host, pid)  // still writing, slowly
	dead := fmt.Sprintf(".a.rr.tmp-%s-%d-7", host, deadPID) // a killed run
	deadOld := fmt.Sprintf(".a.npy.old-%s-%d-9", host, deadPID)
	otherName := fmt.Sprintf(".b.rr.tmp-%s-%d-7", host, deadPID) // not named
	farNew := fmt.Sprintf(".a.rr.tmp-otherhost-%d-7", deadPID)   // another host's
	farOld := fmt.Sprintf(".a.png.tmp-otherhost-%d-8", deadPID)
	touch(live, 0)
	touch(liveOld, 48*time.Hour)
	touch(dead, 0)
	touch(deadOld, 0)
	touch(otherName, 0)
	touch(farNew, 0)
	touch(farOld, 48*time.Hour)
	touch(".a.rr.tmp123", 0)             // fileio.WriteAtomic's, fresh
	touch(".a.npy.tmp456", 48*time.Hour) // and left for two days
	touch("a.rr", 48*time.Hour)          // an output
	if err := RemoveStale(dir, "a.rr", "a.npy", "a.png"); err != nil {
		t.Fatal(err)
	}
	var left []string
	for name := range contents(t, dir) {
		left = append(left, name)
	}
	want := []string{live, liveOld, otherName, farNew, ".a.rr.tmp123", "a.rr"}
	if fmt.Sprint(sorted(left)) != fmt.Sprint(sorted(want)) {
		t.Errorf("left %v, want %v", sorted(left), sorted(want))
	}
	// Without names: every dead process's file of this package's.
	if err := RemoveStale(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, otherName)); err == nil {
		t.Errorf("%s left by RemoveStale without names", otherName)
	}
	if _, err := os.Stat(filepath.Join(dir, live)); err != nil {
		t.Errorf("%s removed: %v", live, err)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// Two runs into one directory: while one writes its chain's set, the
// other's cleanup runs and writes its own; both sets end whole.
func TestTwoWritersOneDirectory(t *testing.T) {
	dir := t.TempDir()
	first := set(dir, "first")
	writing, finish := make(chan bool), make(chan bool)
	first[2].Write = func(w io.Writer) error {
		io.WriteString(w, "first tsv")
		writing <- true
		<-finish
		return nil
	}
	var wg sync.WaitGroup
	var err1 error
	wg.Add(1)
	go func() { defer wg.Done(); err1 = Write(context.Background(), first) }()
	<-writing // the first run is mid-set: two temporary files written, one open
	if err := RemoveStale(dir, "a.rr", "a.npy", "a.tsv", "a.png", "b.rr"); err != nil {
		t.Fatal(err)
	}
	if err := RemoveStale(dir); err != nil {
		t.Fatal(err)
	}
	second := []File{{Path: filepath.Join(dir, "b.rr"), Write: text("second rr")}}
	if err := Write(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	close(finish)
	wg.Wait()
	if err1 != nil {
		t.Fatalf("first run: %v", err1)
	}
	got := contents(t, dir)
	if len(got) != 5 || got["a.tsv"] != "first tsv" || got["a.png"] != "first png" || got["b.rr"] != "second rr" {
		t.Errorf("directory holds %v, want the first run's four files and the second's one", got)
	}
}

// RemoveOwnTemps removes this process's temporary files in the
// directories written to, and leaves other processes' and the outputs.
func TestRemoveOwnTemps(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a.rr")
	if err := Write(context.Background(), []File{{Path: out, Write: func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }}}); err != nil {
		t.Fatal(err)
	}
	mine := ownName(filepath.Join(dir, "b.rr"), kindTemp)
	other := filepath.Join(dir, fmt.Sprintf(".b.rr.%s-%s-%d-1", kindTemp, host, pid+1))
	for _, f := range []string{mine, other} {
		if err := os.WriteFile(f, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	RemoveOwnTemps()
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("this process's temporary file survived: %v", err)
	}
	for _, f := range []string{other, out} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{"1ENH_A": "1ENH_A", "..": "_.", "": "unnamed", "a/b\\c d": "a_b_c_d", ".hidden": "_hidden",
		"sp|P69905|HBA_HUMAN": "sp_P69905_HBA_HUMAN", "x\x00y": "x_y", strings.Repeat("a", 300): strings.Repeat("a", 200)} {
		if got := SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}
