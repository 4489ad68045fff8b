package rna

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/biogo/biogo/alphabet"
	"github.com/biogo/biogo/io/seqio/fasta"
	"github.com/biogo/biogo/seq/linear"
)

// Sequence is a named RNA sequence to predict.
type Sequence struct{ Name, Seq string }

// ReadFASTA reads sequences with biogo's FASTA reader (names up to the
// first white space). A record with an invalid letter gives an error
// naming the record and the position; the other records are returned
// with it (the caller reports and goes on).
func ReadFASTA(r io.Reader, path string) ([]Sequence, []error) {
	fr := fasta.NewReader(r, linear.NewSeq("", nil, alphabet.RNAredundant))
	var out []Sequence
	var errs []error
	for k := 1; ; k++ {
		s, err := fr.Read()
		if errors.Is(err, io.EOF) {
			return out, errs
		}
		if err != nil {
			return out, append(errs, &ParseError{Path: path, Err: fmt.Errorf("%w: record %d: %w", ErrFormat, k, err)})
		}
		ls := s.(*linear.Seq)
		b := make([]byte, len(ls.Seq))
		for i, l := range ls.Seq {
			b[i] = byte(l)
		}
		name := ls.Name()
		seq, err := NormalizeSequence(strings.Join(strings.Fields(string(b)), ""))
		switch {
		case err != nil:
			errs = append(errs, &ParseError{Path: path, Err: fmt.Errorf("record %d (%s): %w", k, name, err)})
		case seq == "":
			errs = append(errs, &ParseError{Path: path, Err: fmt.Errorf("%w: record %d (%s) has no sequence", ErrFormat, k, name)})
		default:
			out = append(out, Sequence{Name: name, Seq: seq})
		}
	}
}
