package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChainID(t *testing.T) {
	for _, tc := range []struct{ source, id, want string }{
		{PSICOV, "1aapA", "1AAP_A"},
		{PSICOV, "1a3aA", "1A3A_A"},
		{Pfam, "1AQT_A", "1AQT_A"},
		{PSICOV, "1AQT_A", ""},
		{PSICOV, "1aap", ""},
		{Pfam, "1aapA", ""},
		{"cath", "1aapA", ""},
	} {
		got, _, _, err := ChainID(tc.source, tc.id)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("ChainID(%s, %s) = %q, %v; want %q", tc.source, tc.id, got, err, tc.want)
		}
	}
}

// A protein in both sources keeps its PSICOV row, whichever comes first;
// two rows on different sides, or two rows of one source, are errors.
func TestChainsDuplicates(t *testing.T) {
	fam := func(id, src, group, split string) Family {
		return Family{ID: id, Source: src, Group: group, Split: split, Line: 2}
	}
	chains, dropped, err := Chains("f", []Family{
		fam("1CTF_A", Pfam, "g1", "train"), fam("1ctfA", PSICOV, "g1", "train"), fam("2abcB", PSICOV, "g2", "test"),
	})
	if err != nil || len(chains) != 2 || chains[0].Source != PSICOV || chains[0].ChainID != "1CTF_A" || chains[1].ChainID != "2ABC_B" ||
		len(dropped) != 1 || dropped[0].Source != Pfam {
		t.Errorf("chains %+v, dropped %+v, %v", chains, dropped, err)
	}
	for name, fs := range map[string][]Family{
		"two sides":  {fam("1ctfA", PSICOV, "g1", "train"), fam("1CTF_A", Pfam, "g1", "test")},
		"one source": {fam("1ctfA", PSICOV, "g1", "train"), fam("1ctfA", PSICOV, "g1", "train")},
		"bad ID":     {fam("1ctf", PSICOV, "g1", "train")},
	} {
		if _, _, err := Chains("f", fs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Split("valid"); err != nil {
		t.Error(err)
	}
	if _, err := Split("dev"); err == nil {
		t.Error("split dev accepted")
	}
}

// The committed chains.tsv and msa/ links are what the generator writes
// from the committed families.tsv (skipped without ../shared).
func TestCommittedOutputsCurrent(t *testing.T) {
	root := "../../.."
	if _, err := os.Stat(filepath.Join(root, "../shared/data/psicov150/aln")); err != nil {
		t.Skipf("no PSICOV families: %v", err)
	}
	out := t.TempDir()
	chains, dropped, err := Run("../split/families.tsv", root, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(chains) != 138 || len(dropped) != 4 {
		t.Errorf("%d chains, %d dropped; want 138 and 4", len(chains), len(dropped))
	}
	got, _ := os.ReadFile(filepath.Join(out, "chains.tsv"))
	want, err := os.ReadFile("chains.tsv")
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("chains.tsv is not what the generator writes (%v): rerun go run ./experiments/msa-net/sets", err)
	}
	resolve := func(dir string) map[string]string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			target, err := os.Readlink(p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			abs, err := filepath.Abs(filepath.Join(dir, target))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s: dangling link: %v", p, err)
			}
			m[e.Name()] = abs
		}
		return m
	}
	a, b := resolve(filepath.Join(out, "msa")), resolve("msa")
	if len(a) != 138 || len(a) != len(b) {
		t.Errorf("%d links written, %d committed", len(a), len(b))
	}
	for name, target := range a {
		if b[name] != target {
			t.Errorf("msa/%s -> %s, want %s", name, b[name], target)
		}
	}
	// A second run over the same directory changes nothing; a stray file
	// there is an error, not removed.
	if _, _, err := Run("../split/families.tsv", root, out); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(out, "msa", "9XYZ_A.aln")
	os.WriteFile(stray, []byte("AC\n"), 0o644)
	if _, _, err := Run("../split/families.tsv", root, out); err == nil || !strings.Contains(err.Error(), "not a symbolic link") {
		t.Errorf("stray file: %v", err)
	}
}
