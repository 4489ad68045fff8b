// The mmCIF reader as it was before it streamed (oldCIFTokens then
// oldBuildFromCIF), kept to check the streaming reader against.

package pdb

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

type oldCIFToken struct {
	text   string
	quoted bool
	line   int
}

// oldCIFTokens splits mmCIF text into tokens: bare words, '...' and "..."
// strings (closed by the quote followed by white space), and ;-delimited
// text fields. Comments (#) are dropped.
func oldCIFTokens(r io.Reader, path string) ([]oldCIFToken, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<22)
	var toks []oldCIFToken
	line := 0
	var text *strings.Builder
	textLine := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if text != nil {
			if strings.HasPrefix(s, ";") {
				toks = append(toks, oldCIFToken{text: text.String(), quoted: true, line: textLine})
				text = nil
				s = s[1:]
			} else {
				text.WriteString(s)
				text.WriteByte('\n')
				continue
			}
		} else if strings.HasPrefix(s, ";") {
			text = &strings.Builder{}
			text.WriteString(s[1:])
			textLine = line
			continue
		}
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
					if rerr := sc.Err(); rerr != nil { // a partial last line
						return nil, &ParseError{Path: path, Line: line, Err: rerr}
					}
					return nil, &ParseError{Path: path, Line: line, Err: fmt.Errorf("%w: unterminated quoted string", ErrCIF)}
				}
				toks = append(toks, oldCIFToken{text: s[i+1 : j], quoted: true, line: line})
				i = j + 1
			default:
				j := i
				for j < len(s) && s[j] != ' ' && s[j] != '\t' {
					j++
				}
				toks = append(toks, oldCIFToken{text: s[i:j], line: line})
				i = j
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Path: path, Line: line + 1, Err: fmt.Errorf("%w: %w", ErrCIF, err)}
	}
	if text != nil {
		return nil, &ParseError{Path: path, Line: textLine, Err: fmt.Errorf("%w: unterminated text field", ErrCIF)}
	}
	return toks, nil
}

// oldCIFLoop is one loop_: column names (without the category) and rows.
type oldCIFLoop struct {
	cols map[string]int
	rows [][]oldCIFToken
}

func (l *oldCIFLoop) get(row []oldCIFToken, names ...string) (oldCIFToken, bool) {
	for _, n := range names {
		if i, ok := l.cols[n]; ok {
			t := row[i]
			if !t.quoted && (t.text == "?" || t.text == ".") {
				return t, false
			}
			return t, true
		}
	}
	return oldCIFToken{}, false
}

// oldReadMMCIF reads the first data block of an mmCIF file.
func oldReadMMCIF(r io.Reader, path string) (*Structure, error) {
	toks, err := oldCIFTokens(r, path)
	if err != nil {
		return nil, err
	}
	items := map[string]string{}
	loops := map[string]*oldCIFLoop{} // by category, e.g. "_atom_site"
	isTag := func(t oldCIFToken) bool { return !t.quoted && strings.HasPrefix(t.text, "_") }
	isKeyword := func(t oldCIFToken) bool {
		if t.quoted {
			return false
		}
		l := strings.ToLower(t.text)
		return l == "loop_" || strings.HasPrefix(l, "data_") || strings.HasPrefix(l, "save_") || l == "stop_" || l == "global_"
	}
	blocks := 0
	for i := 0; i < len(toks); {
		t := toks[i]
		switch {
		case !t.quoted && strings.HasPrefix(strings.ToLower(t.text), "data_"):
			if blocks++; blocks > 1 {
				i = len(toks)
				continue
			}
			i++
		case !t.quoted && strings.ToLower(t.text) == "loop_":
			i++
			var tags []string
			for i < len(toks) && isTag(toks[i]) {
				tags = append(tags, toks[i].text)
				i++
			}
			if len(tags) == 0 {
				return nil, &ParseError{Path: path, Line: t.line, Err: fmt.Errorf("%w: loop_ without tags", ErrCIF)}
			}
			cat := tags[0]
			if k := strings.IndexByte(cat, '.'); k > 0 {
				cat = cat[:k]
			}
			l := &oldCIFLoop{cols: map[string]int{}}
			for k, tag := range tags {
				l.cols[strings.TrimPrefix(tag, cat+".")] = k
			}
			var vals []oldCIFToken
			for i < len(toks) && !isTag(toks[i]) && !isKeyword(toks[i]) {
				vals = append(vals, toks[i])
				i++
			}
			if len(vals)%len(tags) != 0 {
				return nil, &ParseError{Path: path, Line: t.line, Err: fmt.Errorf("%w: loop %s has %d values for %d columns", ErrCIF, cat, len(vals), len(tags))}
			}
			for k := 0; k < len(vals); k += len(tags) {
				l.rows = append(l.rows, vals[k:k+len(tags)])
			}
			loops[cat] = l
		case isTag(t):
			if i+1 >= len(toks) || isTag(toks[i+1]) || isKeyword(toks[i+1]) {
				return nil, &ParseError{Path: path, Line: t.line, Err: fmt.Errorf("%w: %s has no value", ErrCIF, t.text)}
			}
			items[t.text] = toks[i+1].text
			i += 2
		default:
			return nil, &ParseError{Path: path, Line: t.line, Err: fmt.Errorf("%w: unexpected %q", ErrCIF, t.text)}
		}
	}
	return oldBuildFromCIF(items, loops, path)
}

