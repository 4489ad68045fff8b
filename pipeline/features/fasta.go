package features

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/biogo/biogo/alphabet"
	"github.com/biogo/biogo/io/seqio/fasta"
	"github.com/biogo/biogo/seq/linear"
)

type fastaRecord struct{ Name, Desc, Seq string }

// readFasta reads every record with biogo's FASTA reader (letters kept as
// written: case, '-' and '.' included).
func readFasta(r io.Reader) ([]fastaRecord, error) {
	fr := fasta.NewReader(r, linear.NewSeq("", nil, alphabet.Protein))
	var out []fastaRecord
	for {
		s, err := fr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("FASTA record %d: %w", len(out)+1, err)
		}
		ls := s.(*linear.Seq)
		b := make([]byte, len(ls.Seq))
		for i, l := range ls.Seq {
			b[i] = byte(l)
		}
		out = append(out, fastaRecord{Name: ls.Name(), Desc: ls.Description(), Seq: strings.TrimSpace(string(b))})
	}
}

// Sequence is a named sequence read from FASTA. Err is set for a record
// that holds no usable sequence (its Seq is then what was read, perhaps
// empty): the other records of the file are unaffected.
type Sequence struct {
	Name, Seq string
	Err       error
}

// ErrRecord is wrapped by a Sequence's Err.
var ErrRecord = errors.New("unusable FASTA record")

// ReadSequences reads the records of a FASTA stream (biogo's reader);
// sequences are upper-cased and trailing stop characters ('*') are
// dropped. A record whose sequence is then empty, or still holds a '*'
// (a stop inside the sequence), keeps its place with Err set, naming the
// record and wrapping ErrRecord. The error is for the stream itself: a
// read error, or text biogo's reader cannot parse as FASTA.
func ReadSequences(r io.Reader) ([]Sequence, error) {
	recs, err := readFasta(r)
	if err != nil {
		return nil, err
	}
	out := make([]Sequence, len(recs))
	for i, rec := range recs {
		seq := strings.TrimRight(strings.ToUpper(rec.Seq), "*")
		out[i] = Sequence{Name: rec.Name, Seq: seq}
		switch {
		case seq == "":
			out[i].Err = fmt.Errorf("%w: record %d (%q): empty sequence", ErrRecord, i+1, rec.Name)
		case strings.Contains(seq, "*"):
			out[i].Err = fmt.Errorf("%w: record %d (%q): a stop '*' at position %d inside the sequence", ErrRecord, i+1, rec.Name, strings.IndexByte(seq, '*')+1)
		}
	}
	return out, nil
}
