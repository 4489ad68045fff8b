package homology

import "math"

// This file holds the package's alignments: one dynamic programme
// (align) with linear gaps, end to end (Needleman & Wunsch, J. Mol.
// Biol. 48:443, 1970), with free end gaps, or local (Smith & Waterman,
// J. Mol. Biol. 147:195, 1981).

// Alignment scores: match +1, mismatch -1, gap -2 (the overlap check's).
const (
	matchScore    = 1
	mismatchScore = -1
	gapScore      = -2
)

// Align aligns a and b end to end (Needleman-Wunsch, linear gaps) and
// returns the map of a's bases to b's (-1 at a gap) and the identity:
// identical aligned bases over the longer length. Ties between equal
// scores prefer the diagonal, then a gap in b, then a gap in a, so the
// alignment is deterministic. O(len(a) len(b)) time and bytes.
//
//	S(i,j) = max(S(i-1,j-1) + s(a_i, b_j), S(i-1,j) + gap, S(i,j-1) + gap)
func Align(a, b string) (m []int, identity float64) {
	m, same := align(a, b, endToEnd, true)
	if len(a) == 0 || len(b) == 0 {
		return m, 0
	}
	return m, float64(same) / float64(max(len(a), len(b)))
}

// AlignOverlap aligns a and b with Align's scores (match +1, mismatch
// -1, gap -2) but free end gaps in both: the best alignment of a suffix
// of one with a prefix of the other, or of one inside the other, so a
// fragment or a domain aligns in one piece to its place in the whole
// molecule (an end-to-end alignment pays for the end gaps wherever they
// fall and can scatter a short sequence along a long one). It returns
// the map of a's bases to b's (-1 at a gap). Ties prefer the diagonal,
// then a gap in b, then a gap in a; among equal best end cells, the
// last column before the last row, the earliest cell of each. O(len(a)
// len(b)) time and bytes.
func AlignOverlap(a, b string) []int {
	m, _ := align(a, b, freeEnds, true)
	return m
}

// Identity is the identity of a and b under their best end-to-end
// alignments (Align's scores): the most identical aligned bases of any
// best-scoring alignment over the length of the longer sequence; 0 when
// either is empty. Align's identity counts the bases of the one
// alignment it traces, which can be fewer. O(len(b)) bytes.
func Identity(a, b string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	_, same := align(a, b, endToEnd, false)
	return float64(same) / float64(max(len(a), len(b)))
}

// LocalIdentity is the identity of a and b under their best local
// alignments (Smith-Waterman, Align's scores): the most identical
// aligned bases of any best-scoring local alignment over the length of
// the shorter sequence, so that a fragment of a molecule is identical
// to it. O(len(b)) bytes.
func LocalIdentity(a, b string) float64 {
	_, same := align(a, b, local, false)
	return float64(same) / float64(max(1, min(len(a), len(b))))
}

// ends is where an alignment of align may start and end.
type ends int

const (
	endToEnd ends = iota // every gap costs, the ends included
	freeEnds             // gaps before and after either sequence cost nothing
	local                // the best-scoring pair of substrings
)

// align is the dynamic programme of every alignment of the package,
// linear gaps, at Align's scores. It returns the number of identical
// aligned bases of the alignment it picks and, when traced (end to end
// or free ends only), the map of a's bases to b's (-1 at a gap; nil
// untraced). Traced, ties between moves of equal score prefer the
// diagonal, then a gap in b, then a gap in a, and the identical bases
// are those of the traced alignment; untraced, ties prefer the move with
// more identical bases (then as traced), so that the count is the most
// of any best-scoring alignment. The alignment ends at the last cell end
// to end; with free ends, at the best cell of the last column, then of
// the last row (ties: the earliest); local, at the best cell, row by
// row (ties likewise), cells at or under 0 starting afresh. O(len(a)
// len(b)) time; traced, as many bytes.
//
// Each cell holds its best path's score and, untraced, its identical
// bases in one integer, score<<32 | identical (an int64): comparing two
// cells compares their scores, then their identical bases. Traced, a
// cell holds the score alone (an int32, as fast as the programme runs).
func align(a, b string, e ends, traced bool) (m []int, same int) {
	if traced {
		return alignCells[int32](a, b, e, true)
	}
	return alignCells[int64](a, b, e, false)
}

// alignCells is align over cells of type T.
func alignCells[T int32 | int64](a, b string, e ends, traced bool) (m []int, same int) {
	n, l := len(a), len(b)
	if traced {
		m = unaligned(n)
	}
	if n == 0 || l == 0 {
		return m, 0
	}
	idBits, identical := 32, T(1)
	if traced {
		idBits, identical = 0, 0 // the walk counts the identical bases
	}
	match, mismatch, gap := T(matchScore)<<idBits|identical, T(mismatchScore)<<idBits, T(gapScore)<<idBits
	edge := func(k int) T {
		if e == endToEnd {
			return T(k) * gap
		}
		return 0
	}
	// trace[i*(l+1)+j]: 0 diagonal, 1 up (a_i against a gap), 2 left.
	var trace []byte
	if traced {
		trace = make([]byte, (n+1)*(l+1))
		for j := 1; j <= l; j++ {
			trace[j] = 2
		}
	}
	prev, cur := make([]T, l+1), make([]T, l+1)
	for j := 1; j <= l; j++ {
		prev[j] = edge(j)
	}
	best, endI, endJ := T(math.MinInt32)<<idBits, n, l
	if e == local {
		best = 0
	}
	var row []byte // the row of trace, or untraced a scratch row
	if !traced {
		row = make([]byte, l+1)
	}
	for i := 1; i <= n; i++ {
		cur[0] = edge(i)
		if traced {
			trace[i*(l+1)] = 1
			row = trace[i*(l+1) : (i+1)*(l+1)]
		}
		ai := a[i-1]
		p, c, r := prev[:l+1], cur[:l+1], row[:l+1] // one bounds check for the row
		for j := 1; j <= l; j++ {
			s, t := p[j-1]+mismatch, byte(0)
			if ai == b[j-1] {
				s = p[j-1] + match
			}
			if v := p[j] + gap; v > s {
				s, t = v, 1
			}
			if v := c[j-1] + gap; v > s {
				s, t = v, 2
			}
			if e == local {
				if s>>idBits <= 0 {
					s = 0
				}
				if s > best {
					best = s
				}
			}
			c[j], r[j] = s, t
		}
		if e == freeEnds && cur[l] > best {
			best, endI, endJ = cur[l], i, l
		}
		prev, cur = cur, prev
	}
	switch e {
	case endToEnd:
		best = prev[l]
	case freeEnds:
		for j := 1; j <= l; j++ { // the last row, now in prev
			if prev[j] > best {
				best, endI, endJ = prev[j], n, j
			}
		}
	}
	if !traced {
		return m, int(best & (1<<idBits - 1))
	}
	// Moves on the first row or column align nothing: the walk stops
	// there.
	for i, j := endI, endJ; i > 0 && j > 0; {
		switch trace[i*(l+1)+j] {
		case 0:
			m[i-1] = j - 1
			if a[i-1] == b[j-1] {
				same++
			}
			i, j = i-1, j-1
		case 1:
			i--
		default:
			j--
		}
	}
	return m, same
}

func unaligned(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = -1
	}
	return m
}
