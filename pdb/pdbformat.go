package pdb

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// maxPDBLine is the longest line ReadPDB reads (records are 80 columns).
const maxPDBLine = 1 << 20

// ReadPDB reads a PDB-format file (plain text; ReadFile opens compressed
// files). path is used in errors. Binary data, lines beyond 1 MiB, chains
// beyond MaxChainResidues and files beyond MaxAtoms are refused.
func ReadPDB(r io.Reader, path string) (*Structure, error) {
	r, err := sniff(r, path)
	if err != nil {
		return nil, err
	}
	b := newBuilder()
	sc := fileio.NewScanner(r, maxPDBLine)
	line := 0
	fail := func(err error, format string, args ...any) error {
		if rerr := sc.Err(); rerr != nil {
			// The line is the partial one before a read error (a
			// truncated file): report the read error.
			return &ParseError{Path: path, Line: line, Err: rerr}
		}
		return &ParseError{Path: path, Line: line, Err: fmt.Errorf("%w: "+format, append([]any{err}, args...)...)}
	}
	models, atoms := 0, 0
	seqres := map[string]int{} // declared SEQRES length per chain
	for sc.Scan() {
		line++
		rec := sc.Text()
		name := rec
		if len(name) > 6 {
			name = name[:6]
		}
		switch strings.TrimRight(name, " ") {
		case "HEADER":
			// idCode is columns 63-66; some converters shift it, so take
			// the last field when it looks like a PDB code.
			if f := strings.Fields(rec); len(f) > 1 && len(f[len(f)-1]) == 4 && f[len(f)-1][0] >= '1' && f[len(f)-1][0] <= '9' {
				b.s.ID = strings.ToUpper(f[len(f)-1])
			}
		case "EXPDTA":
			if len(rec) > 10 {
				b.s.Method = strings.TrimSpace(rec[10:])
			}
		case "REMARK":
			if strings.HasPrefix(rec, "REMARK   2 RESOLUTION.") {
				f := strings.Fields(rec[22:])
				if len(f) > 0 {
					if v, err := strconv.ParseFloat(f[0], 64); err == nil && v > 0 && v < 100 {
						b.s.Resolution = v
					}
				}
			}
		case "SEQRES":
			if len(rec) < 19 {
				return nil, fail(ErrRecord, "SEQRES record too short")
			}
			id := strings.TrimSpace(rec[11:12])
			n, err := strconv.Atoi(strings.TrimSpace(rec[13:17]))
			if err != nil || n <= 0 {
				return nil, fail(ErrNumber, "SEQRES residue count %q", rec[13:17])
			}
			if prev, ok := seqres[id]; ok && prev != n {
				return nil, fail(ErrRecord, "SEQRES of chain %q declares %d then %d residues", id, prev, n)
			}
			seqres[id] = n
			c := b.chain(id)
			for _, res := range strings.Fields(rec[19:]) {
				if p := Parent(res); p != "" {
					res = p
				}
				c.SeqRes = append(c.SeqRes, res)
			}
			if len(c.SeqRes) > n {
				return nil, fail(ErrRecord, "chain %q has more than the %d SEQRES residues declared", id, n)
			}
		case "MODEL":
			models++
		case "ENDMDL":
			if models > 0 {
				goto done // first model only
			}
		case "ATOM", "HETATM":
			if len(rec) < 54 {
				return nil, fail(ErrRecord, "%s record of %d characters, want at least 54", strings.TrimSpace(name), len(rec))
			}
			var pos Vec
			for k := 0; k < 3; k++ {
				f := strings.TrimSpace(rec[30+8*k : 38+8*k])
				v, err := strconv.ParseFloat(f, 64)
				if err != nil || v != v || v > 1e4 || v < -1e4 {
					return nil, fail(ErrCoordinate, "%c %q", "xyz"[k], f)
				}
				pos[k] = v
			}
			seq, err := strconv.Atoi(strings.TrimSpace(rec[22:26]))
			if err != nil {
				return nil, fail(ErrNumber, "residue number %q", rec[22:26])
			}
			if atoms++; atoms > maxAtoms {
				return nil, &ParseError{Path: path, Line: line, Err: fileio.TooLarge("more than %d atoms (the reader's bound)", maxAtoms)}
			}
			if err := b.atom(strings.TrimSpace(rec[21:22]), strings.TrimSpace(rec[17:20]), seq, rec[26], strings.TrimSpace(rec[12:16]), rec[16], name == "HETATM", pos); err != nil {
				return nil, &ParseError{Path: path, Line: line, Err: err}
			}
		}
	}
	if err := fileio.ScanErr(sc, line+1, maxPDBLine); err != nil {
		return nil, &ParseError{Path: path, Line: line + 1, Err: fmt.Errorf("%w: %w", ErrRecord, err)}
	}
done:
	for id, n := range seqres {
		if c := b.chains[id]; len(c.SeqRes) != n {
			return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: chain %q has %d SEQRES residues, %d declared", ErrRecord, id, len(c.SeqRes), n)}
		}
	}
	if atoms == 0 {
		return nil, &ParseError{Path: path, Err: ErrNoAtoms}
	}
	return b.finish(), nil
}
