package rna

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// baseCodes are the letters of the five-line format's base codes 0-4.
const baseCodes = "ACGUN"

// ReadFiveLine reads every record of a file in the paper's five-line
// format: a name; the bases as integers 0-4 (A, C, G, U, other); the
// 1-based partner of each base (0 unpaired); a 0/1 paired flag per base
// (must agree with the partners); a blank line (optional after the last
// record).
func ReadFiveLine(r io.Reader, path string) ([]*Structure, error) {
	sc := lineScanner(r)
	line := 0
	var out []*Structure
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return strings.TrimSpace(sc.Text()), true
	}
	for {
		name, ok := next()
		if !ok {
			break
		}
		if name == "" {
			continue // blank lines between records
		}
		start := line
		fail := func(err error, format string, a ...any) error {
			return &ParseError{Path: path, Line: line, Err: fmt.Errorf("%w: record %d (%s): "+format, append([]any{err, len(out) + 1, name}, a...)...)}
		}
		var fields [3][]int
		for k, what := range []string{"bases", "partners", "paired flags"} {
			t, ok := next()
			if !ok {
				return nil, fail(ErrFormat, "ends before its %s line", what)
			}
			for _, f := range strings.Fields(t) {
				v, err := strconv.Atoi(f)
				if err != nil {
					return nil, fail(ErrFormat, "%s: %q is not a number", what, f)
				}
				fields[k] = append(fields[k], v)
			}
		}
		n := len(fields[0])
		if n == 0 || len(fields[1]) != n || len(fields[2]) != n {
			return nil, fail(ErrFormat, "%d bases, %d partners, %d flags", n, len(fields[1]), len(fields[2]))
		}
		seq := make([]byte, n)
		var listed [][2]int
		for i := 0; i < n; i++ {
			c, p, flag := fields[0][i], fields[1][i], fields[2][i]
			if c < 0 || c > 4 {
				return nil, fail(ErrSequence, "base code %d at position %d", c, i+1)
			}
			seq[i] = baseCodes[c]
			if p < 0 || p > n || p == i+1 {
				return nil, fail(ErrPairing, "base %d pairs with %d", i+1, p)
			}
			if flag != 0 && flag != 1 || (flag == 1) != (p != 0) {
				return nil, fail(ErrPairing, "base %d: paired flag %d, partner %d", i+1, flag, p)
			}
			if p != 0 {
				listed = append(listed, [2]int{min(i, p-1), max(i, p-1)})
			}
		}
		s, err := fromPairList(name, string(seq), listed, path)
		if err != nil {
			err.(*ParseError).Line = start
			return nil, err
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Path: path, Line: line, Err: err}
	}
	return out, nil
}

// WriteFiveLine writes structures in the five-line format.
func WriteFiveLine(w io.Writer, ss []*Structure) error {
	bw := bufio.NewWriter(w)
	for _, s := range ss {
		if err := s.Check(); err != nil {
			return err
		}
		fmt.Fprintln(bw, s.Name)
		for k := 0; k < 3; k++ {
			for i := range s.Seq {
				if i > 0 {
					bw.WriteByte(' ')
				}
				switch k {
				case 0:
					bw.WriteString(strconv.Itoa(strings.IndexByte(baseCodes, s.Seq[i])))
				case 1:
					bw.WriteString(strconv.Itoa(s.Partner[i] + 1))
				default:
					if s.Partner[i] == Unpaired {
						bw.WriteByte('0')
					} else {
						bw.WriteByte('1')
					}
				}
			}
			bw.WriteByte('\n')
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
