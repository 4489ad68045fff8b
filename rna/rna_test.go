package rna

import (
	"bytes"
	"errors"
	"os"
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
		"testdata/A.ferrooxidans.ct":      {344, 0, "A.ferrooxidans RNase P RNA"},
		"testdata/d.5.e.M.fossilis.nopct": {120, 0, "d.5.e.M.fossilis.nopct"},
		"testdata/d.16.m.A.cahirinus.ct":  {940, 0, "d.16.m.A.cahirinus.ct"},
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
	if len(seqs) != 2 || seqs[0] != (Sequence{"a", "ACGUNNN"}) || seqs[1].Name != "c" {
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
