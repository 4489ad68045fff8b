package features

import (
	"errors"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/fileio"
)

// endless is a reader of prefix then endless bytes c, counting them.
type endless struct {
	prefix string
	c      byte
	read   int64
}

func (r *endless) Read(p []byte) (int, error) {
	n := copy(p, r.prefix)
	r.prefix = r.prefix[n:]
	for i := n; i < len(p); i++ {
		p[i] = r.c
	}
	r.read += int64(len(p))
	return len(p), nil
}

// TestReadersBounded: a huge FASTA record, an endless alignment row and
// zeros are refused after a bounded read, naming the record and bound.
func TestReadersBounded(t *testing.T) {
	big := &endless{prefix: ">big desc\n", c: 'M'}
	_, err := ReadSequences(big)
	if !errors.Is(err, fileio.ErrTooLarge) || err.Error() != `record "big": sequence longer than 100000 residues (the reader's bound)` {
		t.Errorf("huge record: %v", err)
	}
	if big.read > 1<<20 {
		t.Errorf("huge record: read %d bytes", big.read)
	}
	for _, format := range []MSAFormat{AlignedFASTA, A3M, PSICOV} {
		in := &endless{prefix: ">q\nACD\n>s\n", c: 'A'}
		if format == PSICOV {
			in.prefix = "ACD\n"
		}
		_, err := ParseMSA(in, format)
		if !errors.Is(err, fileio.ErrTooLarge) || !errors.Is(err, ErrMSA) || !strings.Contains(err.Error(), "(the reader's bound)") {
			t.Errorf("%v: endless row: %v", format, err)
		}
		if in.read > 2*MaxAlignmentRow {
			t.Errorf("%v: read %d bytes", format, in.read)
		}
		zeros := &endless{c: 0}
		if _, err := ParseMSA(zeros, format); !errors.Is(err, fileio.ErrBinary) || zeros.read > 1<<20 {
			t.Errorf("%v: zeros: %v", format, err)
		}
	}
	if _, err := ReadSequences(&endless{prefix: strings.Repeat(">x\nM\n", MaxRecords+1)}); !errors.Is(err, fileio.ErrTooLarge) || !strings.Contains(err.Error(), "more than 1000000 records") {
		t.Errorf("records: %v", err)
	}
	if _, err := ReadSS2(&endless{c: 0}); !errors.Is(err, fileio.ErrBinary) || !errors.Is(err, ErrSS) {
		t.Errorf("ss2 zeros: %v", err)
	}
	if _, err := ReadHoriz(&endless{prefix: "Pred: ", c: 'C'}); !errors.Is(err, fileio.ErrTooLarge) {
		t.Errorf("endless horiz line: %v", err)
	}
}
