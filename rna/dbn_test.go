package rna

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestReadDBN(t *testing.T) {
	in := ">bpRNA_RFAM_1 some words\nggGAAAcUC\n((.....))\n\n>bpRNA_PDB_2\nGGACUUCCAAGU\n[[.((..]]..))\n"
	_, err := ReadDBN(strings.NewReader(in), "x.dbn")
	if err == nil || !strings.Contains(err.Error(), "x.dbn line 7") || !strings.Contains(err.Error(), "bpRNA_PDB_2") {
		t.Fatalf("a structure longer than its sequence: %v", err)
	}
	in = ">bpRNA_RFAM_1 some words\nggGAAAcUC\n((.....))\n\n>bpRNA_PDB_2\nGGACUURCAAGU\n[[.((.]]..))\n"
	ss, err := ReadDBN(strings.NewReader(in), "x.dbn")
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || ss[0].Name != "bpRNA_RFAM_1" || ss[0].Seq != "GGGAAACUC" || ss[0].Partner[0] != 8 || ss[0].Partner[1] != 7 {
		t.Fatalf("first record %+v", ss[0])
	}
	// Pseudoknotted pairs: [[ with ]] crossing (( )).
	if s := ss[1]; s.Seq != "GGACUUNCAAGU" || s.Partner[0] != 7 || s.Partner[3] != 11 || s.Partner[4] != 10 {
		t.Fatalf("second record %+v", s)
	}
	for _, bad := range []string{"", "no header\n", ">a\nACGU\n", ">a\nAC!U\n....\n"} {
		if _, err := ReadDBN(strings.NewReader(bad), "bad.dbn"); err == nil || !errors.Is(err, ErrFormat) && !errors.Is(err, ErrSequence) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// The bundled bpRNA validation split reads whole: 1,300 records.
func TestReadDBNOnBpRNA(t *testing.T) {
	f, err := os.Open("../../shared/data/bprna/VL0.dbn.gz")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := ReadDBN(zr, "VL0.dbn.gz")
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1300 {
		t.Fatalf("%d records, want 1,300", len(ss))
	}
}

func FuzzReadDBN(f *testing.F) {
	f.Add([]byte(">a\nGGGAAACCC\n(((...)))\n"))
	f.Add([]byte(">b\nGGACUUCCAAGU\n[[.((..]].))\n>c\nAC\n..\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := ReadDBN(bytes.NewReader(data), "fuzz.dbn")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.dbn") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		for _, s := range ss {
			if len(s.Partner) != len(s.Seq) || s.Seq == "" {
				t.Fatalf("record %+v", s)
			}
			for i, p := range s.Partner {
				if p != Unpaired && (p < 0 || p >= len(s.Seq) || s.Partner[p] != i || p == i) {
					t.Fatalf("inconsistent pairing at %d", i)
				}
			}
		}
	})
}
