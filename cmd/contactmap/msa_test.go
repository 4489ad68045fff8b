package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// msaTestDB writes a small FASTA database (the 1aapA family members of
// pipeline/search's test data) and a FASTA of queries: two copies of the
// query and a record with no sequence.
func msaTestDB(t *testing.T) (db, queries string) {
	t.Helper()
	dir := t.TempDir()
	fam, err := os.ReadFile("../../pipeline/search/testdata/1aapA.family.fasta")
	if err != nil {
		t.Fatal(err)
	}
	q, err := os.ReadFile("../../pipeline/search/testdata/1aapA.query.fasta")
	if err != nil {
		t.Fatal(err)
	}
	seq := strings.Split(string(q), "\n")[1]
	db, queries = filepath.Join(dir, "db.fasta"), filepath.Join(dir, "queries.fasta")
	os.WriteFile(db, fam, 0o644)
	os.WriteFile(queries, []byte(">q1 first\n"+seq+"\n>empty\n\n>q/2\n"+seq[3:]+"\n"), 0o644)
	return db, queries
}

func TestMSAUsageAndMissingTool(t *testing.T) {
	db, queries := msaTestDB(t)
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"msa", queries, "--out", out}, 2, "--db"},
		{[]string{"msa", "--db", db, "--search", "blast", queries}, 2, "unknown search tool"},
		{[]string{"msa", "--db", db, "--format", "fasta", queries}, 2, "--format"},
		{[]string{"msa", "--db", db, "--max-identity", "2", queries}, 2, "--max-identity"},
		{[]string{"msa", "--db", db, "--out", out, "--search-bin", "/nonexistent", queries}, 1, "Debian package hmmer"},
		{[]string{"msa", "--db", db, "--out", out, "--search", "mmseqs", "--search-bin", "/nonexistent", queries}, 1, "Debian package mmseqs2"},
		{[]string{"msa", "--db", db, "--out", out, "--search", "hhblits", "--search-bin", "/nonexistent", queries}, 1, "Debian package hhsuite"},
	} {
		var o, e bytes.Buffer
		if code := run(tc.args, &o, &e); code != tc.code || !strings.Contains(e.String(), tc.want) {
			t.Errorf("%q: exit %d, want %d; stderr %q, want %q", tc.args, code, tc.code, e.String(), tc.want)
		}
	}
}

func TestMSARun(t *testing.T) {
	if _, err := exec.LookPath("jackhmmer"); err != nil {
		t.Skip("jackhmmer not on PATH: install the Debian package hmmer (CI does)")
	}
	db, queries := msaTestDB(t)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"msa", "--db", db, "--out", out, "--iterations", "1", "--threads", "1", "--workers", "2", queries}
	var o, e bytes.Buffer
	if code := run(args, &o, &e); code != 1 {
		t.Fatalf("exit %d, want 1 (the empty record fails); stderr %s", code, e.String())
	}
	if !strings.Contains(e.String(), "failed:") || !strings.Contains(e.String(), "empty sequence") || !strings.Contains(e.String(), "1 of 3 inputs failed") {
		t.Errorf("failure list: %s", e.String())
	}
	for _, f := range []string{"q1.a3m", "q1.log", "q_2.a3m", "manifest.tsv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("output %s: %v", f, err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(out, "manifest.tsv"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "query\tlength\tdepth\tneff_per_l\tstatus\ttool\tversion\tdatabase\tseconds") {
		t.Fatalf("manifest:\n%s", data)
	}
	if f := strings.Split(lines[1], "\t"); f[0] != "q1" || f[4] != "ok" || f[5] != "jackhmmer" || f[2] == "-" {
		t.Errorf("manifest row: %q", f)
	}
	if !strings.Contains(o.String(), "Neff/L") {
		t.Errorf("no table on stdout: %s", o.String())
	}

	o.Reset()
	e.Reset()
	run(args, &o, &e)
	if !strings.Contains(e.String(), "q1.a3m exists: skipped") {
		t.Errorf("second run did not skip: %s", e.String())
	}
	o.Reset()
	e.Reset()
	run(append(args, "--force"), &o, &e)
	if strings.Contains(e.String(), "skipped") || !strings.Contains(o.String(), "q1") {
		t.Errorf("--force did not redo: %s %s", o.String(), e.String())
	}
}
