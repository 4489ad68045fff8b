package fold

import (
	"bufio"
	"compress/gzip"
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
		case line == "", strings.HasPrefix(line, "free energy of ensemble"), strings.HasPrefix(line, "frequency of mfe"):
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
		case line == "", strings.HasPrefix(line, "free energy of ensemble"), strings.HasPrefix(line, "frequency of mfe"):
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

// readParamsGz reads a gzipped parameter file of testdata.
func readParamsGz(t *testing.T, name string) *Params {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseParams(z)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// TestGoldenRNAfold compares MFE structures and energies with RNAfold's
// expected outputs of its own test suite (see testdata/README.md): the
// default options, and the options this package supports (-T, -d0,
// --noLP, --maxBPspan, -P; of -p0 the MFE lines only).
func TestGoldenRNAfold(t *testing.T) {
	def := DefaultParams()
	d0, err := def.WithDangles(0)
	if err != nil {
		t.Fatal(err)
	}
	type set struct {
		options, input, gold string
		params               func() *Params
	}
	sets := []set{
		{"(default)", "rnafold.small.seq", "rnafold.small.d2.mfe.gold", func() *Params { return def }},
		{"(default)", "rnafold.seq", "rnafold.seq.mfe.gold", func() *Params { return def }},
		{"(default)", "rnafold.fasta", "rnafold.fasta.mfe.gold", func() *Params { return def }},
		{"-T 25", "rnafold.small.seq", "rnafold.small.T25.mfe.gold", func() *Params { return def.WithTemperature(25) }},
		{"-T 40", "rnafold.small.seq", "rnafold.small.T40.mfe.gold", func() *Params { return def.WithTemperature(40) }},
		{"-d0", "rnafold.small.seq", "rnafold.small.d0.mfe.gold", func() *Params { return d0 }},
		{"--noLP", "rnafold.small.seq", "rnafold.small.noLP.mfe.gold", func() *Params { return def.WithNoLP(true) }},
		{"--maxBPspan=30 -p0", "rnafold.small.seq", "rnafold.small.span30.gold", func() *Params { return def.WithMaxSpan(30) }},
	}
	for _, par := range []string{"dna_mathews1999.par", "dna_mathews2004.par", "rna_andronescu2007.par", "rna_turner1999.par"} {
		sets = append(sets, set{"-P " + par, "rnafold.small.seq", "rnafold.small." + par + ".mfe.gold",
			func() *Params { return readParamsGz(t, par+".gz") }})
	}
	for _, set := range sets {
		p := set.params()
		total, pass := 0, 0
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
			st, e, err := p.MFE(gc.seq)
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
			ge, err := p.Eval(gc.seq, g.Pairs())
			if err != nil || math.Abs(ge-gc.energy) > 0.005 {
				ok = false
				t.Errorf("%s record %d: Eval(golden) = %.2f, %v; RNAfold %.2f", set.gold, k+1, ge, err, gc.energy)
			}
			if ok {
				pass++
			}
		}
		t.Logf("RNAfold %-26s %-44s %d of %d pass", set.options, set.gold, pass, total)
	}
}
