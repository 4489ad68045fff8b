package sets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// Header is the first line of a chain-set file.
var Header = []string{"id", "length", "split", "file", "nearest", "identity", "evalue"}

// Sentinel errors wrapped by ParseError.
var (
	ErrHeader  = errors.New("not a chain-set header")
	ErrColumns = errors.New("wrong number of columns")
	ErrField   = errors.New("bad field")
)

// ParseError locates a problem in a chain-set file.
type ParseError struct {
	Path   string
	Line   int // 1-based
	Column int // 1-based, 0 if not about one field
	Err    error
}

func (e *ParseError) Error() string {
	loc := fmt.Sprintf("line %d", e.Line)
	if e.Column > 0 {
		loc += fmt.Sprintf(", column %d (%s)", e.Column, Header[e.Column-1])
	}
	return fmt.Sprintf("sets: %s %s: %v", e.Path, loc, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Entry is one line of a chain-set file.
type Entry struct {
	ID, PDB, Chain string
	Length         int
	Split          string
	File           string // structure file; "" to look the PDB code up in a mirror
	Nearest        string
	Identity       float64
	EValue         float64
}

// Write writes members as a chain-set file atomically.
func Write(path string, ms []Member) error {
	return writeRows(path, Header, len(ms), func(i int) (string, Member) { return ms[i].Split, ms[i] })
}

// WriteExcluded writes the chains left out as TSV: a chain-set file's
// columns with the reason in place of the split.
func WriteExcluded(path string, ex []Excluded) error {
	header := append([]string{}, Header...)
	header[2] = "reason"
	return writeRows(path, header, len(ex), func(i int) (string, Member) { return ex[i].Reason, ex[i].Member })
}

// writeRows writes n rows of a chain-set file's columns, the third
// (split or reason) given by row.
func writeRows(path string, header []string, n int, row func(i int) (string, Member)) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		fmt.Fprintln(w, strings.Join(header, "\t"))
		for i := 0; i < n; i++ {
			third, m := row(i)
			near := m.Nearest
			if near == "" {
				near = "-"
			}
			fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%.3f\t%.2g\n", m.ID, len(m.Seq), third, m.File, near, m.Identity, m.EValue)
		}
		return nil
	})
}

// Read reads a chain-set file; path labels errors.
func Read(r io.Reader, path string) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	var out []Entry
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 {
			if text != strings.Join(Header, "\t") {
				return nil, &ParseError{Path: path, Line: 1, Err: fmt.Errorf("%w: %q", ErrHeader, text)}
			}
			continue
		}
		if text == "" {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) != len(Header) {
			return nil, &ParseError{Path: path, Line: line, Err: fmt.Errorf("%w: %d, want %d", ErrColumns, len(f), len(Header))}
		}
		bad := func(col int, format string, args ...any) error {
			return &ParseError{Path: path, Line: line, Column: col, Err: fmt.Errorf("%w: "+format, append([]any{ErrField}, args...)...)}
		}
		e := Entry{ID: f[0], Split: f[2], File: f[3], Nearest: f[4]}
		code, chain, ok := strings.Cut(f[0], "_")
		if !ok || len(code) != 4 || chain == "" || strings.ContainsAny(f[0], " /\\") {
			return nil, bad(1, "chain ID %q is not PDBCODE_CHAIN", f[0])
		}
		e.PDB, e.Chain = strings.ToUpper(code), chain
		n, err := strconv.Atoi(f[1])
		if err != nil || n <= 0 {
			return nil, bad(2, "length %q", f[1])
		}
		e.Length = n
		switch e.Split {
		case Train, Validation, Test:
		default:
			return nil, bad(3, "split %q (train, validation or test)", f[2])
		}
		if e.Nearest == "-" {
			e.Nearest = ""
		}
		if e.Identity, err = strconv.ParseFloat(f[5], 64); err != nil || !(e.Identity >= 0 && e.Identity <= 1) {
			return nil, bad(6, "identity %q", f[5])
		}
		if e.EValue, err = strconv.ParseFloat(f[6], 64); err != nil || !(e.EValue >= 0) {
			return nil, bad(7, "E-value %q", f[6])
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Path: path, Line: line + 1, Err: err}
	}
	if line == 0 {
		return nil, &ParseError{Path: path, Line: 1, Err: fmt.Errorf("%w: empty file", ErrHeader)}
	}
	return out, nil
}

// ReadFile reads a chain-set file.
func ReadFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sets: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// WriteSkips writes the chains and files Scan could not use as TSV.
func WriteSkips(path string, skips []Skip) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		fmt.Fprintln(w, "file\tchain\treason")
		for _, s := range skips {
			fmt.Fprintf(w, "%s\t%s\t%s\n", s.File, s.Chain, strings.ReplaceAll(s.Reason, "\t", " "))
		}
		return nil
	})
}
