package pdb

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// Bounds of the mmCIF reader besides MaxAtoms and MaxChainResidues.
const (
	maxCIFLine = 1 << 22 // bytes in a line
	maxCIFText = 1 << 24 // bytes in a ;-delimited text field
)

type cifToken struct {
	text   string
	quoted bool
	line   int
}

// cifLexer splits mmCIF text into tokens, one at a time: bare words,
// '...' and "..." strings (closed by the quote followed by white space),
// and ;-delimited text fields. Comments (#) are dropped.
type cifLexer struct {
	sc   *bufio.Scanner
	path string
	line int
	toks []cifToken // the rest of the current line's
	peek *cifToken
}

func newCIFLexer(r io.Reader, path string) *cifLexer {
	return &cifLexer{sc: fileio.NewScanner(r, maxCIFLine), path: path}
}

// next returns the next token; ok is false at the end of the input.
func (x *cifLexer) next() (t cifToken, ok bool, err error) {
	if x.peek != nil {
		t, x.peek = *x.peek, nil
		return t, true, nil
	}
	for len(x.toks) == 0 {
		more, err := x.scanLine()
		if err != nil || !more {
			return cifToken{}, false, err
		}
	}
	t, x.toks = x.toks[0], x.toks[1:]
	return t, true, nil
}

// unread makes t the next token.
func (x *cifLexer) unread(t cifToken) { x.peek = &t }

// scanLine tokenizes the next line (a whole text field if one starts
// there) into x.toks; more is false at the end of the input.
func (x *cifLexer) scanLine() (more bool, err error) {
	x.toks = x.toks[:0]
	if !x.sc.Scan() {
		if err := fileio.ScanErr(x.sc, x.line+1, maxCIFLine); err != nil {
			return false, &ParseError{Path: x.path, Line: x.line + 1, Err: fmt.Errorf("%w: %w", ErrCIF, err)}
		}
		return false, nil
	}
	x.line++
	s := x.sc.Text()
	if strings.HasPrefix(s, ";") {
		var text strings.Builder
		text.WriteString(s[1:])
		textLine := x.line
		for {
			if !x.sc.Scan() {
				if err := fileio.ScanErr(x.sc, x.line+1, maxCIFLine); err != nil {
					return false, &ParseError{Path: x.path, Line: x.line + 1, Err: fmt.Errorf("%w: %w", ErrCIF, err)}
				}
				return false, &ParseError{Path: x.path, Line: textLine, Err: fmt.Errorf("%w: unterminated text field", ErrCIF)}
			}
			x.line++
			s = x.sc.Text()
			if strings.HasPrefix(s, ";") {
				break
			}
			text.WriteString(s)
			text.WriteByte('\n')
			if text.Len() > maxCIFText {
				return false, &ParseError{Path: x.path, Line: textLine, Err: fileio.TooLarge("text field longer than %d bytes (the reader's bound)", maxCIFText)}
			}
		}
		x.toks = append(x.toks, cifToken{text: text.String(), quoted: true, line: textLine})
		s = s[1:]
	}
	line := x.line
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '#':
			i = len(s)
		case c == '\'' || c == '"':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == c && (j+1 == len(s) || s[j+1] == ' ' || s[j+1] == '\t') {
					break
				}
			}
			if j >= len(s) {
				if rerr := x.sc.Err(); rerr != nil { // a partial last line
					return false, &ParseError{Path: x.path, Line: line, Err: rerr}
				}
				return false, &ParseError{Path: x.path, Line: line, Err: fmt.Errorf("%w: unterminated quoted string", ErrCIF)}
			}
			x.toks = append(x.toks, cifToken{text: s[i+1 : j], quoted: true, line: line})
			i = j + 1
		default:
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' {
				j++
			}
			x.toks = append(x.toks, cifToken{text: s[i:j], line: line})
			i = j
		}
	}
	return true, nil
}

