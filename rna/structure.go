package rna

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Sentinel errors; a ParseError wraps one of them.
var (
	ErrFormat   = errors.New("malformed record")
	ErrSequence = errors.New("invalid base")
	ErrPairing  = errors.New("inconsistent pairing")
)

// ParseError is an error of a file at a line (0: the file as a whole).
type ParseError struct {
	Path string
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("rna: %s line %d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("rna: %s: %v", e.Path, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Structure is an RNA sequence and its base pairs.
type Structure struct {
	Name string
	Seq  string // upper case over A, C, G, U and N
	// Partner[i] is the 0-based index of the base paired with base i, or
	// -1 when it is unpaired.
	Partner []int
	// Energy, if not nil, is the free energy of a predicted structure,
	// which the writers record (see Energy).
	Energy *Energy
}

// Unpaired is the Partner value of an unpaired base.
const Unpaired = -1

// NormalizeBase maps a base letter to A, C, G, U or N: case-insensitive,
// T read as U, the IUPAC ambiguity codes (R Y K M S W B D H V N) as N.
// ok is false for anything else.
func NormalizeBase(c byte) (byte, bool) {
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	switch c {
	case 'A', 'C', 'G', 'U':
		return c, true
	case 'T':
		return 'U', true
	case 'R', 'Y', 'K', 'M', 'S', 'W', 'B', 'D', 'H', 'V', 'N':
		return 'N', true
	}
	return 0, false
}

// BaseCode is the 2-bit code of a normalised base (NormalizeBase): A 0,
// C 1, G 2, U 3, and -1 for N and for any other byte (T and lower-case
// letters included: normalise first).
func BaseCode(b byte) int {
	switch b {
	case 'A':
		return 0
	case 'C':
		return 1
	case 'G':
		return 2
	case 'U':
		return 3
	}
	return -1
}

// NormalizeSequence applies NormalizeBase to every letter.
func NormalizeSequence(seq string) (string, error) {
	b := make([]byte, len(seq))
	for i := 0; i < len(seq); i++ {
		c, ok := NormalizeBase(seq[i])
		if !ok {
			return "", fmt.Errorf("%w %q at position %d", ErrSequence, seq[i], i+1)
		}
		b[i] = c
	}
	return string(b), nil
}

// New returns the structure of seq with the given 0-based pairs (in any
// order, each once), checked.
func New(name, seq string, pairs [][2]int) (*Structure, error) {
	s := &Structure{Name: name, Seq: seq, Partner: make([]int, len(seq))}
	for i := range s.Partner {
		s.Partner[i] = Unpaired
	}
	for _, p := range pairs {
		i, j := p[0], p[1]
		if i < 0 || j < 0 || i >= len(seq) || j >= len(seq) {
			return nil, fmt.Errorf("%w: pair (%d, %d) outside 1..%d", ErrPairing, i+1, j+1, len(seq))
		}
		if i == j {
			return nil, fmt.Errorf("%w: base %d paired with itself", ErrPairing, i+1)
		}
		for _, k := range []int{i, j} {
			if s.Partner[k] != Unpaired {
				return nil, fmt.Errorf("%w: base %d has two partners (%d and %d)", ErrPairing, k+1, s.Partner[k]+1, i+j-k+1)
			}
		}
		s.Partner[i], s.Partner[j] = j, i
	}
	return s, s.Check()
}

// Check verifies the structure: a valid sequence, partners in range and
// mutual, no base paired with itself.
func (s *Structure) Check() error {
	if len(s.Partner) != len(s.Seq) {
		return fmt.Errorf("%w: %d partners for %d bases", ErrPairing, len(s.Partner), len(s.Seq))
	}
	for i := 0; i < len(s.Seq); i++ {
		if c, ok := NormalizeBase(s.Seq[i]); !ok || c != s.Seq[i] {
			return fmt.Errorf("%w %q at position %d", ErrSequence, s.Seq[i], i+1)
		}
	}
	for i, j := range s.Partner {
		switch {
		case j == Unpaired:
		case j < 0 || j >= len(s.Seq):
			return fmt.Errorf("%w: base %d pairs with %d, outside 1..%d", ErrPairing, i+1, j+1, len(s.Seq))
		case j == i:
			return fmt.Errorf("%w: base %d paired with itself", ErrPairing, i+1)
		case s.Partner[j] != i:
			return fmt.Errorf("%w: base %d pairs with %d, but base %d with %d", ErrPairing, i+1, j+1, j+1, s.Partner[j]+1)
		}
	}
	return nil
}

// Pairs returns the pairs (i, j), i < j, 0-based, by increasing i.
func (s *Structure) Pairs() [][2]int {
	var out [][2]int
	for i, j := range s.Partner {
		if j > i {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// Equal reports whether a and b have the same sequence and pairs.
func Equal(a, b *Structure) bool {
	if a.Seq != b.Seq || len(a.Partner) != len(b.Partner) {
		return false
	}
	for i := range a.Partner {
		if a.Partner[i] != b.Partner[i] {
			return false
		}
	}
	return true
}

// Crossing reports whether pairs (i, j) and (k, l) (i < j, k < l) cross:
// a pseudoknot.
func Crossing(a, b [2]int) bool {
	return a[0] < b[0] && b[0] < a[1] && a[1] < b[1] || b[0] < a[0] && a[0] < b[1] && b[1] < a[1]
}

// sortPairs orders pairs by i.
func sortPairs(p [][2]int) { sort.Slice(p, func(a, b int) bool { return p[a][0] < p[b][0] }) }

// headerLine reports whether a line of a CT or BPSEQ file is a header or
// comment line rather than a record (it does not start with a number).
func headerLine(t string) bool {
	t = strings.TrimSpace(t)
	return t == "" || t[0] < '0' || t[0] > '9'
}

// baseRecord reads the index (field 0), base (field 1) and partner (field
// partnerField) of a CT or BPSEQ record, which must be base number want.
// The error wraps ErrFormat or ErrSequence; the partner is not checked.
func baseRecord(f []string, partnerField, want int) (base byte, partner int, err error) {
	k, e1 := strconv.Atoi(f[0])
	p, e2 := strconv.Atoi(f[partnerField])
	if e1 != nil || e2 != nil || k != want {
		return 0, 0, fmt.Errorf("%w: record %q, want index %d", ErrFormat, strings.Join(f, " "), want)
	}
	c, ok := byte(0), false
	if len(f[1]) == 1 {
		c, ok = NormalizeBase(f[1][0])
	}
	if !ok {
		return 0, 0, fmt.Errorf("%w %q", ErrSequence, f[1])
	}
	return c, p, nil
}
