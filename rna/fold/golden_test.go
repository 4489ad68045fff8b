package fold

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// goldenCase is one record of RNAfold's expected output: a sequence, its
// MFE structure and energy.
type goldenCase struct {
	file, name, seq, db string
	energy              float64
}

// readGolden reads an RNAfold --noPS output: optional ">name" lines,
// sequence lines, and "structure (energy)" lines.
func readGolden(t *testing.T, path string) []goldenCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenCase
	var cur goldenCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, ">"):
			cur.name = line[1:]
		case strings.ContainsAny(line, "().") && strings.HasSuffix(line, ")"):
			k := strings.LastIndex(line, " (")
			if k < 0 {
				k = strings.LastIndex(line, "(")
			}
			e, err := strconv.ParseFloat(strings.TrimSpace(strings.Trim(line[k:], " ()")), 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", path, line, err)
			}
			cur.db, cur.energy = strings.TrimSpace(line[:k]), e
			cur.file = filepath.Base(path)
			out = append(out, cur)
			cur = goldenCase{}
		default:
			cur.seq = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readInputs reads the sequences of an RNAfold input file (FASTA or one
// sequence a line).
func readInputs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []string
	cur := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, ">"):
			if cur != "" {
				seqs = append(seqs, cur)
			}
			cur = ""
		case line == "":
		case strings.HasSuffix(path, ".fasta"):
			cur += line
		default:
			seqs = append(seqs, line)
		}
	}
	if cur != "" {
		seqs = append(seqs, cur)
	}
	return seqs
}

// TestGoldenRNAfold compares MFE structures and energies with RNAfold's
// expected outputs of its own test suite for the default options (see
// testdata/README.md).
func TestGoldenRNAfold(t *testing.T) {
	sets := []struct{ input, gold string }{
		{"rnafold.small.seq", "rnafold.small.d2.mfe.gold"},
		{"rnafold.seq", "rnafold.seq.mfe.gold"},
		{"rnafold.fasta", "rnafold.fasta.mfe.gold"},
	}
	total, pass := 0, 0
	for _, set := range sets {
		cases := readGolden(t, filepath.Join("testdata", set.gold))
		inputs := readInputs(t, filepath.Join("testdata", set.input))
		if len(cases) != len(inputs) {
			t.Fatalf("%s: %d outputs for %d inputs", set.gold, len(cases), len(inputs))
		}
		for k, gc := range cases {
			if gc.seq != inputs[k] {
				t.Fatalf("%s record %d: sequence differs from %s", set.gold, k+1, set.input)
			}
			if testing.Short() && len(gc.seq) > 500 {
				continue
			}
			total++
			st, e, err := MFE(gc.seq)
			if err != nil {
				t.Errorf("%s record %d: %v", set.gold, k+1, err)
				continue
			}
			db, err := rna.DotBracket(st)
			if err != nil {
				t.Fatal(err)
			}
			ok := true
			if math.Abs(e-gc.energy) > 0.005 {
				ok = false
				t.Errorf("%s record %d (%s, %d nt): energy %.2f, RNAfold %.2f", set.gold, k+1, gc.name, len(gc.seq), e, gc.energy)
			}
			if db != gc.db {
				ok = false
				t.Errorf("%s record %d (%s, %d nt): structure differs\n got  %s\n want %s", set.gold, k+1, gc.name, len(gc.seq), db, gc.db)
			}
			// the golden structure has the golden energy under our model
			g, err := rna.ParseDotBracket("", gc.seq, gc.db)
			if err != nil {
				t.Fatal(err)
			}
			ge, err := EvalStructure(gc.seq, g.Pairs())
			if err != nil || math.Abs(ge-gc.energy) > 0.005 {
				ok = false
				t.Errorf("%s record %d: EvalStructure(golden) = %.2f, %v; RNAfold %.2f", set.gold, k+1, ge, err, gc.energy)
			}
			if ok {
				pass++
			}
		}
	}
	t.Logf("%d of %d RNAfold golden cases pass", pass, total)
}
