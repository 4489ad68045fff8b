package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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
