package rna

import (
	"fmt"
	"io"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// ReadDBN reads a file of dot-bracket records, three lines each, as the
// bpRNA-1m benchmark split (TR0, VL0, TS0) is distributed:
//
//	>ID
//	SEQUENCE
//	STRUCTURE
//
// The sequence is normalised (NormalizeSequence: case, T as U, IUPAC
// codes as N); the structure uses (), [], {}, <> and letter pairs for
// nested and pseudoknotted pairs. Blank lines and lines starting with
// '#' are skipped. A bad record is an error naming the file, its line and
// the record; the records read before it are returned with it.
func ReadDBN(r io.Reader, path string) ([]*Structure, error) {
	sc := lineScanner(r)
	line := 0
	var out []*Structure
	var name, seq string
	start := 0 // line of the current record's header
	state := 0 // 0: want a header, 1: want the sequence, 2: want the structure
	total := 0 // bases in all records
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		switch state {
		case 0:
			if len(out) == MaxRecords {
				return out, &ParseError{Path: path, Line: line, Err: fileio.TooLarge("more than %d records (the reader's bound)", MaxRecords)}
			}
			if t[0] != '>' {
				return out, &ParseError{Path: path, Line: line, Err: fmt.Errorf("%w: want a '>' header, got %.20q", ErrFormat, t)}
			}
			name, start, state = strings.TrimSpace(t[1:]), line, 1
			if f := strings.Fields(name); len(f) > 0 {
				name = f[0]
			}
		case 1:
			if len(t) > MaxSequence {
				return out, &ParseError{Path: path, Line: line, Err: fmt.Errorf("record %s: %w", fileio.Quote(name), tooLong("sequence"))}
			}
			if total += len(t); total > MaxTotal {
				return out, &ParseError{Path: path, Line: line, Err: fileio.TooLarge("more than %d nt in all records (the reader's bound)", MaxTotal)}
			}
			s, err := NormalizeSequence(t)
			if err != nil {
				return out, &ParseError{Path: path, Line: line, Err: fmt.Errorf("record %q: %w", name, err)}
			}
			seq, state = s, 2
		case 2:
			if f := strings.Fields(t); len(f) > 1 {
				t = f[0] // a structure followed by an energy
			}
			s, err := ParseDotBracket(name, seq, t)
			if err != nil {
				return out, &ParseError{Path: path, Line: line, Err: fmt.Errorf("record %q: %w", name, err)}
			}
			out = append(out, s)
			state = 0
		}
	}
	if err := sc.Err(); err != nil {
		return out, &ParseError{Path: path, Line: line, Err: err}
	}
	if state != 0 {
		return out, &ParseError{Path: path, Line: start, Err: fmt.Errorf("%w: record %q ends before its structure", ErrFormat, name)}
	}
	if len(out) == 0 {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: no record", ErrFormat)}
	}
	return out, nil
}
