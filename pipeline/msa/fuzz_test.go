package msa

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"testing"
)

// fuzzFormat checks that Parse never panics and that what it accepts is
// a well-formed alignment, and that any error is a *ParseError.
func fuzzFormat(f *testing.F, format Format, seeds ...string) {
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Add([]byte(s))
			continue
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Parse(data, "fuzz", format)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		if a.N() < 2 || a.L() == 0 {
			t.Fatalf("accepted %d x %d", a.N(), a.L())
		}
		for _, r := range a.Rows {
			if len(r) != a.L() {
				t.Fatal("ragged result")
			}
			for _, c := range r {
				if !(c >= 'A' && c <= 'Z' || c == '-') {
					t.Fatalf("letter %q in the result", c)
				}
			}
		}
		_ = a.Encode()
	})
}

func FuzzPSICOV(f *testing.F) {
	fuzzFormat(f, PSICOV, "testdata/1brfA.aln", "AC\nA-\n", "ACD\nAC\n")
}

func FuzzA3M(f *testing.F) {
	fuzzFormat(f, A3M, "testdata/1CTF_A.a3m", ">q\nAC\n>s\nAkC\n", "#A3M#\n>a\nA.C\n>b\nAC\n")
}

func FuzzFASTA(f *testing.F) {
	fuzzFormat(f, FASTA, "testdata/1CTF_A.fasta", ">q\nA.C\n>s\nAkC\n", ">q\n-A\n>s\nAA\n")
}

func FuzzStockholm(f *testing.F) {
	fuzzFormat(f, Stockholm, "testdata/1CTF_A.sto", "# STOCKHOLM 1.0\nq AC\ns A-\n//\n", "# STOCKHOLM 1.0\nq AC\n\nq DE\ns AC\n")
}

// FuzzRead goes through compression and format detection.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"testdata/1brfA.aln.gz", "testdata/1CTF_A.sto", "testdata/1CTF_A.a3m.gz"} {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write([]byte(">q\nAC\n>s\nA-\n"))
	z.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(bytes.NewReader(data), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		if a.N() < 2 || a.L() == 0 {
			t.Fatalf("accepted %d x %d", a.N(), a.L())
		}
	})
}
