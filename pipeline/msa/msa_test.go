package msa

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func rowsOf(a *Alignment) []string {
	out := make([]string, len(a.Rows))
	for k, r := range a.Rows {
		out[k] = string(r)
	}
	return out
}

func TestReadFormats(t *testing.T) {
	want, err := ReadFile("testdata/1CTF_A.fasta")
	if err != nil {
		t.Fatal(err)
	}
	if want.Format != FASTA || want.N() != 10 || want.L() != 68 {
		t.Fatalf("fasta: format %v, %d x %d", want.Format, want.N(), want.L())
	}
	if !strings.HasPrefix(want.Query(), "EFDVILKAAGANK") || want.Names[1] != "RL7_HAEDU/53-120" {
		t.Fatalf("fasta: query %q, name %q", want.Query(), want.Names[1])
	}
	for _, tc := range []struct {
		file string
		f    Format
	}{
		{"1CTF_A.fasta.gz", FASTA},
		{"1CTF_A.a3m", A3M}, {"1CTF_A.a3m.gz", A3M},
		{"1CTF_A.sto", Stockholm}, {"1CTF_A.sto.gz", Stockholm},
	} {
		a, err := ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if a.Format != tc.f {
			t.Errorf("%s: format %v, want %v", tc.file, a.Format, tc.f)
		}
		if got, w := rowsOf(a), rowsOf(want); strings.Join(got, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s: rows differ from the FASTA's:\n%s\nwant\n%s", tc.file, strings.Join(got, "\n"), strings.Join(w, "\n"))
		}
	}
	for _, file := range []string{"1brfA.aln", "1brfA.aln.gz"} {
		a, err := ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if a.Format != PSICOV || a.N() != 12 || a.L() != 53 || a.Rows[1][50] != '-' {
			t.Errorf("%s: %v %d x %d", file, a.Format, a.N(), a.L())
		}
	}
}

func TestA2MQueryColumns(t *testing.T) {
	// Aligned FASTA with an insert column (lower case/'.') and a column
	// where the query has a gap: both dropped.
	in := ">q\nAC.D-E\n>s\nAcaD-E\n>t\nA-.DKE\n"
	a, err := Parse([]byte(in), "x.fa", Unknown)
	if err != nil {
		t.Fatal(err)
	}
	if a.Format != FASTA || strings.Join(rowsOf(a), " ") != "ACDE ACDE A-DE" {
		t.Fatalf("%v %q", a.Format, rowsOf(a))
	}
}