func oldBuildFromCIF(items map[string]string, loops map[string]*oldCIFLoop, path string) (*Structure, error) {
	b := newBuilder()
	b.s.ID = strings.ToUpper(items["_entry.id"])
	b.s.Method = items["_exptl.method"]
	for _, k := range []string{"_refine.ls_d_res_high", "_reflns.d_resolution_high", "_em_3d_reconstruction.resolution"} {
		if v, err := strconv.ParseFloat(items[k], 64); err == nil && v > 0 {
			b.s.Resolution = v
			break
		}
	}
	if l := loops["_pdbx_poly_seq_scheme"]; l != nil {
		lastSeq := map[string]string{}
		for _, row := range l.rows {
			ch, ok1 := l.get(row, "pdb_strand_id", "asym_id")
			mon, ok2 := l.get(row, "mon_id")
			num, _ := l.get(row, "seq_id")
			if !ok1 || !ok2 {
				return nil, &ParseError{Path: path, Line: row[0].line, Err: fmt.Errorf("%w: _pdbx_poly_seq_scheme row without chain or residue", ErrCIF)}
			}
			if lastSeq[ch.text] == num.text && num.text != "" {
				continue // microheterogeneity: keep the first residue
			}
			lastSeq[ch.text] = num.text
			name := mon.text
			if p := Parent(name); p != "" {
				name = p
			}
			c := b.chain(ch.text)
			c.SeqRes = append(c.SeqRes, name)
		}
	}
	l := loops["_atom_site"]
	if l == nil || len(l.rows) == 0 {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: no _atom_site loop", ErrNoAtoms)}
	}
	firstModel := ""
	for _, row := range l.rows {
		line := row[0].line
		fail := func(err error, format string, args ...any) error {
			return &ParseError{Path: path, Line: line, Err: fmt.Errorf("%w: "+format, append([]any{err}, args...)...)}
		}
		if m, ok := l.get(row, "pdbx_PDB_model_num"); ok {
			if firstModel == "" {
				firstModel = m.text
			} else if m.text != firstModel {
				continue
			}
		}
		group, _ := l.get(row, "group_PDB")
		ch, ok1 := l.get(row, "auth_asym_id", "label_asym_id")
		res, ok2 := l.get(row, "auth_comp_id", "label_comp_id")
		atom, ok3 := l.get(row, "auth_atom_id", "label_atom_id")
		seqT, ok4 := l.get(row, "auth_seq_id", "label_seq_id")
		if !ok1 || !ok2 || !ok3 || !ok4 {
			if group.text == "HETATM" && !ok4 {
				continue // ligands and water may lack a sequence number
			}
			return nil, fail(ErrRecord, "atom without chain, residue, atom name or number")
		}
		seq, err := strconv.Atoi(seqT.text)
		if err != nil {
			return nil, fail(ErrNumber, "residue number %q", seqT.text)
		}
		var pos Vec
		for k, name := range []string{"Cartn_x", "Cartn_y", "Cartn_z"} {
			t, ok := l.get(row, name)
			v, err := strconv.ParseFloat(t.text, 64)
			if !ok || err != nil || v != v || v > 1e4 || v < -1e4 {
				return nil, fail(ErrCoordinate, "%c %q", "xyz"[k], t.text)
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
		_ = b.atom(ch.text, res.text, seq, icode, strings.Trim(atom.text, `"`), alt, group.text == "HETATM", pos)
	}
	return b.finish(), nil
}
