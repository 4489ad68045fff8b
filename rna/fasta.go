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
type Sequence struct {
	Name string
	Seq  string // normalised: A, C, G, U and N
	// Ambiguous counts the IUPAC ambiguity codes (R Y K M S W B D H V,
	// either case) of the record that normalisation turned into N
	// (AmbiguousCount); an N of the input is not counted.
	Ambiguous int
}

// ReadFASTA reads sequences with biogo's FASTA reader (line ends LF, CRLF
// or CR). The name is the first word of the header after '>' and any
// spaces ("> my seq" is named "my"). A record with an invalid letter gives an error naming the
// record and the position; the other records are returned with it (the
// caller reports and goes on).
func ReadFASTA(r io.Reader, path string) ([]Sequence, []error) {
	fr := fasta.NewReader(crReader{r}, linear.NewSeq("", nil, alphabet.RNAredundant))
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
		// biogo's ID is what precedes the first space or tab: "" for
		// "> name", and it may hold other white space.
		name := ""
		if f := strings.Fields(ls.Name() + " " + ls.Description()); len(f) > 0 {
			name = f[0]
		}
		raw := strings.Join(strings.Fields(string(b)), "")
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

// crReader reads r with every CR turned into LF: biogo's FASTA reader
// splits lines at LF only, and skips the blank lines CRLF then gives.
type crReader struct{ r io.Reader }

func (c crReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\r' {
			p[i] = '\n'
		}
	}
	return n, err
}
