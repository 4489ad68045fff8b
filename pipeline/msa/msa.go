// Package msa reads multiple sequence alignments in the formats users of
// coevolution methods have: PSICOV .aln (one aligned sequence per line),
// A3M (HHblits; lower-case insert states and '.' dropped), aligned FASTA
// (also A2M: columns where the query has no upper-case residue dropped) and
// Stockholm (HMMER, Pfam; #=GF/#=GS/#=GC/#=GR lines ignored, blocks joined
// by sequence name), each plain or gzip-compressed (zstd too), the format
// recognised by content (Detect), never by the file name.
//
// The first sequence is the query. Every alignment is reduced to the
// query's columns: the result has one row per sequence, each as long as
// the query, upper-case letters or '-'. Letters other than the 20 standard
// amino acids (B, J, O, U, X, Z) are kept here; pipeline/potts maps them
// to the gap state as CCMpred does. Any other character is an error.
//
// Errors are *ParseError values naming the file, the line and the
// sequence, wrapping one of the sentinels ErrEmpty, ErrSingle, ErrRagged,
// ErrLetter, ErrQueryGap, ErrSyntax (as encoding/csv's ParseError):
//
//	a, err := msa.ReadFile("1abcA.a3m.gz")
//	if errors.Is(err, msa.ErrRagged) { ... }
//
// Alignment is the one alignment type of the protein pipeline, and these
// readers its one reader: pipeline/features (ReadFileWith, Single: one row
// allowed), pipeline/predict and pipeline/potts read alignments here, and
// QueryColumns gives them the columns of the query's residues.
//
// Weights computes sequence weights and the effective number of sequences
// at an Identity: CCMpred's by default (DefaultIdentity), EVfold-mfDCA's
// with AtLeast (the features' co-evolution channels); LowDepth returns a
// warning (a value, for the caller to print) where Neff/L is below 1.
package msa

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// Format is an alignment file format.
type Format int

// The formats Read recognises.
const (
	Unknown Format = iota
	PSICOV
	A3M
	FASTA // aligned FASTA or A2M
	Stockholm
)

func (f Format) String() string {
	switch f {
	case PSICOV:
		return "PSICOV"
	case A3M:
		return "A3M"
	case FASTA:
		return "aligned FASTA"
	case Stockholm:
		return "Stockholm"
	}
	return "unknown"
}

// Sentinel errors wrapped by ParseError.
var (
	ErrEmpty    = errors.New("no sequences")
	ErrSingle   = errors.New("a single sequence: an alignment needs at least two")
	ErrRagged   = errors.New("ragged row: not as long as the query")
	ErrLetter   = errors.New("unknown letter")
	ErrQueryGap = errors.New("the query (first sequence) has no residues")
	ErrSyntax   = errors.New("syntax error")
)

// ParseError locates a problem in an alignment file.
type ParseError struct {
	Path string // file name, "" for a reader
	Line int    // 1-based line of the input (of the sequence's header, for FASTA/A3M), 0 if not about one line
	Row  int    // 1-based sequence number (1 = the query), 0 if not about one sequence
	Err  error
}

