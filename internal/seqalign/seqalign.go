// Package seqalign aligns protein sequences with biogo's dynamic
// programming aligners and BLOSUM62, returning the aligned index pairs.
package seqalign

import (
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