func TestDetect(t *testing.T) {
	for in, want := range map[string]Format{
		"":                        Unknown,
		"  \n\n":                  Unknown,
		"ACDE\nAC-E\n":            PSICOV,
		">a\nACDE\n>b\nAC-E\n":    FASTA,
		">a\nACDE\n>b\nACkkDE\n":  A3M,
		"#A3M#\n>a\nAC\n>b\nAC\n": A3M,
		"# STOCKHOLM 1.0\na AC\n": Stockholm,
		"#comment\nACDE\n":        Unknown,
	} {
		if got := Detect([]byte(in)); got != want {
			t.Errorf("Detect(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		sentinel  error
		line, row int
	}{
		{"empty", "", ErrEmpty, 0, 0},
		{"blank", "\n \n", ErrEmpty, 0, 0},
		{"single psicov", "ACDE\n", ErrSingle, 1, 1},
		{"single fasta", ">q\nACDE\n", ErrSingle, 1, 1},
		{"ragged psicov", "ACDE\nACD\nACDE\n", ErrRagged, 2, 2},
		{"ragged fasta", ">q\nACDE\n>s\nAC\nDE\n>t\nACD\n", ErrRagged, 6, 3},
		{"ragged a3m", ">q\nACDE\n>s\nACkDE\n>t\nAkCD\n", ErrRagged, 5, 3},
		{"ragged stockholm", "# STOCKHOLM 1.0\nq ACDE\ns ACD\n//\n", ErrRagged, 3, 2},
		{"letter psicov", "ACDE\nAC*E\n", ErrLetter, 2, 2},
		{"letter digit", "ACDE\nAC1E\n", ErrLetter, 2, 2},
		{"letter fasta", ">q\nACDE\n>s\nAC?E\n", ErrLetter, 3, 2},
		{"query gaps", "----\nACDE\n", ErrQueryGap, 1, 1},
		{"psicov spaces", "ACDE\nAC DE\n", ErrSyntax, 2, 2},
		{"fasta text first", "ACDE\n>q\nACDE\n", ErrRagged, 2, 2}, // read as PSICOV
		{"stockholm fields", "# STOCKHOLM 1.0\nq AC DE\n", ErrSyntax, 2, 0},
	} {
		_, err := Parse([]byte(tc.in), "in.aln", Unknown)
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, tc.sentinel) {
			t.Errorf("%s: error %v, want a ParseError wrapping %v", tc.name, err, tc.sentinel)
			continue
		}
		if tc.line > 0 && (pe.Line != tc.line || pe.Row != tc.row) {
			t.Errorf("%s: line %d row %d, want %d %d (%v)", tc.name, pe.Line, pe.Row, tc.line, tc.row, err)
		}
		if !strings.Contains(err.Error(), "in.aln") {
			t.Errorf("%s: %v does not name the file", tc.name, err)
		}
	}
	// A truncated gzip file.
	data, err := os.ReadFile("testdata/1brfA.aln.gz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(data[:len(data)/2]), "cut.aln.gz"); err == nil || !strings.Contains(err.Error(), "cut.aln.gz") {
		t.Errorf("truncated gzip: %v", err)
	}
}

func TestWeightsAndDepth(t *testing.T) {
	// 10 columns; rows 0-2 identical, row 3 differs from them in 2 columns
	// (8 same: not > ceil(8)), row 4 in 1 (9 same > 8).
	rows := "ACDEFGHIKL\nACDEFGHIKL\nACDEFGHIKL\nACDEFGHIWW\nACDEFGHIKW\n"
	a, err := Parse([]byte(rows), "", PSICOV)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []int{1, 3} {
		w, neff := Weights(a.Encode(), a.N(), a.L(), DefaultIdentity, th)
		want := []float64{1. / 4, 1. / 4, 1. / 4, 1. / 2, 1. / 5}
		for k := range w {
			if w[k] != want[k] {
				t.Fatalf("threads %d: weights %v, want %v", th, w, want)
			}
		}
		if neff != 1.45 {
			t.Errorf("neff %v", neff)
		}
		if wn := a.LowDepth(neff); wn == nil || !strings.Contains(wn.String(), "Neff/L = 0.14") {
			t.Errorf("warning %v", wn)
		}
		if wn := a.LowDepth(10); wn != nil {
			t.Errorf("Neff = L warned: %v", wn)
		}
	}
	if State('X') != Gap || State('-') != Gap || State('V') != 19 || State('a') != 0 {
		t.Error("State")
	}
}

// A real alignment read whole: every row as in the file (a reader that
// reused its line buffer once corrupted rows of large files).
func TestReadLarge(t *testing.T) {
	path := "../../../shared/data/psicov150/aln/1vfyA.aln.gz"
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared data not present")
	}
	a, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(bytes.NewReader(raw), path)
	if err != nil {
		t.Fatal(err)
	}
	if a.N() != 2077 || a.L() != 67 || a.Query() != "DWIDSDACMICSKKFSLLNRKHHCRSCGGVFCQEHSSNSIPLPDLGIYEPVRVCDSCFEDYEFIVTD" || string(a.Rows[1]) != "-----AACQFCYRKFGLFRRKYICIQCFSPLCRDHIAGKLKMKVSD-AKRGVICKECFRGW------" {
		t.Fatalf("%d x %d, rows %q %q", a.N(), a.L(), a.Rows[0], a.Rows[1])
	}
	for k := range a.Rows {
		if !bytes.Equal(a.Rows[k], b.Rows[k]) {
			t.Fatal("ReadFile and Read differ")
		}
	}
}

// Identity.AtLeast counts as neighbours the pairs with the same state in
// exactly ceil(Fraction*L) columns too (EVfold's weights); CCMpred's
// default needs more.
func TestWeightsAtLeast(t *testing.T) {
	// 10 columns: rows 0 and 1 share 8 (= ceil(0.8*10)), row 2 shares 7
	// with each.
	a, err := Parse([]byte("ACDEFGHIKL\nACDEFGHIWW\nACDEFGHYYY\n"), "", PSICOV)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   Identity
		want []float64
	}{
		{DefaultIdentity, []float64{1, 1, 1}},
		{Identity{Fraction: 0.8, AtLeast: true}, []float64{1. / 2, 1. / 2, 1}},
	} {
		w, neff := Weights(a.Encode(), a.N(), a.L(), tc.id, 2)
		sum := 0.0
		for k := range w {
			if w[k] != tc.want[k] {
				t.Errorf("%+v: weights %v, want %v", tc.id, w, tc.want)
				break
			}
			sum += w[k]
		}
		if neff != sum {
			t.Errorf("%+v: Neff %v, weights' sum %v", tc.id, neff, sum)
		}
	}
	if got := a.Neff(1); got != 3 {
		t.Errorf("Neff = %v, want 3", got)
	}
}

// Options.Single accepts the query alone; QueryColumns drops the
// columns of the query's gaps.
func TestSingleAndQueryColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.fasta")
	os.WriteFile(path, []byte(">q\nACDE\n"), 0o644)
	if _, err := ReadFile(path); !errors.Is(err, ErrSingle) {
		t.Errorf("single sequence: %v", err)
	}
	if a, err := ReadFileWith(path, Options{Single: true}); err != nil || a.N() != 1 || a.Query() != "ACDE" {
		t.Errorf("Single: %v", err)
	}
	a, err := Parse([]byte("AC-DE\nAWKD-\n-CGDE\n"), "x.aln", Unknown)
	if err != nil {
		t.Fatal(err)
	}
	b := a.QueryColumns()
	if b.Query() != "ACDE" || string(b.Rows[1]) != "AWD-" || string(b.Rows[2]) != "-CDE" || b.Path != "x.aln" || a.L() != 5 {
		t.Errorf("QueryColumns: %q from %q", b.Rows, a.Rows)
	}
	if b.QueryColumns() != b {
		t.Error("QueryColumns of a gap-free query copies")
	}
}
