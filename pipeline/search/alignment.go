package search

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/pipeline/msa"
)

// Alignment is a search's result before it is written, anchored on the
// query: the hits with their insertions, which the filter reads and the
// A3M and Stockholm outputs keep (msa.Alignment, the type the predictors
// read, has the query's columns only: Matches). Rows[0] is the query
// (upper case, no gaps); every row is in A3M's convention, upper case
// letters and '-' in the query's columns (len(Rows[0]) of them in every
// row) and lower-case letters for residues inserted between them.
type Alignment struct {
	Names []string
	Rows  []string
}

// ErrFormat marks a tool's output that cannot be read as an alignment.
var ErrFormat = errors.New("not an alignment")

// Formats are the output formats Write knows: A3M (insertions kept, in
// lower case), PSICOV .aln (the query's columns, one row per line) and
// Stockholm (insertions kept, '.' padding them, a #=GC RF line marking
// the query's columns).
var Formats = []string{"a3m", "aln", "sto"}

// L is the query's length.
func (a *Alignment) L() int { return len(a.Rows[0]) }

// N is the number of rows, the query's included (the depth).
func (a *Alignment) N() int { return len(a.Rows) }

// matches returns a row's query columns (its insertions dropped).
func matches(row string) []byte {
	out := make([]byte, 0, len(row))
	for i := 0; i < len(row); i++ {
		if c := row[i]; c == '-' || c >= 'A' && c <= 'Z' {
			out = append(out, c)
		}
	}
	return out
}

// check verifies that the first row is the query seq and every row has
// len(seq) query columns; path names the output in errors.
func (a *Alignment) check(seq, path string) error {
	if len(a.Rows) == 0 {
		return fmt.Errorf("%s: %w: no sequences", path, ErrFormat)
	}
	if q := string(matches(a.Rows[0])); q != seq {
		return fmt.Errorf("%s: %w: the first row is not the query (%.20s..., the query %.20s...)", path, ErrFormat, q, seq)
	}
	for k, r := range a.Rows {
		if n := len(matches(r)); n != len(seq) {
			return fmt.Errorf("%s: %w: row %d (%s) has %d query columns, the query %d", path, ErrFormat, k+1, a.Names[k], n, len(seq))
		}
	}
	return nil
}

// ParseA3M reads an A3M alignment (HHblits', MMseqs2's result2msa):
// records of '>' headers (the name is the header's first field) and
// sequence lines; '#' lines before the first record and NUL bytes (the
// end of an MMseqs2 database entry) are skipped, '.' dropped.
func ParseA3M(data []byte, path string) (*Alignment, error) {
	a := &Alignment{}
	var row []byte
	flush := func() {
		if len(a.Names) > len(a.Rows) {
			a.Rows = append(a.Rows, string(row))
		}
		row = row[:0]
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), msa.MaxLine)
	line := 0
	for sc.Scan() {
		line++
		t := bytes.TrimSpace(bytes.ReplaceAll(sc.Bytes(), []byte{0}, nil))
		switch {
		case len(t) == 0:
		case t[0] == '>':
			flush()
			name := "unnamed"
			if f := strings.Fields(string(t[1:])); len(f) > 0 {
				name = f[0]
			}
			a.Names = append(a.Names, name)
		case len(a.Names) == 0 && t[0] == '#':
		case len(a.Names) == 0:
			return nil, fmt.Errorf("%s line %d: %w: sequence text before the first '>' header", path, line, ErrFormat)
		default:
			for _, c := range t {
				switch {
				case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == '-':
					row = append(row, c)
				case c == '.', c == ' ', c == '\t':
				default:
					return nil, fmt.Errorf("%s line %d: %w: letter %q", path, line, ErrFormat, c)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", path, line+1, err)
	}
	flush()
	return a, nil
}

// ParseStockholm reads a Stockholm alignment (jackhmmer's -A) and
// anchors it on its first sequence, the query: the columns where the
// query has a residue are the A3M's upper-case columns (a residue there
// upper-cased, a gap '-'); residues in the other columns are insertions,
// lower-cased, and their gaps dropped. Blocks are joined by name; markup
// (#=G*) lines and comments are skipped.
func ParseStockholm(data []byte, path string) (*Alignment, error) {
	names, seqs, _, err := readStockholm(data, path)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: %w: no sequences", path, ErrFormat)
	}
	q := seqs[names[0]]
	a := &Alignment{Names: names, Rows: make([]string, len(names))}
	for k, n := range names {
		s := seqs[n]
		if len(s) != len(q) {
			return nil, fmt.Errorf("%s: %w: sequence %s has %d columns, the query %d", path, ErrFormat, n, len(s), len(q))
		}
		row := make([]byte, 0, len(s))
		for i, c := range s {
			gap := c == '-' || c == '.'
			if !gap && !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
				return nil, fmt.Errorf("%s: %w: letter %q in sequence %s", path, ErrFormat, c, n)
			}
			qc := q[i]
			match := qc != '-' && qc != '.'
			switch {
			case match && gap:
				row = append(row, '-')
			case match:
				row = append(row, upper(c))
			case !gap:
				row = append(row, lower(c))
			}
		}
		a.Rows[k] = string(row)
	}
	return a, nil
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}

