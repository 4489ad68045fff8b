package rna

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// Sequence is a named RNA sequence to predict.
type Sequence struct {
	Name string
	Seq  string // normalised: A, C, G, U and N
	// Ambiguous counts the IUPAC ambiguity codes (R Y K M S W B D H V,
	// either case) of the record that normalisation turned into N
	// (AmbiguousCount); an N of the input is not counted.
	Ambiguous int
}

// NewFASTAReader returns fileio's FASTA reader of r with RNA's reading
// rules and bounds: line ends LF, CRLF or CR; a record of at most
// MaxSequence nt, a file of at most MaxRecords records and MaxTotal
// bases, a header line of at most MaxLine bytes.
func NewFASTAReader(r io.Reader) *fileio.FASTAReader {
	fr := fileio.NewFASTAReader(r)
	fr.CRLines, fr.Unit = true, "nt"
	fr.MaxSeq, fr.MaxRecords, fr.MaxTotal, fr.MaxHeader = MaxSequence, MaxRecords, MaxTotal, MaxLine
	return fr
}

// ReadFASTA reads sequences with the reading rules of biogo's FASTA
// reader (line ends LF, CRLF or CR), streaming: a record beyond
// MaxSequence, a file beyond MaxRecords records or MaxTotal bases, and
// binary data are refused as soon as they are read (NewFASTAReader). The
// name is the first word of the header after '>' and any spaces ("> my
// seq" is named "my"). A record with an invalid letter gives an error
// naming the record and the position; the other records are returned
// with it (the caller reports and goes on).
func ReadFASTA(r io.Reader, path string) ([]Sequence, []error) {
	recs, err := NewFASTAReader(r).ReadAll()
	var out []Sequence
	var errs []error
	for _, rec := range recs {
		k := rec.Index
		// biogo's ID is what precedes the first space or tab: "" for
		// "> name", and it may hold other white space.
		name := ""
		if f := strings.Fields(rec.Name + " " + rec.Desc); len(f) > 0 {
			name = f[0]
		}
		raw := string(rec.Seq)
		seq, err := NormalizeSequence(raw)
		switch {
		case err != nil:
			errs = append(errs, &ParseError{Path: path, Err: fmt.Errorf("record %d (%s): %w", k, name, err)})
		case seq == "":
			errs = append(errs, &ParseError{Path: path, Err: fmt.Errorf("%w: record %d (%s) has no sequence", ErrFormat, k, name)})
		default:
			out = append(out, Sequence{Name: name, Seq: seq, Ambiguous: AmbiguousCount(raw)})
		}
	}
	switch {
	case err == nil:
	case errors.Is(err, fileio.ErrBinary):
		errs = append(errs, &ParseError{Path: path, Err: errBinary})
	case errors.Is(err, fileio.ErrTooLarge):
		errs = append(errs, &ParseError{Path: path, Err: err}) // names the record
	default:
		errs = append(errs, &ParseError{Path: path, Err: fmt.Errorf("%w: record %d: %w", ErrFormat, len(recs)+1, err)})
	}
	return out, errs
}

// AmbiguousCount returns how many letters of raw are IUPAC ambiguity codes
// (R Y K M S W B D H V, either case), which NormalizeBase reads as N: the
// count a caller warns of. N itself is not counted.
func AmbiguousCount(raw string) int {
	n := 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] | ('a' - 'A') { // lower case
		case 'r', 'y', 'k', 'm', 's', 'w', 'b', 'd', 'h', 'v':
			n++
		}
	}
	return n
}
