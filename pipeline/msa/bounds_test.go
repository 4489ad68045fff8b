package msa

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/fileio/fileiotest"

	"github.com/klauspost/compress/gzip"
)

// gzipped compresses r lazily.
func gzipped(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		zw := gzip.NewWriter(pw)
		_, err := io.Copy(zw, r)
		pw.CloseWithError(err)
	}()
	return pr
}

// TestReadBounds: a gzip bomb of zeros, or of one endless row, is refused
// after a bounded read, with an error naming the file and the bound.
func TestReadBounds(t *testing.T) {
	zeros := &fileiotest.Endless{Fill: "\x00"}
	_, err := Read(gzipped(zeros), "zeros.a3m.gz")
	if !errors.Is(err, ErrBinary) || err.Error() != "msa: zeros.a3m.gz: binary data, not an alignment" {
		t.Errorf("zeros: %v", err)
	}
	if zeros.N > 1<<20 {
		t.Errorf("zeros: read %d bytes", zeros.N)
	}
	row := &fileiotest.Endless{Prefix: ">q\nACDE\n>s\n", Fill: "A"}
	_, err = Read(gzipped(row), "row.fasta.gz")
	if !errors.Is(err, ErrTooLarge) || err.Error() != "msa: row.fasta.gz: line 4 longer than 4194304 bytes (the reader's bound)" {
		t.Errorf("endless row: %v", err)
	}
	if row.N > 2*MaxLine {
		t.Errorf("endless row: read %d bytes", row.N)
	}
	if _, err := Parse([]byte("\x00\x01ACDE\n"), "p.aln", Unknown); !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "p.aln") {
		t.Errorf("Parse of binary data: %v", err)
	}
}
