package main

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestRows: a row is its residues, gaps ('-', '.') removed and insertions
// upper-cased, from a PSICOV .aln.gz (one row a line) and from a FASTA
// alignment (records over several lines).
func TestRows(t *testing.T) {
	dir := t.TempDir()
	aln := filepath.Join(dir, "x.aln.gz")
	f, err := os.Create(aln)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	gz.Write([]byte("ACDE\nA-D-\n\n--..\n"))
	gz.Close()
	f.Close()
	got, err := rows(aln)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ACDE", "AD", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("aln rows %q, want %q", got, want)
	}
	fa := filepath.Join(dir, "y.fasta")
	if err := os.WriteFile(fa, []byte(">q\nAC\nDE\n>h/1-3\nA-c.D\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = rows(fa)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ACDE", "ACD"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fasta rows %q, want %q", got, want)
	}
}

// TestDropped: a Pfam family whose protein is a PSICOV family is not a
// second target; the others are.
func TestDropped(t *testing.T) {
	fams := []family{
		{name: "1t8kA", source: "psicov150"},
		{name: "1T8K_A", source: "pfam40"},
		{name: "2O9S_A", source: "pfam40"},
	}
	if got, want := dropped(fams), map[string]bool{"1T8K_A": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("dropped %v, want %v", got, want)
	}
}