// Filter is the selection of hits after a search, as hhfilter's -cov
// and -qid/-id select them: each applies to the hits, never to the query.
type Filter struct {
	// MinCoverage is the least fraction of the query's columns a hit
	// must cover with a residue (hhfilter -cov/100); 0 keeps every hit.
	MinCoverage float64
	// MaxIdentity is the largest identity to the query a hit may have
	// (identical residues over the query columns the hit covers); 1
	// keeps every hit.
	MaxIdentity float64
	// MaxPairIdentity, where in (0, 1), drops the hits of which a row
	// kept before them (the query first, then the tool's order) is the
	// same in more than this fraction of the query's columns, gaps
	// included (msa.NonRedundant): hhfilter -id/100's redundancy filter,
	// with CCMpred's identity. 0 or 1 keeps every hit.
	MaxPairIdentity float64
	// MaxDepth is the most rows kept, the query's included, the first
	// in the tool's order (best E-value first); 0 keeps all.
	MaxDepth int
}

// String names the filter's settings, for the manifest.
func (f Filter) String() string {
	return fmt.Sprintf("min-coverage=%g max-identity=%g max-pair-identity=%g max-depth=%d", f.MinCoverage, f.MaxIdentity, f.MaxPairIdentity, f.MaxDepth)
}

// Apply returns the alignment with the hits f selects, in their order:
// those of the coverage and the identity to the query, then of those
// the rows the redundancy filter keeps, then the first MaxDepth.
func (a *Alignment) Apply(f Filter) *Alignment {
	out := &Alignment{Names: a.Names[:1:1], Rows: a.Rows[:1:1]}
	q := a.Rows[0]
	l := len(q)
	for k := 1; k < len(a.Rows); k++ {
		m := matches(a.Rows[k])
		covered, same := 0, 0
		for i, c := range m {
			if c != '-' {
				covered++
				if c == q[i] {
					same++
				}
			}
		}
		cov := float64(covered) / float64(l)
		id := 0.0
		if covered > 0 {
			id = float64(same) / float64(covered)
		}
		if cov < f.MinCoverage || id > f.MaxIdentity {
			continue
		}
		out.Names = append(out.Names, a.Names[k])
		out.Rows = append(out.Rows, a.Rows[k])
	}
	if f.MaxPairIdentity > 0 && f.MaxPairIdentity < 1 {
		m := out.Matches()
		keep := msa.NonRedundant(m.Encode(), m.N(), m.L(), msa.Identity{Fraction: f.MaxPairIdentity}, 0)
		kept := &Alignment{}
		for _, k := range keep {
			kept.Names = append(kept.Names, out.Names[k])
			kept.Rows = append(kept.Rows, out.Rows[k])
		}
		out = kept
	}
	if f.MaxDepth > 0 && out.N() > f.MaxDepth {
		out.Names, out.Rows = out.Names[:f.MaxDepth], out.Rows[:f.MaxDepth]
	}
	return out
}

