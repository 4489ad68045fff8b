package rna

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/contactmap/contactmap/internal/fileio"
)

// Bounds of the readers: input beyond them is refused as soon as it is
// read, with a *ParseError naming the file, the record or line and the
// bound, wrapping fileio.ErrTooLarge (ErrTooLarge).
const (
	// MaxSequence is the most bases of a sequence or structure: long
	// enough for local folding of the longest RNAs (50,000 nt and
	// beyond; whole viral genomes are about 30,000 nt).
	MaxSequence = 1_000_000
	// MaxRecords is the most records of a FASTA or dot-bracket file.
	MaxRecords = 1_000_000
	// MaxTotal is the most bases of a file, all its records together.
	MaxTotal = 1 << 30
	// MaxLine is the most bytes of a line.
	MaxLine = 1 << 24
)

// ErrTooLarge is wrapped by the errors of input beyond the bounds;
// binary data gives errors wrapping ErrBinary.
var (
	ErrTooLarge = fileio.ErrTooLarge
	ErrBinary   = fileio.ErrBinary
)

// errBinary is the error of binary input.
var errBinary = fmt.Errorf("%w, not an RNA sequence or structure file", ErrBinary)

// sniffer refuses binary data (fileio.Sniff) at its first read.
type sniffer struct {
	r     io.Reader
	ready bool
}

func (s *sniffer) Read(p []byte) (int, error) {
	if !s.ready {
		s.ready = true
		r, err := fileio.Sniff(s.r)
		if errors.Is(err, fileio.ErrBinary) {
			err = errBinary
		}
		if err != nil {
			s.r = errReader{err}
			return 0, err
		}
		s.r = r
	}
	return s.r.Read(p)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// lineScanner splits input into lines ending in LF, CRLF or CR, refusing
// binary data and lines beyond MaxLine (its Err names them).
func lineScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(&sniffer{r: r})
	sc.Buffer(make([]byte, 1<<16), MaxLine+2)
	line := 0
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if atEOF && len(data) == 0 {
			return 0, nil, nil
		}
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			if data[i] == '\r' {
				if i+1 < len(data) {
					line++
					if data[i+1] == '\n' {
						return i + 2, data[:i], nil
					}
					return i + 1, data[:i], nil
				}
				if !atEOF {
					return 0, nil, nil // a CR at the end: wait for what follows
				}
			}
			line++
			return i + 1, data[:i], nil
		}
		if len(data) > MaxLine {
			return 0, nil, fileio.TooLarge("line %d longer than %d bytes (the reader's bound)", line+1, MaxLine)
		}
		if atEOF {
			line++
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	return sc
}

// tooLong is the error of a sequence or structure beyond MaxSequence.
func tooLong(what string) error {
	return fileio.TooLarge("%s longer than %d nt (the reader's bound)", what, MaxSequence)
}
