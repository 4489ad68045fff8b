package features

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// ErrMSA marks a malformed alignment.
var ErrMSA = errors.New("bad multiple sequence alignment")

// Alignment is an MSA reduced to the query's columns: Rows[0] is the
// query (no gaps), every row has len(Rows[0]) characters, upper-case
// residues or '-'.
type Alignment struct {
	Rows []string
}

// Query returns the first row.
func (a *Alignment) Query() string { return a.Rows[0] }

// MSAFormat is an alignment file format.
type MSAFormat int

// The alignment formats ReadMSA and ParseMSA read.
const (
	// AlignedFASTA: aligned FASTA; columns where the query has a gap or a
	// lower-case letter are dropped.
	AlignedFASTA MSAFormat = iota
	// A3M (HHblits): lower-case letters and '.' are insertions relative to
	// the query and are dropped.
	A3M
	// PSICOV: one aligned sequence per line, no names.
	PSICOV
)

func (f MSAFormat) String() string {
	switch f {
	case AlignedFASTA:
		return "aligned FASTA"
	case A3M:
		return "A3M"
	case PSICOV:
		return "PSICOV"
	}
	return fmt.Sprintf("MSAFormat(%d)", int(f))
}

// MSAFormatOf names the format of an alignment file by its extension
// (.a3m, .aln, anything else aligned FASTA; .gz and .zst ignored).
func MSAFormatOf(path string) MSAFormat {
	switch strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".zst"))) {
	case ".aln":
		return PSICOV
	case ".a3m":
		return A3M
	}
	return AlignedFASTA
}

// ReadMSA reads an alignment file (plain, gzip or zstd), format by
// extension (MSAFormatOf). The query is the first sequence.
func ReadMSA(path string) (*Alignment, error) {
	f, err := fileio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := ParseMSA(f, MSAFormatOf(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// ParseMSA reads an uncompressed alignment in the given format and reduces
// it to the query's columns. Errors wrap ErrMSA for a malformed alignment.
func ParseMSA(r io.Reader, format MSAFormat) (*Alignment, error) {
	var rows []string
	var err error
	switch format {
	case PSICOV:
		rows, err = readLines(r)
	case A3M:
		var recs []fastaRecord
		if recs, err = readFasta(r, alignmentBounds); err == nil {
			for _, rec := range recs {
				rows = append(rows, strings.Map(func(c rune) rune {
					if c == '.' || c >= 'a' && c <= 'z' {
						return -1
					}
					return c
				}, rec.Seq))
			}
		}
	case AlignedFASTA:
		var recs []fastaRecord
		if recs, err = readFasta(r, alignmentBounds); err == nil {
			for _, rec := range recs {
				rows = append(rows, rec.Seq)
			}
			rows, err = queryColumns(rows)
		}
	default:
		return nil, fmt.Errorf("features: unknown alignment format %v", format)
	}
	if err != nil && !errors.Is(err, ErrMSA) {
		err = fmt.Errorf("%w: %w", ErrMSA, err)
	}
	if err != nil {
		return nil, err
	}
	return newAlignment(rows)
}

// readLines reads the rows of a PSICOV alignment, within the bounds of
// alignments; binary data is refused.
func readLines(r io.Reader) ([]string, error) {
	r, err := fileio.Sniff(r)
	if err != nil {
		if errors.Is(err, fileio.ErrBinary) {
			err = fmt.Errorf("%w, not an alignment", err)
		}
		return nil, err
	}
	var rows []string
	sc := fileio.NewScanner(r, MaxAlignmentRow)
	line, total := 0, 0
	for sc.Scan() {
		line++
		if t := strings.TrimSpace(sc.Text()); t != "" {
			if len(rows) == MaxAlignmentDepth {
				return nil, fileio.TooLarge("line %d: more than %d rows (the reader's bound)", line, MaxAlignmentDepth)
			}
			if total += len(t); total > MaxAlignmentLetters {
				return nil, fileio.TooLarge("line %d: more than %d letters in all rows (the reader's bound)", line, MaxAlignmentLetters)
			}
			rows = append(rows, t)
		}
	}
	return rows, fileio.ScanErr(sc, line+1, MaxAlignmentRow)
}

// queryColumns keeps the columns where the query (row 0) has an
// upper-case residue.
func queryColumns(rows []string) ([]string, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: no sequences", ErrMSA)
	}
	q := rows[0]
	var keep []int
	for i := 0; i < len(q); i++ {
		if q[i] >= 'A' && q[i] <= 'Z' {
			keep = append(keep, i)
		}
	}
	out := make([]string, len(rows))
	b := make([]byte, len(keep))
	for k, r := range rows {
		if len(r) != len(q) {
			return nil, fmt.Errorf("%w: sequence %d has %d columns, the query %d", ErrMSA, k+1, len(r), len(q))
		}
		for j, i := range keep {
			b[j] = r[i]
		}
		out[k] = string(b)
	}
	return out, nil
}

func newAlignment(rows []string) (*Alignment, error) {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, fmt.Errorf("%w: no sequences", ErrMSA)
	}
	l := len(rows[0])
	out := make([]string, len(rows))
	for k, r := range rows {
		if len(r) != l {
			return nil, fmt.Errorf("%w: sequence %d has %d columns, the query %d", ErrMSA, k+1, len(r), l)
		}
		b := []byte(strings.ToUpper(r))
		for i, c := range b {
			switch {
			case c == '.' || c == '-':
				b[i] = '-'
			case c >= 'A' && c <= 'Z':
			default:
				return nil, fmt.Errorf("%w: sequence %d column %d: character %q", ErrMSA, k+1, i+1, c)
			}
		}
		if k == 0 && strings.Contains(string(b), "-") {
			return nil, fmt.Errorf("%w: the query (first sequence) has gaps", ErrMSA)
		}
		out[k] = string(b)
	}
	return &Alignment{Rows: out}, nil
}

// FindMSA returns the alignment file for chain id in dir (<id>.a3m, .aln,
// .fasta, .fa, .afa, possibly .gz; a symbolic link counts when it
// resolves to a regular file), or "" if there is none.
func FindMSA(dir, id string) string {
	for _, ext := range []string{".a3m", ".aln", ".fasta", ".fa", ".afa"} {
		for _, z := range []string{"", ".gz"} {
			p := filepath.Join(dir, id+ext+z)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p
			}
		}
	}
	return ""
}
