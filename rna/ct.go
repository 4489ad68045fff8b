package rna

import (
	"bufio"
	"fmt"

	"github.com/contactmap/contactmap/internal/fileio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// ReadCT reads the first structure of a CT file; path names it in errors.
// The name is the identifier of the length line (see countLineName), or
// else that of a "Filename:" or "# File" header without its extension.
func ReadCT(r io.Reader, path string) (*Structure, error) {
	sc := lineScanner(r)
	line, n := 0, -1
	var hdr nameHeader
	name := ""
	fail := func(err error, format string, a ...any) error {
		return &ParseError{Path: path, Line: line, Err: fmt.Errorf("%w: "+format, append([]any{err}, a...)...)}
	}
	var seq []byte
	var pairs [][2]int
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if n < 0 { // header, then the count line
			if headerLine(t) {
				hdr.read(t)
				continue
			}
			f := strings.Fields(t)
			v, err := strconv.Atoi(f[0])
			if err == nil && v > MaxSequence {
				return nil, &ParseError{Path: path, Line: line, Err: fileio.TooLarge("length %d: more than %d nt (the reader's bound)", v, MaxSequence)}
			}
			if err != nil || v < 1 {
				return nil, fail(ErrFormat, "length %s", fileio.Quote(f[0]))
			}
			n = v
			if name = countLineName(f[1:]); name == "" {
				name = hdr.name()
			}
			continue
		}
		if len(seq) == n {
			break // a further structure follows: the first is read
		}
		f := strings.Fields(t)
		if len(f) < 6 {
			return nil, fail(ErrFormat, "%d fields, want 6 (index base prev next partner number)", len(f))
		}
		k := len(seq) + 1
		c, p, err := baseRecord(f, 4, k)
		if err != nil {
			return nil, &ParseError{Path: path, Line: line, Err: err}
		}
		if p < 0 || p > n {
			return nil, fail(ErrPairing, "base %d pairs with %d, outside 1..%d", k, p, n)
		}
		seq = append(seq, c)
		if p > k {
			pairs = append(pairs, [2]int{k - 1, p - 1})
		} else if p != 0 && p != k {
			pairs = append(pairs, [2]int{p - 1, k - 1}) // checked below: must be mutual
		} else if p == k {
			return nil, fail(ErrPairing, "base %d paired with itself", k)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Path: path, Line: line, Err: err}
	}
	if n < 0 {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: no length line", ErrFormat)}
	}
	if len(seq) != n {
		return nil, &ParseError{Path: path, Line: line, Err: fmt.Errorf("%w: %d bases, the length line says %d", ErrFormat, len(seq), n)}
	}
	return fromPairList(name, string(seq), pairs, path)
}

// energyField is the energy of a CT length line, "dG = -12.3" (mfold,
// with an optional "[initially -13.0]"), "ENERGY = -12.3" or
// "Energy = 0" (RNAstructure, RNA STRAND), in any case and spacing.
var energyField = regexp.MustCompile(`(?i)^(?:dG|energy)\s*=\s*[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?(?:\s+\[initially[^\]]*\])?`)

// countLineName takes the name from the fields after the length: the
// first word after an energy field, "dG = -12.3 [initially ...] name",
// "ENERGY = 0 name", "Energy = 0 name", or of the fields as they are.
// RNA STRAND follows the identifier with a description ("A.ferrooxidans
// RNase P RNA"): the identifier is the name.
func countLineName(f []string) string {
	rest := energyField.ReplaceAllString(strings.Join(f, " "), "")
	if w := strings.Fields(rest); len(w) > 0 {
		return w[0]
	}
	return ""
}

// headerName reads the name of a header line of a CT or BPSEQ file,
// without its file extension: "Filename: d.16.b.E.coli.ct" (RNA STRAND)
// gives d.16.b.E.coli with filename true, "# File CRW_00212.ct" gives
// CRW_00212 with filename false; ok is false for other lines.
func headerName(t string) (name string, filename, ok bool) {
	if v, found := strings.CutPrefix(t, "Filename:"); found {
		name, filename = v, true
	} else if v, found := strings.CutPrefix(t, "# File "); found {
		name = v
	} else {
		return "", false, false
	}
	f := strings.Fields(name)
	if len(f) == 0 {
		return "", false, false
	}
	name = f[0]
	for _, ext := range []string{".ct", ".nopct", ".bpseq", ".db", ".dbn"} {
		if len(name) > len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext) {
			name = name[:len(name)-len(ext)]
			break
		}
	}
	return name, filename, true
}

// nameHeader collects the names of header lines: a "Filename:" line's
// wins over a "# File" line's, the first of each kind.
type nameHeader struct{ filename, file string }

func (h *nameHeader) read(t string) {
	name, filename, ok := headerName(t)
	switch {
	case !ok:
	case filename && h.filename == "":
		h.filename = name
	case !filename && h.file == "":
		h.file = name
	}
}

func (h *nameHeader) name() string {
	if h.filename != "" {
		return h.filename
	}
	return h.file
}

// fromPairList builds a structure from pairs listed from both ends (each
// pair once per end): every pair must appear exactly twice, once from
// each base, and no base may have two partners.
func fromPairList(name, seq string, listed [][2]int, path string) (*Structure, error) {
	count := map[[2]int]int{}
	for _, p := range listed {
		count[p]++
	}
	var pairs [][2]int
	for p, c := range count {
		if c != 2 {
			return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: base %d pairs with %d, but not %d with %d", ErrPairing, p[0]+1, p[1]+1, p[1]+1, p[0]+1)}
		}
		pairs = append(pairs, p)
	}
	sortPairs(pairs)
	s, err := New(name, seq, pairs)
	if err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	return s, nil
}

// WriteCT writes s as a CT file, its length line with s's energy
// ("ENERGY = -20.90", see Energy) or else "ENERGY = 0".
func WriteCT(w io.Writer, s *Structure) error {
	if err := s.Check(); err != nil {
		return err
	}
	energy := "0"
	if s.Energy != nil {
		if err := s.Energy.check(); err != nil {
			return err
		}
		energy = fmt.Sprintf("%.2f", s.Energy.DeltaG)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%5d ENERGY = %s %s\n", len(s.Seq), energy, s.Name)
	for i := range s.Seq {
		next := i + 2
		if i == len(s.Seq)-1 {
			next = 0
		}
		fmt.Fprintf(bw, "%5d %c %5d %5d %5d %5d\n", i+1, s.Seq[i], i, next, s.Partner[i]+1, i+1)
	}
	return bw.Flush()
}
