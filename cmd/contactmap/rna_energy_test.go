package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// goldenLines returns the first n lines of a golden file of rna/fold.
func goldenLines(t *testing.T, name string, n int) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "rna", "fold", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < n {
		t.Fatalf("%s: %d lines", name, len(lines))
	}
	return lines[:n]
}

// rna predict writes the Turner 2004 energy of its folds as RNAfold
// prints it: the MFE, centroid and MEA structure lines of the
// dot-bracket output are RNAfold's (-p --MEA, and --maxBPspan=30 with
// --max-span 30) for its test sequence, the ensemble free energy follows
// in a comment, the CT length line carries the energy, and the outputs
// read back. --max-span is refused below 0 and said to be unused by a
// network.
func TestRNAPredictEnergy(t *testing.T) {
	pf := goldenLines(t, "rnafold.small.pf.gold", 5) // sequence, MFE, tendency [G], centroid, MEA
	span := goldenLines(t, "rnafold.small.span30.gold", 3)
	seq := pf[0]
	if span[0] != seq {
		t.Fatal("the golden files start with different sequences")
	}
	g := strings.Fields(pf[2])
	ensemble := strings.Trim(g[len(g)-1], "[]")
	dir := t.TempDir()
	in := filepath.Join(dir, "q.fasta")
	if err := os.WriteFile(in, []byte(">q\n"+seq+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, span string
		line         string // the structure line
		ensemble     string // the ensemble free energy, if any
	}{
		{"mfe", "0", pf[1], ""},
		{"centroid", "0", pf[3], ensemble},
		{"mea-pf", "0", pf[4], ensemble},
		{"mfe", "30", span[1], ""},
	}
	for _, c := range cases {
		out := filepath.Join(dir, c.method+c.span)
		code, _, errOut := runCLI(t, "rna", "predict", "--method", c.method, "--max-span", c.span, "--format", "ct,bpseq,db", "--out", out, in)
		if code != 0 {
			t.Fatalf("%s span %s: exit %d: %s", c.method, c.span, code, errOut)
		}
		db, err := os.ReadFile(filepath.Join(out, "q.db"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(db), "\n")
		if len(lines) < 4 || lines[2] != c.line {
			t.Errorf("%s span %s: dot-bracket\n%s\nwant the structure line\n%s", c.method, c.span, db, c.line)
			continue
		}
		if want := "# free energy of ensemble = " + c.ensemble + " kcal/mol"; c.ensemble != "" && lines[3] != want {
			t.Errorf("%s: line %q, want %q", c.method, lines[3], want)
		}
		f := strings.Fields(c.line)
		// "( -9.60)", "{-12.60 MEA=76.70}": the energy
		energy := strings.Fields(strings.Trim(c.line[len(f[0]):], " (){}"))[0]
		ct, err := os.ReadFile(filepath.Join(out, "q.ct"))
		if err != nil {
			t.Fatal(err)
		}
		if head := strings.SplitN(string(ct), "\n", 2)[0]; head != "  100 ENERGY = "+energy+" q" {
			t.Errorf("%s span %s: CT length line %q, want the energy %s", c.method, c.span, head, energy)
		}
		want, err := rna.ParseDotBracket("q", seq, f[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, read := range []func(string) (*rna.Structure, error){
			func(p string) (*rna.Structure, error) {
				h, _ := os.Open(p + ".ct")
				defer h.Close()
				return rna.ReadCT(h, p)
			},
			func(p string) (*rna.Structure, error) {
				h, _ := os.Open(p + ".bpseq")
				defer h.Close()
				return rna.ReadBPSEQ(h, p)
			},
			func(p string) (*rna.Structure, error) {
				h, _ := os.Open(p + ".db")
				defer h.Close()
				return rna.ReadDotBracket(h, p)
			},
		} {
			got, err := read(filepath.Join(out, "q"))
			if err != nil || !rna.Equal(got, want) {
				t.Errorf("%s span %s: read back %v, %v", c.method, c.span, got, err)
			}
		}
	}
	if code, _, _ := runCLI(t, "rna", "predict", "--method", "mfe", "--max-span", "-1", "--out", dir, in); code != 2 {
		t.Errorf("--max-span -1: exit %d, want 2", code)
	}
	code, _, errOut := runCLI(t, "rna", "predict", "--method", "stacking", "--max-span", "50", "--format", "db", "--out", filepath.Join(dir, "st"), in)
	if code != 0 || !strings.Contains(errOut, "--max-span is not used by --method stacking") {
		t.Errorf("--max-span with stacking: exit %d: %s", code, errOut)
	}
}