// Matches is the alignment reduced to the query's columns (insertions
// dropped), as package msa reads the written file: the type the
// predictors and the features take.
func (a *Alignment) Matches() *msa.Alignment {
	m := &msa.Alignment{Format: msa.A3M, Names: a.Names, Rows: make([][]byte, a.N())}
	for k, r := range a.Rows {
		m.Rows[k] = matches(r)
	}
	return m
}

// NeffPerL is the number of effective sequences at 80% identity
// (msa.Alignment.Neff: CCMpred's weights, msa.DefaultIdentity) over the
// query's length; threads as msa.Weights takes them.
func (a *Alignment) NeffPerL(threads int) float64 {
	m := a.Matches()
	return m.Neff(threads) / float64(m.L())
}

// Write writes the alignment in format (one of Formats).
func (a *Alignment) Write(w io.Writer, format string) error {
	bw := bufio.NewWriter(w)
	switch format {
	case "a3m":
		for k, r := range a.Rows {
			fmt.Fprintf(bw, ">%s\n%s\n", a.Names[k], r)
		}
	case "aln":
		for _, r := range a.Rows {
			bw.Write(matches(r))
			bw.WriteByte('\n')
		}
	case "sto":
		a.writeStockholm(bw)
	default:
		return fmt.Errorf("unknown alignment format %q (%s)", format, strings.Join(Formats, ", "))
	}
	return bw.Flush()
}

// writeStockholm writes the rows with their insertions, each insertion
// padded with '.' to the longest one at its place, names made unique
// (Stockholm joins rows by name) and a #=GC RF line ('x' for a query
// column, '.' for an insertion).
func (a *Alignment) writeStockholm(w *bufio.Writer) {
	l := a.L()
	ins := make([]int, l+1) // longest insertion before query column i (l: after the last)
	for _, r := range a.Rows {
		col, n := 0, 0
		for i := 0; i < len(r); i++ {
			if c := r[i]; c >= 'a' && c <= 'z' {
				n++
				continue
			}
			ins[col] = max(ins[col], n)
			col, n = col+1, 0
		}
		ins[col] = max(ins[col], n)
	}
	names := make([]string, len(a.Names))
	seen := map[string]int{}
	width := 2
	for k, n := range a.Names {
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s_%d", n, seen[n])
		}
		names[k] = n
		width = max(width, len(n), len("#=GC RF"))
	}
	expand := func(r string) []byte {
		out := make([]byte, 0, l+ins[l])
		col, n := 0, 0
		pad := func() {
			for ; n < ins[col]; n++ {
				out = append(out, '.')
			}
		}
		for i := 0; i < len(r); i++ {
			c := r[i]
			if c >= 'a' && c <= 'z' {
				out = append(out, c)
				n++
				continue
			}
			pad()
			out = append(out, c)
			col, n = col+1, 0
		}
		pad()
		return out
	}
	fmt.Fprintln(w, "# STOCKHOLM 1.0")
	fmt.Fprintln(w)
	for k, r := range a.Rows {
		fmt.Fprintf(w, "%-*s %s\n", width, names[k], expand(r))
	}
	rf := make([]byte, 0, l)
	for i := 0; i < l; i++ {
		rf = append(rf, 'x')
	}
	fmt.Fprintf(w, "%-*s %s\n//\n", width, "#=GC RF", bytes.ReplaceAll(expand(strings.ToUpper(string(rf))), []byte("X"), []byte("x")))
}

