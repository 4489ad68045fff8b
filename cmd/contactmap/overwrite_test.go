package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reports and sets already on disk are not overwritten without
// --force: each command refuses before any work (no data is given here,
// so any work would fail otherwise), naming the file and --force, and
// leaves it as it was.
func TestReportsNotOverwritten(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report")
	setsDir := filepath.Join(dir, "sets")
	if err := os.MkdirAll(setsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := append(reportFiles(report), filepath.Join(setsDir, "extended.tsv"))
	for _, f := range files {
		if err := os.WriteFile(f, []byte("earlier\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"eval", "--features", filepath.Join(dir, "none"), "--out", report},
		{"compare", "--runs", filepath.Join(dir, "none"), "--out", report},
		{"compare", "--side", "a=x", "--side", "b=y", "--out", report},
		{"rna", "eval", "--set", filepath.Join(dir, "none"), "--out", report},
		{"rna", "compare", "--runs", filepath.Join(dir, "none"), "--set", filepath.Join(dir, "none"), "--out", report},
		{"rec", "compare", "--runs", filepath.Join(dir, "none"), "--data", filepath.Join(dir, "none"), "--out", report},
		{"sets", "--features", filepath.Join(dir, "none"), "--out", setsDir},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, "exists") || !strings.Contains(errOut, "--force") {
			t.Errorf("%v: exit %d, %q; want 1 naming the existing file and --force", args, code, errOut)
		}
	}
	for _, f := range files {
		if b, _ := os.ReadFile(f); string(b) != "earlier\n" {
			t.Errorf("%s was changed: %q", f, b)
		}
	}
}
