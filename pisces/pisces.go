package pisces

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// Entry is one chain of a PISCES list.
type Entry struct {
	ID         string // PDB code + chain, as in the list (e.g. "1A01B")
	PDB        string // upper-case 4-character PDB code
	Chain      string // author chain ID, case preserved
	Length     int
	Method     string  // "XRAY", "NMR", "EM", ...
	Resolution float64 // Å
	RFactor    float64
	FreeR      float64
}

// Sentinel errors wrapped by ParseError.
var (
	ErrHeader  = errors.New("missing or unexpected header")
	ErrColumns = errors.New("wrong number of columns")
	ErrID      = errors.New("bad chain ID")
	ErrNumber  = errors.New("bad number")
)

// ParseError locates a problem in a list.
type ParseError struct {
	Path   string // file name, if known
	Line   int    // 1-based
	Column int    // 1-based field number, 0 if not about one field
	Err    error
}

func (e *ParseError) Error() string {
	loc := fmt.Sprintf("line %d", e.Line)
	if e.Column > 0 {
		loc += fmt.Sprintf(", column %d", e.Column)
	}
	if e.Path != "" {
		return fmt.Sprintf("pisces: %s %s: %v", e.Path, loc, e.Err)
	}
	return fmt.Sprintf("pisces: %s: %v", loc, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

var header = []string{"IDs", "length", "Exptl.", "resolution", "R-factor", "FreeRvalue"}

// Reader reads entries from a list.
type Reader struct {
	Path string // used in errors
	r    io.Reader
	sc   *bufio.Scanner
	line int
}

// Bounds of the reader: larger input is refused with a *ParseError
// naming the line and the bound, wrapping fileio.ErrTooLarge.
const (
	// MaxLine is the most bytes of a line (a list line is ~50).
	MaxLine = 1 << 20
	// MaxEntries is the most entries ReadAll reads (the largest PISCES
	// lists have a few hundred thousand chains).
	MaxEntries = 5_000_000
)

// NewReader returns a Reader of plain list text. Binary data is refused
// (an error wrapping fileio.ErrBinary).
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r}
}

func (r *Reader) errf(col int, err error, format string, args ...any) error {
	return &ParseError{Path: r.Path, Line: r.line, Column: col, Err: fmt.Errorf("%w: "+format, append([]any{err}, args...)...)}
}

// Read returns the next entry, or io.EOF.
func (r *Reader) Read() (Entry, error) {
	if r.sc == nil {
		in, err := fileio.Sniff(r.r)
		if errors.Is(err, fileio.ErrBinary) {
			err = fmt.Errorf("%w, not a PISCES list", err)
		}
		if err != nil {
			r.sc = fileio.NewScanner(strings.NewReader(""), MaxLine)
			return Entry{}, &ParseError{Path: r.Path, Line: 1, Err: err}
		}
		r.sc = fileio.NewScanner(in, MaxLine)
	}
	for r.sc.Scan() {
		r.line++
		f := strings.Fields(r.sc.Text())
		if len(f) == 0 {
			continue
		}
		if r.line == 1 || f[0] == "IDs" {
			if !slices.Equal(f, header) {
				return Entry{}, r.errf(0, ErrHeader, "%s", fileio.Quote(r.sc.Text()))
			}
			continue
		}
		if len(f) != len(header) {
			return Entry{}, r.errf(0, ErrColumns, "%d fields, want %d", len(f), len(header))
		}
		return r.parse(f)
	}
	if err := fileio.ScanErr(r.sc, r.line+1, MaxLine); err != nil {
		return Entry{}, &ParseError{Path: r.Path, Line: r.line + 1, Err: err}
	}
	if r.line == 0 {
		return Entry{}, &ParseError{Path: r.Path, Line: 1, Err: fmt.Errorf("%w: empty list", ErrHeader)}
	}
	return Entry{}, io.EOF
}

