package rna

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// ReadBPSEQ reads a BPSEQ file; path names it in errors. The name is that
// of a "Filename:" or "# File" header without its extension.
func ReadBPSEQ(r io.Reader, path string) (*Structure, error) {
	sc := lineScanner(r)
	line := 0
	var hdr nameHeader
	fail := func(err error, format string, a ...any) error {
		return &ParseError{Path: path, Line: line, Err: fmt.Errorf("%w: "+format, append([]any{err}, a...)...)}
	}
	var seq []byte
	var partner []int
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if headerLine(t) {
			if len(seq) > 0 && t != "" {
				return nil, fail(ErrFormat, "%s among the records", fileio.Quote(t))
			}
			hdr.read(t)
			continue
		}
		f := strings.Fields(t)
		if len(f) != 3 {
			return nil, fail(ErrFormat, "%d fields, want 3 (index base partner)", len(f))
		}
		if len(seq) == MaxSequence {
			return nil, &ParseError{Path: path, Line: line, Err: tooLong("sequence")}
		}
		c, p, err := baseRecord(f, 2, len(seq)+1)
		if err != nil {
			return nil, &ParseError{Path: path, Line: line, Err: err}
		}
		if p < 0 || p > 1<<20 {
			return nil, fail(ErrPairing, "partner %d", p)
		}
		seq = append(seq, c)
		partner = append(partner, p)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Path: path, Line: line, Err: err}
	}
	if len(seq) == 0 {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: no records", ErrFormat)}
	}
	var listed [][2]int
	for i, p := range partner {
		switch {
		case p == 0:
		case p > len(seq):
			return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: base %d pairs with %d, outside 1..%d", ErrPairing, i+1, p, len(seq))}
		case p == i+1:
			return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: base %d paired with itself", ErrPairing, i+1)}
		default:
			listed = append(listed, [2]int{min(i, p-1), max(i, p-1)})
		}
	}
	return fromPairList(hdr.name(), string(seq), listed, path)
}

// WriteBPSEQ writes s as a BPSEQ file, with a "Filename: NAME.bpseq"
// header line as RNA STRAND's (ReadBPSEQ reads NAME back) when s has a
// name, then s's energy in comment lines when it has one (see Energy).
func WriteBPSEQ(w io.Writer, s *Structure) error {
	if err := s.Check(); err != nil {
		return err
	}
	if s.Energy != nil {
		if err := s.Energy.check(); err != nil {
			return err
		}
	}
	bw := bufio.NewWriter(w)
	if s.Name != "" {
		fmt.Fprintf(bw, "Filename: %s.bpseq\n", s.Name)
	}
	if e := s.Energy; e != nil {
		fmt.Fprintf(bw, "# energy = %.2f kcal/mol (%s)\n", e.DeltaG, e.Kind)
		e.writeEnsembleLine(bw)
	}
	for i := range s.Seq {
		fmt.Fprintf(bw, "%d %c %d\n", i+1, s.Seq[i], s.Partner[i]+1)
	}
	return bw.Flush()
}