// cifLoop is one loop_'s column names (without the category).
type cifLoop struct {
	cols map[string]int
}

func (l *cifLoop) get(row []cifToken, names ...string) (cifToken, bool) {
	for _, n := range names {
		if i, ok := l.cols[n]; ok {
			t := row[i]
			if !t.quoted && (t.text == "?" || t.text == ".") {
				return t, false
			}
			return t, true
		}
	}
	return cifToken{}, false
}

// cifItems are the data items ReadMMCIF uses.
var cifItems = map[string]bool{
	"_entry.id": true, "_exptl.method": true,
	"_refine.ls_d_res_high": true, "_reflns.d_resolution_high": true, "_em_3d_reconstruction.resolution": true,
}

// ReadMMCIF reads the first data block of an mmCIF file. It streams: the
// _atom_site rows are read into the structure as they come, and other
// loops than _atom_site and _pdbx_poly_seq_scheme are checked, not kept.
// Binary data, lines beyond 4 MiB, text fields beyond 16 MiB, chains
// beyond MaxChainResidues and files beyond MaxAtoms are refused.
func ReadMMCIF(r io.Reader, path string) (*Structure, error) {
	r, err := sniff(r, path)
	if err != nil {
		return nil, err
	}
	x := newCIFLexer(r, path)
	c := &cifReader{path: path, items: map[string]string{}}
	c.resetAtoms()
	isTag := func(t cifToken) bool { return !t.quoted && strings.HasPrefix(t.text, "_") }
	isKeyword := func(t cifToken) bool {
		if t.quoted {
			return false
		}
		l := strings.ToLower(t.text)
		return l == "loop_" || strings.HasPrefix(l, "data_") || strings.HasPrefix(l, "save_") || l == "stop_" || l == "global_"
	}
	blocks := 0
	t, ok, err := x.next()
read:
	for ; ok && err == nil; t, ok, err = x.next() {
		switch {
		case !t.quoted && strings.HasPrefix(strings.ToLower(t.text), "data_"):
			if blocks++; blocks > 1 {
				break read
			}
		case !t.quoted && strings.ToLower(t.text) == "loop_":
			loopLine := t.line
			var tags []string
			for {
				if t, ok, err = x.next(); err != nil {
					return nil, err
				}
				if !ok || !isTag(t) {
					break
				}
				tags = append(tags, t.text)
			}
			if ok {
				x.unread(t)
			}
			if len(tags) == 0 {
				return nil, &ParseError{Path: path, Line: loopLine, Err: fmt.Errorf("%w: loop_ without tags", ErrCIF)}
			}
			if err := c.loop(x, loopLine, tags, isTag, isKeyword); err != nil {
				return nil, err
			}
		case isTag(t):
			v, vok, err := x.next()
			if err != nil {
				return nil, err
			}
			if !vok || isTag(v) || isKeyword(v) {
				return nil, &ParseError{Path: path, Line: t.line, Err: fmt.Errorf("%w: %s has no value", ErrCIF, t.text)}
			}
			if cifItems[t.text] {
				c.items[t.text] = v.text
			}
		default:
			return nil, &ParseError{Path: path, Line: t.line, Err: fmt.Errorf("%w: unexpected %s", ErrCIF, fileio.Quote(t.text))}
		}
	}
	if err != nil {
		return nil, err
	}
	// The rest of the input (after a second data block) is tokenized
	// too: its syntax errors and a truncation are reported.
	for {
		_, more, err := x.next()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	return c.finish()
}

// cifReader builds the structure of an mmCIF file as its loops are read.
type cifReader struct {
	path  string
	items map[string]string

	// _pdbx_poly_seq_scheme: chains in order, their residues, the first
	// error of a row (reported before the atoms' errors).
	polyOrder []string
	polySeq   map[string][]string
	polyLast  map[string]string
	polyErr   error

	// _atom_site
	b          *builder
	atomRows   int
	firstModel string
	atomErr    error
}

func (c *cifReader) resetAtoms() {
	c.b, c.atomRows, c.firstModel, c.atomErr = newBuilder(), 0, "", nil
}

// loop reads the values of a loop with the given tags, row by row.
func (c *cifReader) loop(x *cifLexer, loopLine int, tags []string, isTag, isKeyword func(cifToken) bool) error {
	cat := tags[0]
	if k := strings.IndexByte(cat, '.'); k > 0 {
		cat = cat[:k]
	}
	l := &cifLoop{cols: map[string]int{}}
	for k, tag := range tags {
		l.cols[strings.TrimPrefix(tag, cat+".")] = k
	}
	var row func([]cifToken) error
	switch cat {
	case "_atom_site":
		c.resetAtoms()
		row = func(r []cifToken) error { return c.atomRow(l, r) }
	case "_pdbx_poly_seq_scheme":
		c.polyOrder, c.polySeq, c.polyLast, c.polyErr = nil, map[string][]string{}, map[string]string{}, nil
		row = func(r []cifToken) error { return c.polyRow(l, r) }
	}
	vals := make([]cifToken, 0, len(tags))
	n := 0
	for {
		t, ok, err := x.next()
		if err != nil {
			return err
		}
		if !ok || isTag(t) || isKeyword(t) {
			if ok {
				x.unread(t)
			}
			break
		}
		n++
		if row == nil {
			continue
		}
		vals = append(vals, t)
		if len(vals) == len(tags) {
			if err := row(vals); err != nil {
				return err
			}
			vals = make([]cifToken, 0, len(tags))
		}
	}
	if n%len(tags) != 0 {
		return &ParseError{Path: c.path, Line: loopLine, Err: fmt.Errorf("%w: loop %s has %d values for %d columns", ErrCIF, cat, n, len(tags))}
	}
	return nil
}

// polyRow reads a _pdbx_poly_seq_scheme row: a residue of a chain's
// sequence (the first of the rows of one number: microheterogeneity).
func (c *cifReader) polyRow(l *cifLoop, row []cifToken) error {
	if c.polyErr != nil {
		return nil
	}
	ch, ok1 := l.get(row, "pdb_strand_id", "asym_id")
	mon, ok2 := l.get(row, "mon_id")
	num, _ := l.get(row, "seq_id")
	if !ok1 || !ok2 {
		c.polyErr = &ParseError{Path: c.path, Line: row[0].line, Err: fmt.Errorf("%w: _pdbx_poly_seq_scheme row without chain or residue", ErrCIF)}
		return nil
	}
	if c.polyLast[ch.text] == num.text && num.text != "" {
		return nil // microheterogeneity: keep the first residue
	}
	id := strings.Clone(ch.text)
	c.polyLast[id] = strings.Clone(num.text)
	name := mon.text
	if p := Parent(name); p != "" {
		name = p
	} else {
		name = strings.Clone(name)
	}
	seq, seen := c.polySeq[id]
	if !seen {
		c.polyOrder = append(c.polyOrder, id)
	}
	if len(seq) >= MaxChainResidues {
		return &ParseError{Path: c.path, Line: row[0].line, Err: fileio.TooLarge("chain %s: more than %d residues in _pdbx_poly_seq_scheme (the reader's bound)", fileio.Quote(id), MaxChainResidues)}
	}
	c.polySeq[id] = append(seq, name)
	return nil
}

// atomRow reads an _atom_site row into the structure.
func (c *cifReader) atomRow(l *cifLoop, row []cifToken) error {
	line := row[0].line
	if c.atomRows++; c.atomRows > maxAtoms {
		return &ParseError{Path: c.path, Line: line, Err: fileio.TooLarge("more than %d atoms (the reader's bound)", maxAtoms)}
	}
	if c.atomErr != nil {
		return nil
	}
	fail := func(err error, format string, args ...any) error {
		c.atomErr = &ParseError{Path: c.path, Line: line, Err: fmt.Errorf("%w: "+format, append([]any{err}, args...)...)}
		return nil
	}
	if m, ok := l.get(row, "pdbx_PDB_model_num"); ok {
		if c.firstModel == "" {
			c.firstModel = strings.Clone(m.text)
		} else if m.text != c.firstModel {
			return nil
		}
	}
	group, _ := l.get(row, "group_PDB")
	ch, ok1 := l.get(row, "auth_asym_id", "label_asym_id")
	res, ok2 := l.get(row, "auth_comp_id", "label_comp_id")
	atom, ok3 := l.get(row, "auth_atom_id", "label_atom_id")
	seqT, ok4 := l.get(row, "auth_seq_id", "label_seq_id")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		if group.text == "HETATM" && !ok4 {
			return nil // ligands and water may lack a sequence number
		}
		return fail(ErrRecord, "atom without chain, residue, atom name or number")
	}
	seq, err := strconv.Atoi(seqT.text)
	if err != nil {
		return fail(ErrNumber, "residue number %s", fileio.Quote(seqT.text))
	}
	var pos Vec
	for k, name := range []string{"Cartn_x", "Cartn_y", "Cartn_z"} {
		t, ok := l.get(row, name)
		v, err := strconv.ParseFloat(t.text, 64)
		if !ok || err != nil || v != v || v > 1e4 || v < -1e4 {
			return fail(ErrCoordinate, "%c %s", "xyz"[k], fileio.Quote(t.text))
		}
		pos[k] = v
	}
	alt := byte(' ')
	if a, ok := l.get(row, "label_alt_id"); ok && a.text != "" {
		alt = a.text[0]
	}
	icode := byte(' ')
	if c, ok := l.get(row, "pdbx_PDB_ins_code"); ok && c.text != "" {
		icode = c.text[0]
	}
	if Parent(res.text) == "" {
		return nil // not kept: no need to copy its names
	}
	if err := c.b.atom(strings.Clone(ch.text), strings.Clone(res.text), seq, icode, strings.Clone(strings.Trim(atom.text, `"`)), alt, group.text == "HETATM", pos); err != nil {
		return &ParseError{Path: c.path, Line: line, Err: err}
	}
	return nil
}

