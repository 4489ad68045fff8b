package rna

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// bracketKinds are the opening and closing symbols of the pseudoknot
// levels of dot-bracket notation, in order: (), [], {}, <>, then A/a to
// Z/z.
var bracketKinds = func() [][2]byte {
	k := [][2]byte{{'(', ')'}, {'[', ']'}, {'{', '}'}, {'<', '>'}}
	for c := byte('A'); c <= 'Z'; c++ {
		k = append(k, [2]byte{c, c + 'a' - 'A'})
	}
	return k
}()

// ParseDotBracket reads the pairs of a dot-bracket string of the length
// of seq ('.', '-', ':' and ',' are unpaired).
func ParseDotBracket(name, seq, db string) (*Structure, error) {
	if len(db) != len(seq) {
		return nil, fmt.Errorf("%w: structure of %d characters for %d bases", ErrFormat, len(db), len(seq))
	}
	stacks := make([][]int, len(bracketKinds))
	var pairs [][2]int
	for i := 0; i < len(db); i++ {
		c := db[i]
		switch c {
		case '.', '-', ':', ',':
			continue
		}
		found := false
		for k, b := range bracketKinds {
			switch c {
			case b[0]:
				stacks[k] = append(stacks[k], i)
			case b[1]:
				if len(stacks[k]) == 0 {
					return nil, fmt.Errorf("%w: %q at position %d closes nothing", ErrPairing, c, i+1)
				}
				open := stacks[k][len(stacks[k])-1]
				stacks[k] = stacks[k][:len(stacks[k])-1]
				pairs = append(pairs, [2]int{open, i})
			default:
				continue
			}
			found = true
			break
		}
		if !found {
			return nil, fmt.Errorf("%w: structure character %q at position %d", ErrFormat, c, i+1)
		}
	}
	for k, st := range stacks {
		if len(st) > 0 {
			return nil, fmt.Errorf("%w: %q at position %d is never closed", ErrPairing, bracketKinds[k][0], st[len(st)-1]+1)
		}
	}
	sortPairs(pairs)
	return New(name, seq, pairs)
}

// DotBracket returns the structure in dot-bracket notation as
// DotBracketOmitted does, without the count of the pairs left out: it
// fails only on an inconsistent structure.
func DotBracket(s *Structure) (string, error) {
	db, _, err := DotBracketOmitted(s)
	return db, err
}

// DotBracketOmitted writes the structure in dot-bracket notation: each
// pair, by increasing i, gets the first bracket kind none of whose pairs
// it crosses, so nested structures use () only and pseudoknots [] and
// beyond. A pair that crosses some pair of every kind (more levels than
// the len(bracketKinds) = 30 kinds) is left out of the string, its bases
// shown as '.', and counted in omitted; the CT and BPSEQ formats hold
// every pair. It fails only on an inconsistent structure. Time O(P K)
// for P pairs and K kinds: each kind keeps a stack of its pairs still
// open, and since a kind's pairs are nested a new pair (i, j) crosses
// one of them exactly when the innermost one still open at i closes
// before j.
func DotBracketOmitted(s *Structure) (db string, omitted int, err error) {
	if err := s.Check(); err != nil {
		return "", 0, err
	}
	b := []byte(strings.Repeat(".", len(s.Seq)))
	open := make([][]int, len(bracketKinds)) // closing positions of the open pairs of each kind, outermost first
	for i, j := range s.Partner {
		if j < i {
			continue
		}
		placed := false
		for k := range open {
			st := open[k]
			for len(st) > 0 && st[len(st)-1] < i {
				st = st[:len(st)-1] // closed before i
			}
			open[k] = st
			if len(st) > 0 && st[len(st)-1] < j {
				continue // crosses the innermost open pair
			}
			open[k] = append(st, j)
			b[i], b[j] = bracketKinds[k][0], bracketKinds[k][1]
			placed = true
			break
		}
		if !placed {
			omitted++
		}
	}
	return string(b), omitted, nil
}

// ReadDotBracket reads one structure: an optional ">name" line, the
// sequence, then the structure (each possibly over several lines, the
// structure as long as the sequence; a trailing energy such as
// " (-12.30)" after the structure is dropped). Lines that start with '#'
// are comments (WriteDotBracket's count of omitted pairs).
func ReadDotBracket(r io.Reader, path string) (*Structure, error) {
	sc := lineScanner(r)
	line := 0
	name := ""
	var seq, db strings.Builder
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		switch {
		case t == "" || t[0] == '#':
		case strings.HasPrefix(t, ">") && seq.Len() == 0:
			name = strings.TrimSpace(t[1:])
		case db.Len() == 0 && isSequenceLine(t):
			if seq.Len()+len(t) > MaxSequence {
				return nil, &ParseError{Path: path, Line: line, Err: tooLong("sequence")}
			}
			seq.WriteString(t)
		default:
			if f := strings.Fields(t); len(f) > 1 {
				t = f[0] // structure followed by an energy
			}
			if db.Len()+len(t) > MaxSequence {
				return nil, &ParseError{Path: path, Line: line, Err: tooLong("structure")}
			}
			db.WriteString(t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Path: path, Line: line, Err: err}
	}
	s, err := NormalizeSequence(seq.String())
	if err == nil && s == "" {
		err = fmt.Errorf("%w: no sequence", ErrFormat)
	}
	if err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	st, err := ParseDotBracket(name, s, db.String())
	if err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	return st, nil
}

// isSequenceLine reports whether a line is all base letters.
func isSequenceLine(t string) bool {
	for i := 0; i < len(t); i++ {
		if _, ok := NormalizeBase(t[i]); !ok {
			return false
		}
	}
	return true
}

// WriteDotBracket writes ">name", the sequence and the structure (see
// DotBracketOmitted). When pairs had to be left out of the structure line
// a comment line follows it:
//
//	# N base pairs omitted: more pseudoknot levels than 30 bracket kinds; CT and BPSEQ hold every pair
//
// (ReadDotBracket skips lines that start with '#'). s's energy, when it
// has one, follows the structure as RNAfold prints it (see Energy). It
// fails only on an inconsistent structure or energy or a write error.
func WriteDotBracket(w io.Writer, s *Structure) error {
	db, omitted, err := DotBracketOmitted(s)
	if err != nil {
		return err
	}
	suffix := ""
	if s.Energy != nil {
		if err := s.Energy.check(); err != nil {
			return err
		}
		suffix = s.Energy.dotBracketSuffix()
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, ">%s\n%s\n%s%s\n", s.Name, s.Seq, db, suffix)
	if s.Energy != nil {
		s.Energy.writeEnsembleLine(bw)
	}
	if omitted > 0 {
		fmt.Fprintf(bw, "# %d base pairs omitted: more pseudoknot levels than %d bracket kinds; CT and BPSEQ hold every pair\n", omitted, len(bracketKinds))
	}
	return bw.Flush()
}
