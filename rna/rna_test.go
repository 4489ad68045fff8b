package rna

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readCTFile(t *testing.T, path string) *Structure {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadCT(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Real RNA STRAND files (CR line ends, "dG =" and "ENERGY =" headers,
// a 16S with pseudoknots) survive CT -> BPSEQ -> dot-bracket -> CT and
// the five-line format with every pair.
func TestRoundTrips(t *testing.T) {
	for file, want := range map[string]struct {
		n, pairs int
		name     string
	}{
		"testdata/A.ferrooxidans.ct":      {344, 0, "A.ferrooxidans"},
		"testdata/d.5.e.M.fossilis.nopct": {120, 0, "d.5.e.M.fossilis"},
		"testdata/d.16.m.A.cahirinus.ct":  {940, 0, "d.16.m.A.cahirinus"},
	} {
		s := readCTFile(t, file)
		if len(s.Seq) != want.n || s.Name != want.name {
			t.Errorf("%s: %d bases, name %q", file, len(s.Seq), s.Name)
		}
		if len(s.Pairs()) == 0 {
			t.Fatalf("%s: no pairs", file)
		}
		var ct, bp, db, five bytes.Buffer
		if err := WriteBPSEQ(&bp, s); err != nil {
			t.Fatal(err)
		}
		b, err := ReadBPSEQ(&bp, "bpseq")
		if err != nil || !Equal(b, s) {
			t.Fatalf("%s: BPSEQ round trip: %v", file, err)
		}
		if err := WriteDotBracket(&db, b); err != nil {
			t.Fatal(err)
		}
		d, err := ReadDotBracket(&db, "db")
		if err != nil || !Equal(d, s) {
			t.Fatalf("%s: dot-bracket round trip: %v", file, err)
		}
		if err := WriteCT(&ct, d); err != nil {
			t.Fatal(err)
		}
		c, err := ReadCT(&ct, "ct")
		if err != nil || !Equal(c, s) || c.Name != s.Name {
			t.Fatalf("%s: CT round trip: %v", file, err)
		}
		if err := WriteFiveLine(&five, []*Structure{s, c}); err != nil {
			t.Fatal(err)
		}
		fs, err := ReadFiveLine(&five, "five")
		if err != nil || len(fs) != 2 || !Equal(fs[0], s) || !Equal(fs[1], s) {
			t.Fatalf("%s: five-line round trip: %v", file, err)
		}
	}
}

// The 16S structure has crossing pairs: its dot-bracket string needs more
// than one bracket kind, and the pairs of each kind do not cross.
func TestPseudoknotBrackets(t *testing.T) {
	s := readCTFile(t, "testdata/d.16.m.A.cahirinus.ct")
	crossing := false
	ps := s.Pairs()
	for i := range ps {
		for j := i + 1; j < len(ps) && !crossing; j++ {
			crossing = Crossing(ps[i], ps[j])
		}
	}
	db, err := DotBracket(s)
	if err != nil {
		t.Fatal(err)
	}
	if crossing != strings.ContainsAny(db, "[]") {
		t.Errorf("crossing pairs %v, brackets beyond (): %v", crossing, strings.ContainsAny(db, "[]"))
	}
	got, err := ParseDotBracket("x", "GGGAAACCCAAAGGGAAACCC", "(((...[[[...)))...]]]")
	if err != nil || len(got.Pairs()) != 6 || got.Partner[0] != 14 || got.Partner[6] != 20 {
		t.Fatalf("H-type pseudoknot: %v %v", got, err)
	}
	if db, _ := DotBracket(got); db != "(((...[[[...)))...]]]" {
		t.Errorf("written back as %q", db)
	}
}

// Inconsistent pairings and bad input give clear errors.
func TestErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		read func(string) error
		text string
		want error
		line int
	}{
		"CT not mutual":    {ct, "3 x\n1 G 0 2 3 1\n2 A 1 3 0 2\n3 C 2 0 0 3\n", ErrPairing, 0},
		"CT two partners":  {ct, "3 x\n1 G 0 2 3 1\n2 A 1 3 1 2\n3 C 2 0 1 3\n", ErrPairing, 0},
		"CT out of range":  {ct, "2 x\n1 G 0 2 5 1\n2 C 1 0 0 2\n", ErrPairing, 2},
		"CT short":         {ct, "3 x\n1 G 0 2 0 1\n", ErrFormat, 2},
		"CT bad base":      {ct, "1 x\n1 X 0 0 0 1\n", ErrSequence, 2},
		"CT bad index":     {ct, "2 x\n1 G 0 2 0 1\n3 C 1 0 0 2\n", ErrFormat, 3},
		"BPSEQ self":       {bpseq, "1 G 1\n", ErrPairing, 0},
		"BPSEQ not mutual": {bpseq, "1 G 3\n2 A 0\n3 C 0\n", ErrPairing, 0},
		"BPSEQ fields":     {bpseq, "1 G\n", ErrFormat, 1},
		"db unbalanced":    {dotb, "GGAC\n((.)\n", ErrPairing, 0},
		"db closes":        {dotb, "GGAC\n).()\n", ErrPairing, 0},
		"db length":        {dotb, "GGAC\n(.)\n", ErrFormat, 0},
		"five flags":       {five, "x\n2 1\n2 1\n0 1\n\n", ErrPairing, 4},
		"five code":        {five, "x\n2 7\n0 0\n0 0\n\n", ErrSequence, 4},
		"five truncated":   {five, "x\n2 1\n", ErrFormat, 2},
	} {
		err := tc.read(tc.text)
		var pe *ParseError
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.Line != tc.line {
			t.Errorf("%s: %v, want %v at line %d", name, err, tc.want, tc.line)
		}
	}
}

func ct(s string) error    { _, err := ReadCT(strings.NewReader(s), "t.ct"); return err }
func bpseq(s string) error { _, err := ReadBPSEQ(strings.NewReader(s), "t.bpseq"); return err }
func dotb(s string) error  { _, err := ReadDotBracket(strings.NewReader(s), "t.db"); return err }
func five(s string) error  { _, err := ReadFiveLine(strings.NewReader(s), "t.txt"); return err }

func TestFASTA(t *testing.T) {
	seqs, errs := ReadFASTA(strings.NewReader(">a desc\nacgt\nNRY\n>bad\nACGX\n>c\nUUU\n"), "in.fa")
	if len(seqs) != 2 || seqs[0] != (Sequence{Name: "a", Seq: "ACGUNNN", Ambiguous: 2}) || seqs[1].Name != "c" {
		t.Errorf("sequences %v", seqs)
	}
	if len(errs) != 1 || !errors.Is(errs[0], ErrSequence) || !strings.Contains(errs[0].Error(), "record 2 (bad)") || !strings.Contains(errs[0].Error(), "position 4") {
		t.Errorf("errors %v", errs)
	}
}

// The authors' data files read in full: 550 training, 28 validation and
// 35 test structures, lengths as their README says, and the five-line
// test records equal the CT files they came from.
func TestPaperDataSet(t *testing.T) {
	read := func(path string) []*Structure {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ss, err := ReadFiveLine(f, path)
		if err != nil {
			t.Fatal(err)
		}
		return ss
	}
	train := read("../data/rna/16s-finaltrain.txt")
	valid := read("../data/rna/16s-finalvalid.txt")
	test := read("../data/rna/test/testdata.txt")
	if len(train) != 550 || len(valid) != 28 || len(test) != 35 {
		t.Fatalf("%d/%d/%d structures", len(train), len(valid), len(test))
	}
	lo, hi := len(train[0].Seq), 0
	for _, s := range train {
		lo, hi = min(lo, len(s.Seq)), max(hi, len(s.Seq))
	}
	if lo != 612 || hi != 2741 {
		t.Errorf("training lengths %d-%d", lo, hi)
	}
	matched := 0
	for _, s := range test {
		name := strings.TrimPrefix(s.Name, "testdata/")
		ct := readCTFile(t, "../data/rna/test/"+name)
		if len(ct.Seq) != len(s.Seq) {
			t.Errorf("%s: %d bases in CT, %d in the five-line record", name, len(ct.Seq), len(s.Seq))
			continue
		}
		if Equal(ct, s) {
			matched++
		}
	}
	if matched != len(test) {
		t.Errorf("%d of %d test records equal their CT file", matched, len(test))
	}
}

// Names a user expects: the identifier of a CT length line after its
// energy field (any case), else a "Filename:" or "# File" header's
// without the extension; the first word of a FASTA header even after a
// space.
func TestNames(t *testing.T) {
	for fields, want := range map[string]string{
		"Energy = 0   d.16.e.P.falciparum.A":          "d.16.e.P.falciparum.A",
		"ENERGY = 0 A.ferrooxidans RNase P RNA":       "A.ferrooxidans",
		"ENERGY=-30.2 tRNA":                           "tRNA",
		"energy = -1.5e1 x":                           "x",
		"dG =     0.00  [initially     0.0]    ":      "",
		"dG = -12.30 [initially -13.1] my.rna  extra": "my.rna",
		"  tRNA-Phe yeast":                            "tRNA-Phe",
		"":                                            "",
	} {
		if got := countLineName(strings.Fields(fields)); got != want {
			t.Errorf("%q: name %q, want %q", fields, got, want)
		}
	}
	for text, want := range map[string]string{
		"# File CRW_00374.ct\n# RNA SSTRAND database\n  3 Energy = 0   d.16.e.P.falciparum.A\n": "d.16.e.P.falciparum.A",
		"# File CRW_00374.ct\n3 ENERGY = 0\n":                                                   "CRW_00374",
		"Filename: d.16.b.E.coli.ct\n# File CRW_1.ct\n 3 dG = 0.00\n":                           "d.16.b.E.coli",
		"Filename: a.NOPCT \n3\n":                                                               "a",
		"3\n":                                                                                   "",
	} {
		s, err := ReadCT(strings.NewReader(text+"1 G 0 2 0 1\n2 A 1 3 0 2\n3 C 2 0 0 3\n"), "t.ct")
		if err != nil || s.Name != want {
			t.Errorf("%q: name %q (%v), want %q", text, s.Name, err, want)
		}
	}
	b, err := ReadBPSEQ(strings.NewReader("Filename: d.16.b.E.coli.bpseq\nOrganism: Escherichia coli\n1 G 0\n"), "t.bpseq")
	if err != nil || b.Name != "d.16.b.E.coli" {
		t.Errorf("BPSEQ name %q (%v)", b.Name, err)
	}
	seqs, _ := ReadFASTA(strings.NewReader("> my seq\nACGU\n>  x  y\nAC\n>\nGG\n>z\tdesc\nA\n>\vv w\nA\n"), "in.fa")
	var names []string
	for _, q := range seqs {
		names = append(names, q.Name)
	}
	if strings.Join(names, ",") != "my,x,,z,v" {
		t.Errorf("FASTA names %q", names)
	}
	// Old Mac line ends (CR) and CRLF, like the other formats; the
	// fuzzer's crasher ">\r0\nA" once read as a record named "\r0".
	seqs, errs := ReadFASTA(strings.NewReader(">a b\rACG\rU\r>c\r\nGG\r\nA\r\n"), "mac.fa")
	if len(errs) != 0 || len(seqs) != 2 || seqs[0] != (Sequence{Name: "a", Seq: "ACGU"}) || seqs[1] != (Sequence{Name: "c", Seq: "GGA"}) {
		t.Errorf("CR line ends: %+v %v", seqs, errs)
	}
	if seqs, _ := ReadFASTA(strings.NewReader(">\r0\nA"), "crasher.fa"); len(seqs) != 0 {
		t.Errorf("crasher: %+v", seqs)
	}
}

// Every bundled RNA STRAND CT file is named by its identifier: one word
// with the species of its file name, no energy field, no extension.
func TestNamesRealFiles(t *testing.T) {
	files, _ := filepath.Glob("../data/rna/test/*/*.ct")
	more, _ := filepath.Glob("testdata/*.*ct")
	files = append(files, more...)
	if len(files) < 30 {
		t.Fatalf("%d CT files", len(files))
	}
	exact := map[string]string{
		"../data/rna/test/16s_extra/d.16.e.P.falciparum.ct": "d.16.e.P.falciparum.A",
		"../data/rna/test/16s_extra/d.16.e.O.cuniculus.ct":  "d.16.e.O.cuniculus",
		"../data/rna/test/rnasep/Z.bailii.ct":               "Z.bailii",
		"../data/rna/test/intron/H.rubra.ct":                "b.I1.e.H.rubra.1.C1.SSU.1506",
	}
	for _, f := range files {
		s := readCTFile(t, f)
		base := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		parts := strings.Split(base, ".")
		species := strings.Join(parts[len(parts)-2:], ".")
		if s.Name == "" || strings.ContainsAny(s.Name, " \t=") || strings.Contains(strings.ToLower(s.Name), "energy") ||
			strings.HasSuffix(s.Name, ".ct") || !strings.Contains(s.Name, species) {
			t.Errorf("%s: name %q", f, s.Name)
		}
		if want, ok := exact[f]; ok && s.Name != want {
			t.Errorf("%s: name %q, want %q", f, s.Name, want)
		}
		delete(exact, f)
	}
	if len(exact) > 0 {
		t.Errorf("files not found: %v", exact)
	}
}

// IUPAC ambiguity codes still become N, but each record counts them; T
// is read as U and is not ambiguous.
func TestAmbiguousCount(t *testing.T) {
	if n := AmbiguousCount("ACGTUNnRYKMSWBDHVrykmswbdhv-*X"); n != 20 {
		t.Errorf("AmbiguousCount %d, want 20", n)
	}
	seqs, errs := ReadFASTA(strings.NewReader(">a\nACGT\nRYKMS\n>b\nacgtn\n>c\nwbdhvN\n"), "in.fa")
	if len(errs) != 0 || len(seqs) != 3 {
		t.Fatalf("%v %v", seqs, errs)
	}
	for k, want := range []Sequence{{"a", "ACGUNNNNN", 5}, {"b", "ACGUN", 0}, {"c", "NNNNNN", 5}} {
		if seqs[k] != want {
			t.Errorf("record %d: %+v, want %+v", k+1, seqs[k], want)
		}
	}
}