func (r *Reader) parse(f []string) (Entry, error) {
	e := Entry{ID: f[0], Method: f[2]}
	var err error
	if e.PDB, e.Chain, err = SplitID(f[0]); err != nil {
		return Entry{}, r.errf(1, ErrID, "%v", err)
	}
	if e.Length, err = strconv.Atoi(f[1]); err != nil || e.Length <= 0 {
		return Entry{}, r.errf(2, ErrNumber, "length %s", fileio.Quote(f[1]))
	}
	for i, p := range []*float64{&e.Resolution, &e.RFactor, &e.FreeR} {
		if *p, err = strconv.ParseFloat(f[3+i], 64); err != nil || *p < 0 || *p != *p {
			return Entry{}, r.errf(4+i, ErrNumber, "%s %s", header[3+i], fileio.Quote(f[3+i]))
		}
	}
	return e, nil
}

// SplitID splits a PISCES chain ID ("1A01B", "1abc_A") into the upper-case
// PDB code and the chain ID.
func SplitID(id string) (pdb, chain string, err error) {
	if len(id) < 5 {
		return "", "", fmt.Errorf("%s: want a 4-character PDB code and a chain", fileio.Quote(id))
	}
	pdb, chain = strings.ToUpper(id[:4]), strings.TrimPrefix(id[4:], "_")
	if pdb[0] < '1' || pdb[0] > '9' {
		return "", "", fmt.Errorf("%s: PDB code must start with a digit 1-9", fileio.Quote(id))
	}
	for _, c := range pdb[1:] {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return "", "", fmt.Errorf("%s: PDB code must be alphanumeric", fileio.Quote(id))
		}
	}
	if chain == "" || len(chain) > 4 {
		return "", "", fmt.Errorf("%s: bad chain ID %s", fileio.Quote(id), fileio.Quote(chain))
	}
	for _, c := range chain {
		if c <= ' ' || c > '~' {
			return "", "", fmt.Errorf("%s: bad chain ID %s", fileio.Quote(id), fileio.Quote(chain))
		}
	}
	return pdb, chain, nil
}

// ReadAll reads every entry.
func (r *Reader) ReadAll() ([]Entry, error) {
	var es []Entry
	for {
		e, err := r.Read()
		if err == io.EOF {
			return es, nil
		}
		if err != nil {
			return es, err
		}
		if len(es) == MaxEntries {
			return es, &ParseError{Path: r.Path, Line: r.line, Err: fileio.TooLarge("more than %d entries (the reader's bound)", MaxEntries)}
		}
		es = append(es, e)
	}
}

// ReadFile reads a list file, plain or gzip-compressed.
func ReadFile(path string) ([]Entry, error) {
	f, err := fileio.Open(path)
	if err != nil {
		return nil, fmt.Errorf("pisces: %w", err)
	}
	defer f.Close()
	r := NewReader(f)
	r.Path = path
	return r.ReadAll()
}

// Filter selects entries. Zero fields do not filter.
type Filter struct {
	MinLength, MaxLength int
	MaxResolution        float64
	MaxRFactor           float64
	Methods              []string // e.g. {"XRAY"}; empty allows all
}

// Keep reports whether e passes the filter.
func (f Filter) Keep(e Entry) bool {
	switch {
	case f.MinLength > 0 && e.Length < f.MinLength,
		f.MaxLength > 0 && e.Length > f.MaxLength,
		f.MaxResolution > 0 && e.Resolution > f.MaxResolution,
		f.MaxRFactor > 0 && e.RFactor > f.MaxRFactor,
		len(f.Methods) > 0 && !slices.Contains(f.Methods, e.Method):
		return false
	}
	return true
}

// Apply returns the entries that pass.
func (f Filter) Apply(es []Entry) []Entry {
	var out []Entry
	for _, e := range es {
		if f.Keep(e) {
			out = append(out, e)
		}
	}
	return out
}
