package search

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseStockholmRFAnchorsOnProfile(t *testing.T) {
	// The profile has 5 states (RF 'x'); column 3 is an insert state.
	// The query (not in the file) is prepended.
	// The alignment starts at the query's second position and ends one
	// before its last.
	sto := "# STOCKHOLM 1.0\n#=GS h1/2-6 DE x\nh1/2-6  ACgDE\n#=GC RF xx.xx\nh2/1-3  --a-E\n\nh1/2-6  F\nh2/1-3  G\n#=GC RF x\n//\n"
	a, err := ParseStockholmRF([]byte(sto), "x.sto", "q", "WACDEFY", 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"WACDEFY", "-ACgDEF-", "---a-EG-"}
	if strings.Join(a.Rows, " ") != strings.Join(want, " ") {
		t.Fatalf("rows %q, want %q", a.Rows, want)
	}
	if a.Names[0] != "q" || a.Names[1] != "h1/2-6" {
		t.Fatalf("names %q", a.Names)
	}
	if err := a.check("WACDEFY", "x"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		"h1 ACGDE\n//\n",                // no RF line
		"h1 ACGDE\n#=GC RF xxxxx\n//\n", // RF marks 5 columns, query 4
		"h1 ACGD\n#=GC RF xxx.x\n//\n",  // row shorter than RF
		"h1 AC1D\n#=GC RF xxx.\n//\n",   // not a letter
		"h1 AC GD\n#=GC RF xxx.\n//\n",  // three fields
	} {
		if _, err := ParseStockholmRF([]byte(bad), "bad.sto", "q", "ACGD", 1); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "bad.sto") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// No hits: the query alone.
	a, err = ParseStockholmRF([]byte("# STOCKHOLM 1.0\n//\n"), "empty.sto", "q", "ACGU", 1)
	if err != nil || a.N() != 1 {
		t.Fatalf("empty: %v %v", a, err)
	}
	if _, err := ParseStockholmRF([]byte("h1 ACG\n#=GC RF xxx\n//\n"), "late.sto", "q", "ACGU", 3); !errors.Is(err, ErrFormat) {
		t.Errorf("RF past the query's end: %v", err)
	}
}

func TestNhmmerFirstState(t *testing.T) {
	tbl := "# target name accession query name accession hmmfrom hmm to alifrom ali to ...\n" +
		"t1 - q - 3 73 1 71 1 72 80 + 1e-10 40.1 0.1 -\n" +
		"t2 - q - 5 70 2 67 1 70 70 + 1e-5 20.0 0.0 -\n"
	if f, err := NhmmerFirstState([]byte(tbl), "x.tbl"); err != nil || f != 3 {
		t.Fatalf("first %d, %v; want 3", f, err)
	}
	if f, err := NhmmerFirstState([]byte("# none\n"), "x.tbl"); err != nil || f != 1 {
		t.Fatalf("no hits: %d, %v", f, err)
	}
	for _, bad := range []string{"t1 - q - x 73\n", "t1 - q\n", "t1 - q - 0 5\n"} {
		if _, err := NhmmerFirstState([]byte(bad), "bad.tbl"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "bad.tbl") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParseStockholmRF(f *testing.F) {
	f.Add([]byte("# STOCKHOLM 1.0\nh1 ACgDE\n#=GC RF xx.xx\n//\n"), "ACDE")
	f.Add([]byte("h1 AC\n#=GC RF x.\nh1 G\n#=GC RF x\n//\n"), "AG")
	f.Fuzz(func(t *testing.T, data []byte, seq string) {
		a, err := ParseStockholmRF(data, "fuzz.sto", "q", seq, 1+len(data)%3)
		if err != nil {
			return
		}
		if a.Rows[0] != seq {
			t.Fatalf("row 0 %q, the query %q", a.Rows[0], seq)
		}
		for k, r := range a.Rows {
			if n := len(matches(r)); n != len(seq) {
				t.Fatalf("row %d has %d query columns, the query %d", k, n, len(seq))
			}
		}
	})
}

// TestNhmmer searches an ArchiveII tRNA against tRNAs and 5S rRNAs
// with the real nhmmer: every hit is a tRNA, each row's residues are
// a stretch of its database sequence, and its query columns are the
// query's length.
func TestNhmmer(t *testing.T) {
	needTool(t, "nhmmer", "hmmer")
	qf, err := os.ReadFile(filepath.Join("testdata", "trna.query.fasta"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(qf))
	q := Query{Name: "query", Seq: lines[1]}
	db := filepath.Join("testdata", "rna.db.fasta")
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	seqs := map[string]string{}
	dl := strings.Fields(string(data))
	for k := 0; k+1 < len(dl); k += 2 {
		seqs[strings.TrimPrefix(dl[k], ">")] = dl[k+1]
	}
	s, err := New(Options{Tool: Nhmmer, DB: db, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.Version(), "HMMER 3") {
		t.Errorf("version %q", s.Version())
	}
	var log bytes.Buffer
	a, err := s.Search(context.Background(), q, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if a.N() < 3 {
		t.Fatalf("%d rows, want the query and at least 2 tRNAs\n%s", a.N(), log.String())
	}
	if err := a.check(q.Seq, "nhmmer"); err != nil {
		t.Fatal(err)
	}
	for k := 1; k < a.N(); k++ {
		name, _, _ := strings.Cut(a.Names[k], "/")
		if !strings.HasPrefix(name, "tRNA_") {
			t.Errorf("hit %s is not a tRNA", a.Names[k])
		}
		// The columns are placed: a homolog found at E 0.001 is well
		// above chance identity (1/4) to the query in them.
		same, both := 0, 0
		for i, c := range matches(a.Rows[k]) {
			if c != '-' {
				both++
				if c == q.Seq[i] {
					same++
				}
			}
		}
		if both == 0 || float64(same) < 0.5*float64(both) {
			t.Errorf("hit %s: %d of %d matched columns the query's letter", a.Names[k], same, both)
		}
		res := strings.ToUpper(strings.ReplaceAll(a.Rows[k], "-", ""))
		if full, ok := seqs[name]; !ok || !strings.Contains(full, res) {
			t.Errorf("hit %s: residues %s are not a stretch of its sequence", a.Names[k], res)
		}
	}
	// A query without U or T (an ArchiveII SRP RNA's letters): nhmmer
	// cannot guess its alphabet unless told.
	if _, err := s.Search(context.Background(), Query{Name: "acg", Seq: "CCGGCAAGCGGGGAGGAGCGGGCCCAACCGCAACCGCCAGCGAGGCCGAACC"}, &log); err != nil {
		t.Errorf("a query of A, C and G: %v", err)
	}
	if _, err := s.Search(context.Background(), Query{Name: "p", Seq: "MKVLE"}, &log); !errors.Is(err, ErrQuery) {
		t.Errorf("protein query: %v", err)
	}
	if _, err := New(Options{Tool: Nhmmer, DB: db, Iterations: 3}); err == nil {
		t.Error("nhmmer with 3 iterations: no error")
	}
}
