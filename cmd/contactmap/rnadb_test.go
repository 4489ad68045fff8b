package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rna predict --db with the real nhmmer: an ArchiveII tRNA's homologs
// among the test database's tRNAs give --method consensus its
// consensus, counted in the summary; --search-bin without --db and a
// database that is not there are refused.
func TestRNAPredictDB(t *testing.T) {
	if _, err := exec.LookPath("nhmmer"); err != nil {
		t.Skip("nhmmer not on PATH (Debian package hmmer)")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "q.fasta")
	if err := os.WriteFile(in, []byte(">trna\nGGGCUCGUAGAUCAGCGGUAGAUCGCUUCCUUCGCAAGGAAGAGGCCCUGGGUUCAAAUCCCAGCGAGUCCACCA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join("testdata", "trna.db.fasta")
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI(t, "rna", "predict", "--method", "consensus", "--db", db, "--out", out, in); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "consensus of ") || strings.Contains(string(summary), "consensus of 0 homologs") {
		t.Errorf("summary:\n%s", summary)
	}
	if code, _, _ := runCLI(t, "rna", "predict", "--search-bin", "nhmmer", "--out", filepath.Join(dir, "o2"), in); code != 2 {
		t.Errorf("--search-bin without --db: exit %d, want 2", code)
	}
	if code, _, stderr := runCLI(t, "rna", "predict", "--db", filepath.Join(dir, "none.fasta"), "--out", filepath.Join(dir, "o3"), in); code == 0 || !strings.Contains(stderr, "--db") {
		t.Errorf("a database that is not there: exit %d\n%s", code, stderr)
	}
}
