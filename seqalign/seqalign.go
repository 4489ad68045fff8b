// Package seqalign aligns protein sequences with biogo's dynamic
// programming aligners and BLOSUM62, returning the aligned index pairs.
package seqalign

import (
	"math"

	"github.com/biogo/biogo/align"
	"github.com/biogo/biogo/align/matrix"
	"github.com/biogo/biogo/alphabet"
	"github.com/biogo/biogo/feat"
	"github.com/biogo/biogo/seq/linear"
)

// GapPenalty is the linear gap cost; BLOSUM62 matches score +4 to +11.
const GapPenalty = -2

var blosum = func() [][]int {
	m := make([][]int, len(matrix.BLOSUM62))
	for i, row := range matrix.BLOSUM62 {
		m[i] = append([]int(nil), row...)
		if i == 0 {
			for j := range m[i] {
				m[i][j] = GapPenalty
			}
		}
		m[i][0] = GapPenalty
	}
	m[0][0] = 0
	return m
}()

// Canonical returns the letter the aligner reads for byte c: upper case;
// U (selenocysteine) as C and O (pyrrolysine) as K, the residues they are
// built from (the substitution matrix has neither); the gap '-', the stop
// '*' and the ambiguity codes B, Z, J, X as they are; anything else as X.
// biogo's Protein alphabet ("-ABCDEFGHIJKLMNPQRSTVWXYZ*") has no O or U,
// and a letter outside it indexes the matrix at -1.
func Canonical(c byte) byte {
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	switch {
	case c == 'U':
		return 'C'
	case c == 'O':
		return 'K'
	case c == '-' || c == '*' || c >= 'A' && c <= 'Z':
		return c
	}
	return 'X'
}

func seq(s string) *linear.Seq {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		b[i] = Canonical(s[i])
	}
	return linear.NewSeq("", alphabet.BytesToLetters(b), alphabet.Protein)
}

// Global aligns a and b end to end (Needleman-Wunsch) and returns the
// aligned (index in a, index in b) pairs in order.
func Global(a, b string) ([][2]int, error) {
	fp, err := align.NW(blosum).Align(seq(a), seq(b))
	if err != nil {
		return nil, err
	}
	return pairs(fp), nil
}

// Fitted aligns all of b into a segment of a (b is a domain of chain a)
// and returns the aligned pairs in order.
func Fitted(a, b string) ([][2]int, error) {
	fp, err := align.Fitted(blosum).Align(seq(a), seq(b))
	if err != nil {
		return nil, err
	}
	return pairs(fp), nil
}

func pairs(fp []feat.Pair) [][2]int {
	var out [][2]int
	for _, p := range fp {
		f := p.Features()
		if f[0].Len() == 0 || f[1].Len() == 0 {
			continue // gap
		}
		for k := 0; k < f[0].Len(); k++ {
			out = append(out, [2]int{f[0].Start() + k, f[1].Start() + k})
		}
	}
	return out
}

// Identity's gap costs: BLAST's protein defaults, existence 11 and
// extension 1, so a gap of k positions costs 11 + k (biogo's affine
// aligner charges the matrix's gap score per position and GapOpen once
// more per gap).
const (
	identityGapExtend = -1
	identityGapOpen   = -11
)

var blosumAffine = func() align.Affine {
	m := make(align.Linear, len(blosum))
	for i := range blosum {
		m[i] = append([]int(nil), blosum[i]...)
		for j := range m[i] {
			if i == 0 || j == 0 {
				m[i][j] = identityGapExtend
			}
		}
	}
	m[0][0] = 0
	return align.Affine{Matrix: m, GapOpen: identityGapOpen}
}()

// Local is the best local alignment of two protein sequences under
// BLOSUM62 with BLAST's gap costs (Smith-Waterman, biogo).
type Local struct {
	Score     int // raw score
	Columns   int // aligned columns, gap columns included
	Identical int // columns with the same letter on both sides (X never counts)
	Pairs     [][2]int
}

// Karlin-Altschul parameters of BLOSUM62 with gaps costing 11 + k (BLAST's
// table of gapped parameters).
const (
	lambdaBLOSUM62 = 0.267
	kBLOSUM62      = 0.041
)

// AlignLocal aligns the best-scoring segments of a and b.
func AlignLocal(a, b string) (Local, error) {
	if len(a) == 0 || len(b) == 0 {
		return Local{}, nil
	}
	fp, err := align.SWAffine(blosumAffine).Align(seq(a), seq(b))
	if err != nil {
		return Local{}, err
	}
	l := Local{Pairs: pairs(fp)}
	idx := alphabet.Protein.LetterIndex()
	for k, pr := range l.Pairs {
		ca, cb := Canonical(a[pr[0]]), Canonical(b[pr[1]])
		l.Score += matrix.BLOSUM62[idx[ca]][idx[cb]]
		if ca == cb && ca != 'X' {
			l.Identical++
		}
		l.Columns++
		if k > 0 {
			prev := l.Pairs[k-1]
			for _, g := range []int{pr[0] - prev[0] - 1, pr[1] - prev[1] - 1} {
				if g > 0 {
					l.Score += identityGapOpen + identityGapExtend*g
					l.Columns += g
				}
			}
		}
	}
	return l, nil
}

// Identity is the fraction of identical columns of the alignment (BLAST's
// percent identity over 100).
func (l Local) Identity() float64 {
	if l.Columns == 0 {
		return 0
	}
	return float64(l.Identical) / float64(l.Columns)
}

// EValue is the number of alignments scoring at least as high expected by
// chance between a sequence of length m and a database of total length n
// (Karlin-Altschul, E = K m n exp(-lambda S), without length corrections).
func (l Local) EValue(m, n int) float64 {
	return kBLOSUM62 * float64(m) * float64(n) * math.Exp(-lambdaBLOSUM62*float64(l.Score))
}

// Identity is the identical residues of the best local alignment of a
// and b over the length of the shorter sequence: 1 when the shorter one
// is a copy of part of the other. Redundancy at high identity (95%) is
// measured with it; at low identity chance alignments dominate it and
// Local's significance must decide.
func Identity(a, b string) (float64, error) {
	n := min(len(a), len(b))
	if n == 0 {
		return 0, nil
	}
	l, err := AlignLocal(a, b)
	if err != nil {
		return 0, err
	}
	return float64(l.Identical) / float64(n), nil
}

// IdentityBound is an upper bound of Identity that needs no alignment:
// identical pairs cannot outnumber, letter by letter, the smaller count
// of that letter in a and b. Pairs with IdentityBound below a threshold
// need not be aligned.
func IdentityBound(a, b string) float64 {
	ca, cb := CompositionOf(a), CompositionOf(b)
	return ca.Bound(&cb)
}

// Composition is a sequence's letter counts (as Canonical reads them)
// and length, for IdentityBound against many sequences without
// recounting.
type Composition struct {
	counts [256]int32
	n      int
}

// CompositionOf counts s.
func CompositionOf(s string) Composition {
	var c Composition
	for i := 0; i < len(s); i++ {
		c.counts[Canonical(s[i])]++
	}
	c.n = len(s)
	return c
}

// Bound is IdentityBound of the two sequences counted.
func (c *Composition) Bound(d *Composition) float64 {
	n := min(c.n, d.n)
	if n == 0 {
		return 0
	}
	same := int32(0)
	for l := range c.counts {
		if l != 'X' {
			same += min(c.counts[l], d.counts[l])
		}
	}
	return float64(same) / float64(n)
}
