package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchQuery writes the 1aapA query of pipeline/search's test data as
// a FASTA file and its family as a database; it returns both paths and
// the query's sequence.
func searchQuery(t *testing.T) (db, query, seq string) {
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
	seq = strings.TrimSpace(strings.Split(string(q), "\n")[1])
	db, query = filepath.Join(dir, "db.fasta"), filepath.Join(dir, "q.fasta")
	os.WriteFile(db, fam, 0o644)
	os.WriteFile(query, []byte(">1aapA\n"+seq+"\n"), 0o644)
	return db, query, seq
}

func summaryMethod(t *testing.T, out string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "summary.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("summary.tsv:\n%s", data)
	}
	return strings.Split(lines[1], "\t")[4]
}

// TestPredictDBSearchesOnceAndPredictsWithMSA: predict --db builds the
// query's alignment into OUT/msa, predicts it with the msa network, and
// names the alignment and its depth in the summary; a second run reuses
// the alignment (no search: its file and the manifest are untouched).
func TestPredictDBSearchesOnceAndPredictsWithMSA(t *testing.T) {
	if _, err := exec.LookPath("jackhmmer"); err != nil {
		t.Skip("jackhmmer not on PATH: install the Debian package hmmer (CI does)")
	}
	db, query, _ := searchQuery(t)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"predict", "--db", db, "--out", out, "--format", "rr", query}
	var o, e bytes.Buffer
	if code := run(args, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	aln := filepath.Join(out, "msa", "1aapA.a3m")
	if m := summaryMethod(t, out); !strings.HasPrefix(m, "network msa ("+aln+", depth ") || !strings.Contains(m, "Neff/L") {
		t.Errorf("summary method %q, want the msa network and %s with its depth", m, aln)
	}
	if !strings.Contains(e.String(), "(built by jackhmmer)") {
		t.Errorf("stderr does not say the alignment was built: %s", e.String())
	}
	if strings.Contains(e.String(), "give --db") {
		t.Errorf("the single-sequence note with --db: %s", e.String())
	}
	manifest := filepath.Join(out, "msa", "manifest.tsv")
	m1, err := os.ReadFile(manifest)
	if err != nil || !strings.Contains(string(m1), "1aapA\t56\t") {
		t.Fatalf("manifest: %v\n%s", err, m1)
	}
	old := time.Unix(1e9, 0) // an mtime a rewrite would change
	os.Chtimes(aln, old, old)
	os.Chtimes(manifest, old, old)

	o.Reset()
	e.Reset()
	if code := run(append(args, "--force"), &o, &e); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, e.String())
	}
	for _, f := range []string{aln, manifest} {
		if st, err := os.Stat(f); err != nil || !st.ModTime().Equal(old) {
			t.Errorf("%s rewritten by the second run (%v)", f, err)
		}
	}
	if !strings.Contains(e.String(), "(reused)") || !strings.HasPrefix(summaryMethod(t, out), "network msa ("+aln) {
		t.Errorf("second run: stderr %s, method %s", e.String(), summaryMethod(t, out))
	}
}

// TestPredictDBShallowFallsBack: an alignment below predict.MinNeffL in
// --msa-dir is not used: the chain is predicted by the single-sequence
// model with a note, or under --strict fails. No search runs (the
// alignment exists), so no tool is needed: true stands in for it.
func TestPredictDBShallowFallsBack(t *testing.T) {
	db, query, seq := searchQuery(t)
	dir := t.TempDir()
	msaDir := filepath.Join(dir, "msas")
	os.Mkdir(msaDir, 0o755)
	// The query and one copy of it: Neff 1, Neff/L 1/56.
	if err := os.WriteFile(filepath.Join(msaDir, "1aapA.aln"), []byte(seq+"\n"+seq+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := []string{"predict", "--db", db, "--search-bin", "true", "--msa-dir", msaDir, "--out", out, "--format", "rr", query}
	var o, e bytes.Buffer
	if code := run(args, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	if !strings.Contains(e.String(), "too shallow for the msa network") || !strings.Contains(e.String(), "predicted by the single-sequence model") {
		t.Errorf("no fallback note: %s", e.String())
	}
	if m := summaryMethod(t, out); !strings.HasPrefix(m, "network distilled (alignment too shallow: "+filepath.Join(msaDir, "1aapA.aln")+", depth 2, Neff/L 0.02)") {
		t.Errorf("summary method %q", m)
	}
	o.Reset()
	e.Reset()
	if code := run(append(args, "--strict", "--force"), &o, &e); code != 1 {
		t.Fatalf("--strict: exit %d, want 1: %s", code, e.String())
	}
	if !strings.Contains(e.String(), "too shallow") || !strings.Contains(e.String(), "1 of 1 input") {
		t.Errorf("--strict: %s", e.String())
	}
}

// TestPredictSequenceNoteWithoutDB: without --db, a sequence predicted by
// the single-sequence default gets the note that says how to use the msa
// network; the search flags need --db.
func TestPredictSequenceNoteWithoutDB(t *testing.T) {
	_, query, _ := searchQuery(t)
	out := filepath.Join(t.TempDir(), "out")
	var o, e bytes.Buffer
	if code := run([]string{"predict", "--out", out, "--format", "rr", query}, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	if n := strings.Count(e.String(), "give --db SEQDB"); n != 1 {
		t.Errorf("the note %d times: %s", n, e.String())
	}
	e.Reset()
	if code := run([]string{"predict", "--out", out, "--search", "mmseqs", query}, &o, &e); code != 2 || !strings.Contains(e.String(), "give --db too") {
		t.Errorf("--search without --db: exit %d: %s", code, e.String())
	}
}
