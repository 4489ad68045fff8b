package rna

import (
	"bytes"
	"os"
	"testing"
)

// Fuzz targets of every reader: an accepted structure is consistent and
// survives writing and reading back in its own format.

func seedFile(f *testing.F, path string, n int) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:min(n, len(b))])
}

func FuzzReadCT(f *testing.F) {
	seedFile(f, "testdata/d.5.e.M.fossilis.nopct", 700)
	f.Add([]byte("3 ENERGY = -1 x\r1 G 0 2 3 1\r2 A 1 3 0 2\r3 C 2 0 1 3\r"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadCT(bytes.NewReader(data), "f.ct")
		if err != nil {
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("accepted inconsistent structure: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteCT(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCT(&buf, "back.ct")
		if err != nil || !Equal(back, s) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzReadBPSEQ(f *testing.F) {
	f.Add([]byte("Filename: x\n1 G 3\n2 A 0\n3 C 1\n"))
	f.Add([]byte("# c\n1 g 2\n2 c 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadBPSEQ(bytes.NewReader(data), "f.bpseq")
		if err != nil {
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("accepted inconsistent structure: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteBPSEQ(&buf, s); err != nil {
			t.Fatal(err)
		}
		if back, err := ReadBPSEQ(&buf, "back"); err != nil || !Equal(back, s) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzReadDotBracket(f *testing.F) {
	f.Add([]byte(">x\nGGGAAACCCAAAGGGAAACCC\n(((...[[[...)))...]]]\n"))
	f.Add([]byte("GCAU\n(Aa)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadDotBracket(bytes.NewReader(data), "f.db")
		if err != nil {
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("accepted inconsistent structure: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteDotBracket(&buf, s); err != nil {
			return // more pseudoknot levels than bracket kinds
		}
		if back, err := ReadDotBracket(&buf, "back"); err != nil || !Equal(back, s) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzReadFiveLine(f *testing.F) {
	f.Add([]byte("x\n2 1 3 0\n4 0 0 1\n1 0 0 1\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := ReadFiveLine(bytes.NewReader(data), "f.txt")
		if err != nil {
			return
		}
		for _, s := range ss {
			if err := s.Check(); err != nil {
				t.Fatalf("accepted inconsistent structure: %v", err)
			}
		}
		var buf bytes.Buffer
		if err := WriteFiveLine(&buf, ss); err != nil {
			t.Fatal(err)
		}
		back, err := ReadFiveLine(&buf, "back")
		if err != nil || len(back) != len(ss) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range ss {
			if !Equal(back[i], ss[i]) {
				t.Fatal("round trip changed a structure")
			}
		}
	})
}

func FuzzReadFASTA(f *testing.F) {
	f.Add([]byte(">a\nACGT\n>b\nNNX\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		seqs, _ := ReadFASTA(bytes.NewReader(data), "f.fa")
		for _, s := range seqs {
			if n, err := NormalizeSequence(s.Seq); err != nil || n != s.Seq || s.Seq == "" {
				t.Fatalf("accepted sequence %q: %v", s.Seq, err)
			}
		}
	})
}
