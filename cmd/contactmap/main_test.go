package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/train"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		s    string
		i, n int
		ok   bool
	}{{"0/1", 0, 1, true}, {"3/4", 3, 4, true}, {"4/4", 0, 0, false}, {"-1/2", 0, 0, false}, {"1", 0, 0, false}, {"a/b", 0, 0, false}} {
		i, n, err := parseShard(tc.s)
		if (err == nil) != tc.ok || tc.ok && (i != tc.i || n != tc.n) {
			t.Errorf("%q: %d/%d %v", tc.s, i, n, err)
		}
	}
}

func TestFeaturesCommand(t *testing.T) {
	out := t.TempDir()
	err := runFeatures(context.Background(), []string{"--list", "../../pipeline/features/testdata/small.list",
		"--pdb-dir", "../../data/pdb", "--out", out, "--workers", "2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"manifest.tsv", "skipped.tsv", "1ENH_A.feat.zst"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if err := runFeatures(context.Background(), []string{"--list", "x"}); err == nil {
		t.Error("missing flags accepted")
	}
}

// Inputs from standard input ("-"), as in `grep ... | contactmap predict -`;
// a failed input makes the command fail after the others complete.
func TestPredictCommandStdin(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.scnn")
	a := train.DefaultArch(train.SCNN)
	a.Mode = "seq"
	m, _ := train.NewModel(a, 1)
	if err := m.Save(model); err != nil {
		t.Fatal(err)
	}
	r, w, _ := os.Pipe()
	w.WriteString("# a comment\n1ENH_A\n\n9ZZZ_A\n")
	w.Close()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	out := filepath.Join(dir, "out")
	err := runPredict(context.Background(), []string{"--model", model, "--pdb-dir", "../../data/pdb", "--out", out, "-"})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 inputs failed") {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "1ENH_A.rr")); err != nil {
		t.Error(err)
	}
}