func (e *ParseError) Error() string {
	path := e.Path
	if path == "" {
		path = "<input>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "msa: %s", path)
	if e.Line > 0 {
		fmt.Fprintf(&b, " line %d", e.Line)
	}
	if e.Row > 0 {
		fmt.Fprintf(&b, " (sequence %d)", e.Row)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// Alignment is an MSA reduced to the query's columns.
type Alignment struct {
	Path   string   // the file it was read from, if any
	Format Format   // the format it was read as
	Names  []string // one per row; "" where the format has none (PSICOV)
	Rows   [][]byte // Rows[0] is the query; upper-case letters or '-', all len(Rows[0])
}

// N is the number of sequences, L the number of columns.
func (a *Alignment) N() int { return len(a.Rows) }

// L is the number of columns (the query's length).
func (a *Alignment) L() int {
	if len(a.Rows) == 0 {
		return 0
	}
	return len(a.Rows[0])
}

// Query returns the first row.
func (a *Alignment) Query() string { return string(a.Rows[0]) }

// Bounds of the readers: larger input is refused, with a *ParseError
// that names the file and the bound and wraps fileio.ErrTooLarge (see
// ErrTooLarge), after reading no more than about the bound.
const (
	// MaxBytes is the most bytes of an alignment (uncompressed): it
	// bounds depth times length, N*L.
	MaxBytes = 1 << 30
	// MaxLine is the most bytes of a line: a row of the widest
	// alignments, insertions and a Stockholm name included.
	MaxLine = 1 << 22
)

// ErrTooLarge is wrapped by the errors of input beyond MaxBytes or
// MaxLine; binary data (fileio.IsBinary) gives errors wrapping ErrBinary.
var (
	ErrTooLarge = fileio.ErrTooLarge
	ErrBinary   = fileio.ErrBinary
)

// Options adjust the readers; the zero value reads as ReadFile, Read
// and Parse do.
type Options struct {
	// Single accepts an alignment of the query alone, which the readers
	// otherwise refuse (ErrSingle: plmDCA needs two sequences); the MSA
	// channels of pipeline/features are defined for one.
	Single bool
}

// ReadFile reads an alignment file: plain, gzip or zstd, format by content.
func ReadFile(path string) (*Alignment, error) { return ReadFileWith(path, Options{}) }

// ReadFileWith is ReadFile with options.
func ReadFileWith(path string, opt Options) (*Alignment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, opt)
}

// Read reads an alignment from r (plain, gzip or zstd, recognised by
// their magic bytes), format by content (Detect); path names it in
// errors.
func Read(r io.Reader, path string) (*Alignment, error) { return read(r, path, Options{}) }

func read(r io.Reader, path string, opt Options) (*Alignment, error) {
	rc, err := fileio.NewReader(r)
	if err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	defer rc.Close()
	data, err := fileio.ReadText(rc, MaxBytes, MaxLine)
	if errors.Is(err, ErrBinary) {
		err = fmt.Errorf("%w, not an alignment", err)
	}
	if err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	return parse(data, path, Detect(data), opt)
}

// Detect names the format of an uncompressed alignment by its content:
// "# STOCKHOLM" on the first line is Stockholm; a first record line
// starting with '>' is FASTA, or A3M where the file says "#A3M#" or has
// lower-case letters and rows of different raw lengths; anything else
// with text is PSICOV. Unknown for empty input.
func Detect(data []byte) Format {
	lines := splitLines(data)
	first := -1
	for k, l := range lines {
		if len(bytes.TrimSpace(l)) > 0 {
			first = k
			break
		}
	}
	if first < 0 {
		return Unknown
	}
	head := bytes.TrimSpace(lines[first])
	if bytes.HasPrefix(head, []byte("# STOCKHOLM")) {
		return Stockholm
	}
	if bytes.HasPrefix(head, []byte("#A3M#")) {
		return A3M
	}
	fasta := false
	for _, l := range lines[first:] {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		fasta = t[0] == '>'
		break
	}
	if !fasta {
		if head[0] == '#' {
			return Unknown
		}
		return PSICOV
	}
	recs, err := fastaRecords(lines, "")
	if err != nil {
		return FASTA
	}
	lower, ragged := false, false
	for _, r := range recs {
		if len(r.seq) != len(recs[0].seq) {
			ragged = true
		}
		if bytes.IndexFunc(r.seq, func(c rune) bool { return c >= 'a' && c <= 'z' }) >= 0 {
			lower = true
		}
	}
	if lower && ragged {
		return A3M
	}
	return FASTA
}

// Parse reads an uncompressed alignment in format f (Detect's answer for
// Unknown); path names it in errors. Binary data and data beyond MaxBytes
// are refused.
func Parse(data []byte, path string, f Format) (*Alignment, error) {
	return parse(data, path, f, Options{})
}

func parse(data []byte, path string, f Format, opt Options) (*Alignment, error) {
	if fileio.IsBinary(data[:min(len(data), fileio.SniffSize)]) {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("%w, not an alignment", ErrBinary)}
	}
	if len(data) > MaxBytes {
		return nil, &ParseError{Path: path, Err: fileio.TooLarge("more than %d bytes (the reader's bound)", MaxBytes)}
	}
	if f == Unknown {
		f = Detect(data)
	}
	lines := splitLines(data)
	var recs []record
	var err error
	switch f {
	case PSICOV:
		recs, err = psicovRecords(lines, path)
	case A3M:
		recs, err = fastaRecords(lines, path)
		for k := range recs {
			recs[k].seq = dropInserts(recs[k].seq)
		}
	case FASTA:
		recs, err = fastaRecords(lines, path)
	case Stockholm:
		recs, err = stockholmRecords(lines, path)
	default:
		if len(recs) == 0 && isBlank(data) {
			return nil, &ParseError{Path: path, Err: ErrEmpty}
		}
		return nil, &ParseError{Path: path, Line: 1, Err: fmt.Errorf("%w: not an alignment in a known format (PSICOV, A3M, FASTA, Stockholm)", ErrSyntax)}
	}
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, &ParseError{Path: path, Err: ErrEmpty}
	}
	if f == FASTA || f == Stockholm {
		// Keep the query's match columns: upper-case residues (A2M and
		// Stockholm mark insert columns by lower case or '.'/'-').
		if err := checkLengths(recs, path); err != nil {
			return nil, err
		}
		var keep []int
		for i, c := range recs[0].seq {
			if c >= 'A' && c <= 'Z' {
				keep = append(keep, i)
			}
		}
		for k := range recs {
			s := make([]byte, len(keep))
			for j, i := range keep {
				s[j] = recs[k].seq[i]
			}
			recs[k].seq = s
		}
	}
	if err := checkLengths(recs, path); err != nil {
		return nil, err
	}
	a := &Alignment{Path: path, Format: f, Names: make([]string, len(recs)), Rows: make([][]byte, len(recs))}
	for k, r := range recs {
		for i, c := range r.seq {
			switch {
			case c >= 'A' && c <= 'Z', c == '-':
			case c >= 'a' && c <= 'z':
				r.seq[i] = c - 'a' + 'A'
			case c == '.':
				r.seq[i] = '-'
			default:
				return nil, &ParseError{Path: path, Line: r.line, Row: k + 1, Err: fmt.Errorf("%w %q in column %d", ErrLetter, c, i+1)}
			}
		}
		a.Names[k], a.Rows[k] = r.name, r.seq
	}
	if len(a.Rows[0]) == 0 || bytes.Count(a.Rows[0], []byte("-")) == len(a.Rows[0]) {
		return nil, &ParseError{Path: path, Line: recs[0].line, Row: 1, Err: ErrQueryGap}
	}
	if len(a.Rows) == 1 && !opt.Single {
		return nil, &ParseError{Path: path, Line: recs[0].line, Row: 1, Err: ErrSingle}
	}
	return a, nil
}

