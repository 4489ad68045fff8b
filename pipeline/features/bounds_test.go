package features

import (
	"errors"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/fileio/fileiotest"
)

// TestReadersBounded: a huge FASTA record and zeros are refused after a
// bounded read, naming the record and bound (the alignment reader's
// bounds are package msa's).
func TestReadersBounded(t *testing.T) {
	big := &fileiotest.Endless{Prefix: ">big desc\n", Fill: "M"}
	_, err := ReadSequences(big)
	if !errors.Is(err, fileio.ErrTooLarge) || err.Error() != `record "big": sequence longer than 100000 residues (the reader's bound)` {
		t.Errorf("huge record: %v", err)
	}
	if big.N > 1<<20 {
		t.Errorf("huge record: read %d bytes", big.N)
	}
	zeros := &fileiotest.Endless{Fill: "\x00"}
	if _, err := ReadSequences(zeros); !errors.Is(err, fileio.ErrBinary) || zeros.N > 1<<20 {
		t.Errorf("zeros: %v", err)
	}
	if _, err := ReadSequences(&fileiotest.Endless{Prefix: strings.Repeat(">x\nM\n", MaxRecords+1)}); !errors.Is(err, fileio.ErrTooLarge) || !strings.Contains(err.Error(), "more than 1000000 records") {
		t.Errorf("records: %v", err)
	}
	if _, err := ReadSS2(&fileiotest.Endless{Fill: "\x00"}); !errors.Is(err, fileio.ErrBinary) || !errors.Is(err, ErrSS) {
		t.Errorf("ss2 zeros: %v", err)
	}
	if _, err := ReadHoriz(&fileiotest.Endless{Prefix: "Pred: ", Fill: "C"}); !errors.Is(err, fileio.ErrTooLarge) {
		t.Errorf("endless horiz line: %v", err)
	}
}
