package main

import (
	"os"
	"testing"

	"github.com/contactmap/contactmap/rna/ssnet"
)

func TestBlendProbs(t *testing.T) {
	const n = 4
	p := make([]float32, n*n)
	p[0*n+3], p[3*n+0] = 0.8, 0.8
	p[1*n+2], p[2*n+1] = 0.4, 0.4
	q := []ssnet.PairProb{{I: 0, J: 3, P: 0.2}, {I: 0, J: 2, P: 0.6}}
	got := blendProbs(p, n, q, 0.25)
	want := map[[2]int]float32{{0, 3}: 0.75*0.8 + 0.25*0.2, {1, 2}: 0.75 * 0.4, {0, 2}: 0.25 * 0.6}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a, b := i, j
			if a > b {
				a, b = b, a
			}
			if d := got[i*n+j] - want[[2]int{a, b}]; d > 1e-6 || d < -1e-6 {
				t.Errorf("(%d, %d): %g, want %g", i, j, got[i*n+j], want[[2]int{a, b}])
			}
		}
	}
	if p[0*n+2] != 0 {
		t.Error("blendProbs changed its input")
	}
	if one := blendProbs(p, n, q, 1); one[0*n+3] != 0.2 || one[1*n+2] != 0 {
		t.Errorf("w = 1: %v, want Q alone", one)
	}
}

func TestParseBlend(t *testing.T) {
	if ws, err := parseBlend("0.25, 0.5,1"); err != nil || len(ws) != 3 || ws[1] != 0.5 {
		t.Errorf("parseBlend: %v, %v", ws, err)
	}
	for _, bad := range []string{"0", "-0.5", "1.5", "x", "0.5,", "NaN", "0.25,0.251", "0.5,0.5"} {
		if _, err := parseBlend(bad); err == nil {
			t.Errorf("parseBlend(%q): no error", bad)
		}
	}
}

func TestReadClusters(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		path := dir + "/clusters.tsv"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	head := "name\tset\tcluster\tsize\tsplit\n"
	rows, err := readClusters(write(head + "a\tTR0\t3\t2\ttrain\nb\t16S-train\t3\t2\ttrain\nc\tTS0\t-\t0\t-\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows["a"].cluster != 3 || rows["b"].set != "16S-train" {
		t.Errorf("rows %v: want a and b of cluster 3, TS0's row left out", rows)
	}
	for _, bad := range []string{
		head + "a\tTR0\t3\t2\n",                             // a field short
		head + "a\tTR0\tx\t2\ttrain\n",                      // no cluster
		head + "a\tTR0\t0\t2\ttrain\n",                      // cluster 0
		head + "a\tTR0\t3\t2\ttrain\na\tTR0\t3\t2\ttrain\n", // twice
	} {
		if _, err := readClusters(write(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseGammas(t *testing.T) {
	gs, err := parseGammas("0.5, 1.5,4")
	if err != nil || len(gs) != 3 || gs[0] != 0.5 || gs[1] != 1.5 || gs[2] != 4 {
		t.Fatalf("parseGammas: %v, %v", gs, err)
	}
	if l := gammaLabel(0.5); l != "g0.5" {
		t.Errorf("gammaLabel(0.5) = %q", l)
	}
	for _, bad := range []string{"1", "0", "-2", "x", "2,2", "101", "NaN", ""} {
		if _, err := parseGammas(bad); err == nil {
			t.Errorf("parseGammas(%q) accepted", bad)
		}
	}
}

func TestPairedKeeps(t *testing.T) {
	lengths := map[string]int{"a": 100, "b": 300, "c": 300, "d": 50}
	hom := map[string]float64{"a": 0, "b": 0.5, "c": 0.2}
	for _, c := range []struct {
		minLen         int
		homMin, homMax float64
		want           string
	}{
		{0, -1, -1, "abcd"},
		{200, -1, -1, "bc"},
		{0, -1, 0, "a"},
		{0, 0, -1, "bc"},
		{0, 0, 0.3, "c"},
		{200, 0.3, -1, "b"},
	} {
		got := ""
		for _, n := range []string{"a", "b", "c", "d"} {
			if pairedKeeps(n, lengths, hom, c.minLen, c.homMin, c.homMax) {
				got += n
			}
		}
		if got != c.want {
			t.Errorf("min-len %d, homology in (%g, %g]: %q, want %q", c.minLen, c.homMin, c.homMax, got, c.want)
		}
	}
}