// QueryColumns drops the columns where the query (row 0) has a gap: the
// alignment over the query's residues, as the predictors and the
// features read it. a is returned as it is when the query has none.
func (a *Alignment) QueryColumns() *Alignment {
	q := a.Rows[0]
	if bytes.IndexByte(q, '-') < 0 {
		return a
	}
	var keep []int
	for i, c := range q {
		if c != '-' {
			keep = append(keep, i)
		}
	}
	b := *a
	b.Rows = make([][]byte, len(a.Rows))
	for k, r := range a.Rows {
		s := make([]byte, len(keep))
		for j, i := range keep {
			s[j] = r[i]
		}
		b.Rows[k] = s
	}
	return &b
}

type record struct {
	name string
	seq  []byte
	line int // 1-based line of the header (or of the row)
}

func isBlank(data []byte) bool { return len(bytes.TrimSpace(data)) == 0 }

// splitLines splits at '\n', dropping a '\r' before it; the lines
// alias data.
func splitLines(data []byte) [][]byte {
	lines := bytes.Split(data, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	for k, l := range lines {
		lines[k] = bytes.TrimSuffix(l, []byte("\r"))
	}
	return lines
}

func checkLengths(recs []record, path string) error {
	l := len(recs[0].seq)
	for k, r := range recs {
		if len(r.seq) != l {
			return &ParseError{Path: path, Line: r.line, Row: k + 1, Err: fmt.Errorf("%w: %d columns, the query %d", ErrRagged, len(r.seq), l)}
		}
	}
	return nil
}

func dropInserts(s []byte) []byte {
	out := s[:0]
	for _, c := range s {
		if c == '.' || c >= 'a' && c <= 'z' {
			continue
		}
		out = append(out, c)
	}
	return out
}

func psicovRecords(lines [][]byte, path string) ([]record, error) {
	var recs []record
	for k, l := range lines {
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			continue
		}
		if bytes.ContainsAny(t, " \t") {
			return nil, &ParseError{Path: path, Line: k + 1, Row: len(recs) + 1, Err: fmt.Errorf("%w: white space inside a PSICOV row (one aligned sequence per line)", ErrSyntax)}
		}
		recs = append(recs, record{seq: append([]byte(nil), t...), line: k + 1})
	}
	return recs, nil
}

// fastaRecords reads FASTA/A3M records; '#' lines before the first record
// (A3M's "#A3M#" or HHblits' comment) are skipped.
func fastaRecords(lines [][]byte, path string) ([]record, error) {
	var recs []record
	for k, l := range lines {
		t := bytes.TrimSpace(l)
		switch {
		case len(t) == 0:
		case t[0] == '>':
			name := string(bytes.TrimSpace(t[1:]))
			recs = append(recs, record{name: name, line: k + 1, seq: []byte{}})
		case len(recs) == 0 && t[0] == '#':
		case len(recs) == 0:
			return nil, &ParseError{Path: path, Line: k + 1, Err: fmt.Errorf("%w: sequence text before the first '>' header", ErrSyntax)}
		default:
			r := &recs[len(recs)-1]
			for _, c := range t {
				if c != ' ' && c != '\t' {
					r.seq = append(r.seq, c)
				}
			}
		}
	}
	return recs, nil
}

// stockholmRecords joins the blocks of a Stockholm file by name, in the
// order names first appear. Markup lines (#=GF, #=GS, #=GC, #=GR) and
// comments are ignored; "//" ends the alignment.
func stockholmRecords(lines [][]byte, path string) ([]record, error) {
	var recs []record
	index := map[string]int{}
	for k, l := range lines {
		t := bytes.TrimSpace(l)
		switch {
		case len(t) == 0, t[0] == '#':
			continue
		case bytes.Equal(t, []byte("//")):
			return recs, nil
		}
		f := bytes.Fields(t)
		if len(f) != 2 {
			return nil, &ParseError{Path: path, Line: k + 1, Err: fmt.Errorf("%w: a Stockholm sequence line has a name and a sequence, found %d fields", ErrSyntax, len(f))}
		}
		name := string(f[0])
		i, ok := index[name]
		if !ok {
			i = len(recs)
			index[name] = i
			recs = append(recs, record{name: name, line: k + 1})
		}
		recs[i].seq = append(recs[i].seq, f[1]...)
	}
	return recs, nil
}