// ParseStockholmRF reads a Stockholm alignment of hits to a profile
// built from the query (nhmmer's -A), which holds the hits and not the
// query, and anchors it on the query through its reference annotation:
// the columns marked in the "#=GC RF" line ('x', one per state of the
// query's profile, so one per query position) are the query's columns.
// A residue there is upper-cased, a gap '-'; residues in the other
// columns are insertions, lower-cased, their gaps dropped. The query
// (name, seq) is prepended as row 0. Blocks are joined by name.
//
// nhmmer's alignment spans only the states its hits reach: first is the
// query position (from 1) of its first RF column, the least hmm-from of
// the hits (nhmmer's --tblout, NhmmerFirstState); the query positions
// before it and after the last RF column are gaps in every hit.
func ParseStockholmRF(data []byte, path, name, seq string, first int) (*Alignment, error) {
	if seq == "" || strings.IndexFunc(seq, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return nil, fmt.Errorf("%s: the query %.20q is not a sequence of upper-case letters", path, seq)
	}
	names, seqs, rf, err := readStockholm(data, path)
	if err != nil {
		return nil, err
	}
	a := &Alignment{Names: []string{name}, Rows: []string{seq}}
	if len(names) == 0 {
		return a, nil
	}
	if len(rf) == 0 {
		return nil, fmt.Errorf("%s: %w: no #=GC RF line to mark the query's columns", path, ErrFormat)
	}
	match := 0
	for _, c := range rf {
		if c != '.' && c != '-' {
			match++
		}
	}
	if first < 1 || first-1+match > len(seq) {
		return nil, fmt.Errorf("%s: %w: #=GC RF marks %d columns from query position %d, the query has %d", path, ErrFormat, match, first, len(seq))
	}
	head, tail := strings.Repeat("-", first-1), strings.Repeat("-", len(seq)-(first-1+match))
	for _, n := range names {
		s := seqs[n]
		if len(s) != len(rf) {
			return nil, fmt.Errorf("%s: %w: sequence %s has %d columns, #=GC RF %d", path, ErrFormat, n, len(s), len(rf))
		}
		row := make([]byte, 0, len(seq))
		row = append(row, head...)
		for i, c := range s {
			gap := c == '-' || c == '.'
			if !gap && !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
				return nil, fmt.Errorf("%s: %w: letter %q in sequence %s", path, ErrFormat, c, n)
			}
			m := rf[i] != '.' && rf[i] != '-'
			switch {
			case m && gap:
				row = append(row, '-')
			case m:
				row = append(row, upper(c))
			case !gap:
				row = append(row, lower(c))
			}
		}
		row = append(row, tail...)
		a.Names = append(a.Names, n)
		a.Rows = append(a.Rows, string(row))
	}
	return a, nil
}

// NhmmerFirstState reads nhmmer's --tblout table of hits and returns
// the least hmm-from (its fifth field) of its hits: the profile state,
// so the query position, of the first column of nhmmer's alignment
// (ParseStockholmRF). A table of no hits gives 1.
func NhmmerFirstState(tbl []byte, path string) (int, error) {
	first := 0
	for k, l := range strings.Split(string(tbl), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 6 {
			return 0, fmt.Errorf("%s line %d: %w: a hit of nhmmer's table has at least 6 fields, found %d", path, k+1, ErrFormat, len(f))
		}
		v, err := strconv.Atoi(f[4])
		if err != nil || v < 1 {
			return 0, fmt.Errorf("%s line %d: %w: hmm-from %q", path, k+1, ErrFormat, f[4])
		}
		if first == 0 || v < first {
			first = v
		}
	}
	return max(first, 1), nil
}

// readStockholm reads a Stockholm alignment's sequence lines, blocks
// joined by name (names in their first order), and its "#=GC RF" line
// joined likewise; other markup and comments are skipped, and reading
// stops at "//".
func readStockholm(data []byte, path string) (names []string, seqs map[string][]byte, rf []byte, err error) {
	seqs = map[string][]byte{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), msa.MaxLine)
	line := 0
	for sc.Scan() {
		line++
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 {
			continue
		}
		if t[0] == '#' {
			if f := bytes.Fields(t); len(f) == 3 && string(f[0]) == "#=GC" && string(f[1]) == "RF" {
				rf = append(rf, f[2]...)
			}
			continue
		}
		if bytes.Equal(t, []byte("//")) {
			break
		}
		f := bytes.Fields(t)
		if len(f) != 2 {
			return nil, nil, nil, fmt.Errorf("%s line %d: %w: a Stockholm sequence line has a name and a sequence, found %d fields", path, line, ErrFormat, len(f))
		}
		n := string(f[0])
		if _, ok := seqs[n]; !ok {
			names = append(names, n)
		}
		seqs[n] = append(seqs[n], f[1]...)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("%s line %d: %w", path, line+1, err)
	}
	return names, seqs, rf, nil
}
