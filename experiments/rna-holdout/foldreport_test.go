package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The fold table's family-fold mean is the mean of the family means, not
// of the molecules; the network's difference from the centroid is over
// the family's molecules; a fold without scores is listed, not averaged.
func TestFoldReport(t *testing.T) {
	dir := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a", "b", "c"} {
		write(filepath.Join(dir, f+".exclude.txt"), "x\n")
	}
	header := "predictor\tname\tlength\tf1\tmcc\tf1_slip\n"
	base := func(mols map[string]float64) string {
		s := header
		for _, p := range []string{"mfe", "centroid", "mea", "homology", "stacking"} {
			for n, v := range mols {
				s += p + "\t" + n + "\t10\t" + strconv.FormatFloat(v, 'f', 6, 64) + "\t0\t0\n"
			}
		}
		return s
	}
	// Family a: two molecules, the network 1.0 and 0.5, every baseline 0.2;
	// family b: one molecule, the network 0.0, the baselines 0.4.
	write(filepath.Join(dir, "a", "baselines.tsv"), base(map[string]float64{"a1": 0.2, "a2": 0.2}))
	write(filepath.Join(dir, "a", "scores-E.tsv"), header+"E/mea\ta1\t10\t1.0\t0\t0\nE/mea\ta2\t10\t0.5\t0\t0\nE/greedy\ta1\t10\t0.9\t0\t0\nE/greedy\ta2\t10\t0.4\t0\t0\n")
	write(filepath.Join(dir, "b", "baselines.tsv"), base(map[string]float64{"b1": 0.4}))
	write(filepath.Join(dir, "b", "scores-E.tsv"), header+"E/mea\tb1\t10\t0.0\t0\t0\nE/greedy\tb1\t10\t0.1\t0\t0\n")
	var out strings.Builder
	if err := foldReport(&out, dir, "E", "mea", ""); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| a | 2 | 0.750 | 0.650 | 0.200 | 0.200 | 0.200 | 0.200 | 0.200 | +0.550 [+0.300, +0.800] |",
		"| b | 1 | 0.000 | 0.100 | 0.400 |",
		"| **family-fold mean** (2 families) | 3 | 0.375 | 0.375 | 0.300 |", // (0.75 + 0) / 2; greedy (0.65 + 0.1) / 2
		"| all molecules | 3 | 0.500 | 0.467 | 0.267 |",                     // (1 + 0.5 + 0) / 3
		"Not yet scored: [c].",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if err := foldReport(&out, dir, "E", "other", ""); err == nil {
		t.Error("an unknown decoder: no error")
	}
	// An extra column, from another file of the folds; the consensus
	// decoder's other column is the network's MEA.
	write(filepath.Join(dir, "a", "scores-CC.tsv"), header+"CC/cc\ta1\t10\t0.3\t0\t0\nCC/cc\ta2\t10\t0.7\t0\t0\nE/cc\ta1\t10\t0.8\t0\t0\nE/cc\ta2\t10\t0.6\t0\t0\n")
	write(filepath.Join(dir, "b", "scores-CC.tsv"), header+"CC/cc\tb1\t10\t0.9\t0\t0\nE/cc\tb1\t10\t0.2\t0\t0\n")
	out.Reset()
	if err := foldReport(&out, dir, "E", "cc", "CC/cc"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| family | molecules | E/cc | E/mea | CC/cc | MFE |",
		"| a | 2 | 0.700 | 0.750 | 0.500 | 0.200 |",
		"| **family-fold mean** (2 families) | 3 | 0.450 | 0.375 | 0.700 | 0.300 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
