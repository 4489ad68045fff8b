package features

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// Bounds of the readers: input beyond them is refused as soon as it is
// read, with an error wrapping fileio.ErrTooLarge that names the record
// or line and the bound.
const (
	// MaxSequence is the most residues of a protein sequence (a FASTA
	// record of ReadSequences, a secondary-structure prediction): the
	// longest chains known are about 35,000 residues.
	MaxSequence = 100_000
	// MaxRecords is the most records of a FASTA file of sequences.
	MaxRecords = 1_000_000
	// maxLetters is the most letters of a FASTA file, all its records
	// together.
	maxLetters = 1 << 30
	// maxHeader is the most bytes of a FASTA header line.
	maxHeader = 1 << 20
)

// readFasta reads every record with fileio's FASTA reader (biogo's
// reading rules; letters kept as written: case, '-' and '.' included)
// within the bounds of sequences; binary data is refused
// (fileio.ErrBinary). Another error of the stream names the record it
// stopped in.
func readFasta(r io.Reader) ([]*fileio.FASTARecord, error) {
	fr := fileio.NewFASTAReader(r)
	fr.MaxSeq, fr.MaxRecords, fr.MaxTotal, fr.MaxHeader, fr.Unit = MaxSequence, MaxRecords, maxLetters, maxHeader, "residues"
	recs, err := fr.ReadAll()
	if err != nil && !errors.Is(err, fileio.ErrBinary) && !errors.Is(err, fileio.ErrTooLarge) {
		err = fmt.Errorf("FASTA record %d: %w", len(recs)+1, err) // the others name the record or line
	}
	return recs, err
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

// ReadSequences reads the records of a FASTA stream (biogo's reading
// rules; at most MaxRecords records of MaxSequence residues, binary data
// refused);
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
		seq := strings.TrimRight(strings.ToUpper(string(rec.Seq)), "*")
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