// finish puts the structure together as the reader did before it
// streamed: the chains of _pdbx_poly_seq_scheme first, in its order,
// then those with coordinates only; the sequence rows' errors first,
// then a missing _atom_site loop, then the atoms' errors.
func (c *cifReader) finish() (*Structure, error) {
	if c.polyErr != nil {
		return nil, c.polyErr
	}
	if c.atomRows == 0 {
		return nil, &ParseError{Path: c.path, Err: fmt.Errorf("%w: no _atom_site loop", ErrNoAtoms)}
	}
	if c.atomErr != nil {
		return nil, c.atomErr
	}
	b := c.b
	atomChains := b.s.Chains
	var chains []*Chain
	for _, id := range c.polyOrder {
		ch := b.chains[id]
		if ch == nil {
			ch = &Chain{ID: id}
			b.chains[id] = ch
		}
		ch.SeqRes = c.polySeq[id]
		chains = append(chains, ch)
	}
	for _, ch := range atomChains {
		if _, poly := c.polySeq[ch.ID]; !poly {
			chains = append(chains, ch)
		}
	}
	b.s.Chains = chains
	b.s.ID = strings.ToUpper(c.items["_entry.id"])
	b.s.Method = c.items["_exptl.method"]
	for _, k := range []string{"_refine.ls_d_res_high", "_reflns.d_resolution_high", "_em_3d_reconstruction.resolution"} {
		if v, err := strconv.ParseFloat(c.items[k], 64); err == nil && v > 0 {
			b.s.Resolution = v
			break
		}
	}
	return b.finish(), nil
}
