package features

import (
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

// Sequence is a named sequence read from FASTA.
type Sequence struct{ Name, Seq string }

// ReadSequences reads the records of a FASTA stream (biogo's reader);
// sequences are upper-cased and trailing stop characters ('*') are
// dropped. A record whose sequence is then empty, or still holds a '*'
// (a stop inside the sequence), is an error naming the record.
func ReadSequences(r io.Reader) ([]Sequence, error) {
	recs, err := readFasta(r)
	if err != nil {
		return nil, err
	}
	out := make([]Sequence, len(recs))
	for i, rec := range recs {
		seq := strings.TrimRight(strings.ToUpper(rec.Seq), "*")
		switch {
		case seq == "":
			return nil, fmt.Errorf("FASTA record %d (%q): empty sequence", i+1, rec.Name)
		case strings.Contains(seq, "*"):
			return nil, fmt.Errorf("FASTA record %d (%q): a stop '*' at position %d inside the sequence", i+1, rec.Name, strings.IndexByte(seq, '*')+1)
		}
		out[i] = Sequence{Name: rec.Name, Seq: seq}
	}
	return out, nil
}
