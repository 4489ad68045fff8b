package rna

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/fileio/fileiotest"
)

// gunzipBomb returns the decompressed reading of a gzip stream of r,
// compressed lazily: a gzip bomb.
func gunzipBomb(t *testing.T, r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		zw := gzip.NewWriter(pw)
		_, err := io.Copy(zw, r)
		pw.CloseWithError(err)
	}()
	d, err := fileio.NewReader(pr)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFASTABomb: one endless FASTA record, gzip-compressed, is refused
// after reading about the bound, naming the file, record and bound.
func TestFASTABomb(t *testing.T) {
	big := &fileiotest.Endless{Prefix: ">x big\n", Fill: "ACGU"}
	_, errs := ReadFASTA(gunzipBomb(t, big), "big.fa")
	if len(errs) != 1 || !errors.Is(errs[0], ErrTooLarge) ||
		errs[0].Error() != `rna: big.fa: record "x": sequence longer than 1000000 nt (the reader's bound)` {
		t.Fatalf("got %v", errs)
	}
	if big.N > MaxSequence+1<<20 {
		t.Errorf("read %d bytes before refusing", big.N)
	}
}

// TestBoundedReaders: zeros, endless lines and overlong sequences are
// refused by every reader with an error naming the file.
func TestBoundedReaders(t *testing.T) {
	fasta := func(r io.Reader, p string) error { _, errs := ReadFASTA(r, p); return errors.Join(errs...) }
	readers := map[string]func(io.Reader, string) error{
		"fasta": fasta,
		"ct":    func(r io.Reader, p string) error { _, err := ReadCT(r, p); return err },
		"bpseq": func(r io.Reader, p string) error { _, err := ReadBPSEQ(r, p); return err },
		"db":    func(r io.Reader, p string) error { _, err := ReadDotBracket(r, p); return err },
		"dbn":   func(r io.Reader, p string) error { _, err := ReadDBN(r, p); return err },
		"five":  func(r io.Reader, p string) error { _, err := ReadFiveLine(r, p); return err },
	}
	for name, read := range readers {
		zeros := &fileiotest.Endless{Fill: "\x00"}
		err := read(zeros, "zeros."+name)
		if !errors.Is(err, ErrBinary) || err.Error() != "rna: zeros."+name+": binary data, not an RNA sequence or structure file" {
			t.Errorf("%s: zeros: %v", name, err)
		}
		if zeros.N > 1<<20 {
			t.Errorf("%s: zeros: read %d bytes", name, zeros.N)
		}
		if name == "fasta" {
			continue // no line bound: the record's is checked as it is read
		}
		line := &fileiotest.Endless{Fill: "A"}
		err = read(line, "line."+name)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "rna: line."+name+": line 1 longer than 16777216 bytes (the reader's bound)") {
			t.Errorf("%s: endless line: %v", name, err)
		}
		if line.N > 2*MaxLine {
			t.Errorf("%s: endless line: read %d bytes", name, line.N)
		}
	}
	db := &fileiotest.Endless{Prefix: ">x\n", Fill: strings.Repeat("ACGU", 1000) + "\n"}
	if err := readers["db"](db, "long.db"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "sequence longer than 1000000 nt (the reader's bound)") || !strings.HasPrefix(err.Error(), "rna: long.db line ") {
		t.Errorf("multi-line sequence: %v", err)
	}
	if _, err := ReadCT(strings.NewReader("2000000 x\n1 A 0 2 0 1\n"), "big.ct"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "length 2000000: more than 1000000 nt") {
		t.Errorf("CT length: %v", err)
	}
	if _, err := ReadBPSEQ(&bpseqGen{}, "big.bpseq"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "sequence longer than 1000000 nt") {
		t.Errorf("BPSEQ: %v", err)
	}
}

// bpseqGen is an endless BPSEQ file of unpaired bases.
type bpseqGen struct {
	k   int
	buf []byte
}

func (g *bpseqGen) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) {
		g.k++
		g.buf = append(g.buf, []byte(strings.Join([]string{itoa(g.k), "A", "0\n"}, " "))...)
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func itoa(k int) string {
	var b []byte
	for ; k > 0; k /= 10 {
		b = append([]byte{byte('0' + k%10)}, b...)
	}
	return string(b)
}
