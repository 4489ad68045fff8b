package predict

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A structure file's chains are named CODE_CHAIN (1M8A_A):
// the PDB code upper-cased, the chain after one '_', no trailing '_' for
// an unnamed chain and no chain given twice (they were 1m8aA_ and
// 1CTF_A_A).
func TestStructureChainNames(t *testing.T) {
	f, err := os.Open("../../data/pdb/en/pdb1enh.ent.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	// The ATOM records of 1ENH (chain A), without the HEADER, with the
	// chain column set to chain.
	atoms := func(chain byte) string {
		var b strings.Builder
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "ATOM") && len(l) > 21 {
				b.WriteString(l[:21] + string(chain) + l[22:] + "\n")
			}
		}
		return b.String() + "END\n"
	}
	dir := t.TempDir()
	for _, c := range []struct {
		file  string
		chain byte
		text  string
		want  string
	}{
		{"1m8aA.pdb", ' ', "", "1M8A_A"},    // was 1m8aA_
		{"1CTF_A.pdb", 'A', "", "1CTF_A"},   // was 1CTF_A_A
		{"1ctf.pdb", 'B', "", "1CTF_B"},     // was 1ctf_B
		{"model.pdb", ' ', "", "model"},     // was model_
		{"model2.pdb", 'A', "", "model2_A"}, // a stem that is no PDB ID is kept
		{"3dmodel.pdb", 'A', "", "3dmodel_A"},
		{"x.pdb", ' ', "HEADER                                                        1ENH\n", "1ENH"},
		{"1enhA.pdb", ' ', "HEADER                                                        1ENH\n", "1ENH_A"},
		{"1enh_A.pdb", 'A', "HEADER                                                        1ENH\n", "1ENH_A"},
		{"2abc_A.pdb", 'A', "HEADER                                                        1ENH\n", "1ENH_A"},
	} {
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, []byte(c.text+atoms(c.chain)), 0o644); err != nil {
			t.Fatal(err)
		}
		ts, err := Resolve(path, "")
		if err != nil || len(ts) != 1 {
			t.Errorf("%s: %d targets, %v", c.file, len(ts), err)
			continue
		}
		if ts[0].ID != c.want {
			t.Errorf("%s (chain %q): ID %q, want %q", c.file, c.chain, ts[0].ID, c.want)
		}
	}
}

func TestPDBStem(t *testing.T) {
	for _, c := range []struct {
		stem, code, chain string
		ok                bool
	}{
		{"1m8a", "1M8A", "", true}, {"1m8aA", "1M8A", "A", true}, {"1ctf_A", "1CTF", "A", true},
		{"6uhg_AAA", "6UHG", "AAA", true}, {"1abc_a", "1ABC", "a", true},
		{"model", "", "", false}, {"0abc", "", "", false}, {"1ab", "", "", false}, {"1abcde", "", "", false},
		{"1abc_", "", "", false}, {"1abc_ABCDE", "", "", false}, {"1ab-", "", "", false},
	} {
		code, chain, ok := pdbStem(c.stem)
		if code != c.code || chain != c.chain || ok != c.ok {
			t.Errorf("pdbStem(%q) = %q, %q, %v; want %q, %q, %v", c.stem, code, chain, ok, c.code, c.chain, c.ok)
		}
	}
}

// A target named summary does not take the run's summary.tsv.
func TestAssignNamesSummary(t *testing.T) {
	ts := []Target{{ID: "Summary", Arg: "a.fa"}, {ID: "x", Arg: "a.fa"}}
	assignNames(ts)
	if ts[0].Name != "Summary_2" || !strings.Contains(ts[0].Naming, "summary.tsv") || ts[1].Name != "x" {
		t.Errorf("%+v", ts)
	}
}
