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
