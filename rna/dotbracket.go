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

// DotBracket writes the structure in dot-bracket notation: each pair gets
// the first bracket kind none of whose pairs it crosses (pairs by
// increasing i), so nested structures use () only and pseudoknots [] and
// beyond. It fails if more kinds than exist would be needed.
func DotBracket(s *Structure) (string, error) {
	if err := s.Check(); err != nil {
		return "", err
	}
	db := []byte(strings.Repeat(".", len(s.Seq)))
	levels := make([][][2]int, 0, len(bracketKinds))
	for _, p := range s.Pairs() {
		lvl := -1
		for k, ps := range levels {
			crosses := false
			for _, q := range ps {
				if Crossing(p, q) {
					crosses = true
					break
				}
			}
			if !crosses {
				lvl = k
				break
			}
		}
		if lvl < 0 {
			if len(levels) == len(bracketKinds) {
				return "", fmt.Errorf("%w: more than %d pseudoknot levels", ErrPairing, len(bracketKinds))
			}
			levels = append(levels, nil)
			lvl = len(levels) - 1
		}
		levels[lvl] = append(levels[lvl], p)
		db[p[0]], db[p[1]] = bracketKinds[lvl][0], bracketKinds[lvl][1]
	}
	return string(db), nil
}

// ReadDotBracket reads one structure: an optional ">name" line, the
// sequence, then the structure (each possibly over several lines, the
// structure as long as the sequence; a trailing energy such as
// " (-12.30)" after the structure is dropped).
func ReadDotBracket(r io.Reader, path string) (*Structure, error) {
	sc := lineScanner(r)
	line := 0
	name := ""
	var seq, db strings.Builder
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		switch {
		case t == "":
		case strings.HasPrefix(t, ">") && seq.Len() == 0:
			name = strings.TrimSpace(t[1:])
		case db.Len() == 0 && isSequenceLine(t):
			seq.WriteString(t)
		default:
			if f := strings.Fields(t); len(f) > 1 {
				t = f[0] // structure followed by an energy
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

// WriteDotBracket writes ">name", the sequence and the structure.
func WriteDotBracket(w io.Writer, s *Structure) error {
	db, err := DotBracket(s)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, ">%s\n%s\n%s\n", s.Name, s.Seq, db)
	return bw.Flush()
}
