package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDBRunSelect builds a database of the small set, searches each of
// its molecules against it with the real nhmmer, and checks the rows:
// one per molecule, tRNAs finding tRNAs, a run again doing nothing,
// and the scores file holding every candidate.
func TestDBRunSelect(t *testing.T) {
	if _, err := exec.LookPath("nhmmer"); err != nil {
		t.Skip("nhmmer not on PATH (Debian package hmmer)")
	}
	dir := t.TempDir()
	set := filepath.Join("testdata", "small.dbn")
	db := filepath.Join(dir, "db.fasta")
	if err := writeDB([]string{"-sets", set, "-out", db}); err != nil {
		t.Fatal(err)
	}
	if err := writeDB([]string{"-sets", set, "-out", db}); err == nil {
		t.Fatal("db overwrote its output")
	}
	out := filepath.Join(dir, "run")
	scores := filepath.Join(dir, "scores-CC.tsv")
	args := []string{"-db", db, "-set", set, "-out", out, "-threads", "2", "-scores", scores}
	if err := run(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	_, rows, err := table(filepath.Join(out, "rows.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10", len(rows))
	}
	trnaWith := 0
	for _, r := range rows {
		if strings.HasPrefix(r[0], "tRNA") && r[3] != "0" {
			trnaWith++
		}
	}
	if trnaWith < 2 {
		t.Errorf("%d tRNAs with a homolog, want at least 2", trnaWith)
	}
	before, _ := os.ReadFile(filepath.Join(out, "rows.tsv"))
	if err := run(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(out, "rows.tsv"))
	if string(before) != string(after) {
		t.Error("a second run changed rows.tsv")
	}
	sc, err := os.ReadFile(scores)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(sc), "\n"); n != 1+10*len(candidates) {
		t.Errorf("scores: %d lines, want %d", n, 1+10*len(candidates))
	}
	// The query's own centroid is the Turner ensemble's: with no
	// homolog every candidate of w 1 and the centroid decoder equals it.
	for _, r := range rows {
		if r[3] == "0" && r[6] != r[6+3*5] {
			t.Errorf("%s: no homolog, but centroid %s and w100-centroid %s", r[0], r[6], r[6+3*5])
		}
	}
	var b strings.Builder
	if err := selectCandidates([]string{"-in", out}, &b); err != nil || !strings.Contains(b.String(), "w100-mea2") {
		t.Errorf("select: %v\n%s", err, b.String())
	}
}
