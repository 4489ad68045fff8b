package homology

import (
	"math/rand/v2"
	"sort"
)

// This file holds the pieces of family clustering (which molecules of a
// data set are homologs of which) besides the word index's candidates
// (WordIndex.Candidates): the alignment statistics of a pair,
// the structure agreement of a homology transfer, a dinucleotide
// shuffle for null controls, and union-find for single linkage.

// PairScore is how alike two molecules are under their overlap
// alignment (AlignOverlap, query a against reference b).
type PairScore struct {
	// Identity is the identical aligned bases over the alignment's
	// columns from the first aligned pair of bases to the last, gaps
	// inside that region counted in both sequences: a fragment aligned
	// in one piece to the matching part of a longer molecule scores its
	// identity there, a short sequence scattered along a long one by
	// chance scores low.
	Identity float64
	// Coverage is the aligned bases over the shorter sequence's length.
	Coverage float64
	// F1 is the agreement of the reference's pairs carried to the query
	// through the alignment (Transfer) with the query's own pairs
	// (exact pairs; 0 when either has none).
	F1 float64
	// SpanF1 is F1 with the query's pairs counted only where both bases
	// lie in the query's aligned span (its first aligned base to its
	// last): the agreement of a fragment reference with the part of a
	// longer query it aligns to, which F1 dilutes by the query's pairs
	// elsewhere. SpanF1 >= F1; the two are equal when the span is the
	// whole query.
	SpanF1 float64
	// QueryPairs and Transferred count the query's own pairs and the
	// pairs carried to it; SpanPairs the query's pairs inside its
	// aligned span.
	QueryPairs, Transferred, SpanPairs int
}

// ScorePair aligns query a (sequence and partners, as rna.Structure
// holds them) against reference b and scores the pair.
func ScorePair(aSeq string, aPartner []int, bSeq string, bPartner []int) PairScore {
	m := AlignOverlap(aSeq, bSeq)
	var ps PairScore
	var first, last int // the query's aligned span; -1 when nothing aligns
	ps.Identity, ps.Coverage, first, last = spanIdentity(m, aSeq, bSeq)
	t := Transfer(m, bPartner)
	ps.Transferred = len(t)
	for i, j := range aPartner {
		if j > i {
			ps.QueryPairs++
			if first >= 0 && i >= first && j <= last {
				ps.SpanPairs++
			}
		}
	}
	tp := 0
	for _, p := range t {
		if p[0] < len(aPartner) && aPartner[p[0]] == p[1] {
			tp++
		}
	}
	if ps.QueryPairs > 0 && ps.Transferred > 0 {
		ps.F1 = 2 * float64(tp) / float64(ps.QueryPairs+ps.Transferred)
	}
	if ps.SpanPairs > 0 && ps.Transferred > 0 {
		ps.SpanF1 = 2 * float64(tp) / float64(ps.SpanPairs+ps.Transferred)
	}
	return ps
}

// spanIdentity is PairScore's Identity and Coverage of an alignment map
// of a to b, and the first and last aligned positions of a (-1 when
// none is aligned).
func spanIdentity(m []int, a, b string) (identity, coverage float64, first, last int) {
	first, last = -1, -1
	aligned, same := 0, 0
	for i, j := range m {
		if j < 0 {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		aligned++
		if a[i] == b[j] {
			same++
		}
	}
	if aligned == 0 {
		return 0, 0, -1, -1
	}
	columns := (last - first + 1) + (m[last] - m[first] + 1) - aligned
	return float64(same) / float64(columns), float64(aligned) / float64(min(len(a), len(b))), first, last
}

// DinucleotideShuffle is a random permutation of seq with the same
// count of every dinucleotide and the same first and last letter
// (Altschul & Erickson, Mol. Biol. Evol. 2:526, 1985: a random Eulerian
// walk of the sequence's transition graph, its last exits drawn as a
// random arborescence into the last letter). The composition that
// alignment scores depend on is kept; homology is destroyed.
func DinucleotideShuffle(seq string, rng *rand.Rand) string {
	n := len(seq)
	if n < 3 {
		return seq
	}
	// edges[c]: the letters that follow c in seq, in order.
	edges := map[byte][]byte{}
	for i := 0; i+1 < n; i++ {
		edges[seq[i]] = append(edges[seq[i]], seq[i+1])
	}
	lastLetter := seq[n-1]
	letters := make([]byte, 0, len(edges))
	for c := range edges {
		letters = append(letters, c)
	}
	sort.Slice(letters, func(a, b int) bool { return letters[a] < letters[b] })
	// Draw each vertex's last exit (vertices other than the last letter)
	// until they form a tree into the last letter.
	lastExit := map[byte]int{}
	for {
		for _, c := range letters {
			if c != lastLetter {
				lastExit[c] = rng.IntN(len(edges[c]))
			}
		}
		if reachesRoot(letters, lastLetter, func(c byte) byte { return edges[c][lastExit[c]] }) {
			break
		}
	}
	order := map[byte][]byte{}
	for _, c := range letters {
		e := append([]byte(nil), edges[c]...)
		var tail byte
		hasTail := c != lastLetter
		if hasTail {
			k := lastExit[c]
			tail = e[k]
			e = append(e[:k], e[k+1:]...)
		}
		rng.Shuffle(len(e), func(i, j int) { e[i], e[j] = e[j], e[i] })
		if hasTail {
			e = append(e, tail)
		}
		order[c] = e
	}
	out := make([]byte, 0, n)
	c := seq[0]
	out = append(out, c)
	used := map[byte]int{}
	for len(out) < n {
		next := order[c][used[c]]
		used[c]++
		out = append(out, next)
		c = next
	}
	return string(out)
}

// reachesRoot reports whether following next from every letter reaches
// root (next defines one exit per letter other than root).
func reachesRoot(letters []byte, root byte, next func(byte) byte) bool {
	for _, c := range letters {
		seen := map[byte]bool{}
		for c != root {
			if seen[c] {
				return false
			}
			seen[c] = true
			c = next(c)
		}
	}
	return true
}

// UnionFind is a disjoint-set forest over 0..n-1 (single linkage:
// Union every linked pair, then Find names each one's cluster).
type UnionFind struct{ parent []int }

// NewUnionFind is n singletons.
func NewUnionFind(n int) *UnionFind {
	u := &UnionFind{parent: make([]int, n)}
	for i := range u.parent {
		u.parent[i] = i
	}
	return u
}

// Find is the representative of i's set: the smallest member, whatever
// the order of the unions.
func (u *UnionFind) Find(i int) int {
	for u.parent[i] != i {
		u.parent[i] = u.parent[u.parent[i]]
		i = u.parent[i]
	}
	return i
}

// Union joins the sets of i and j and reports whether they were apart.
func (u *UnionFind) Union(i, j int) bool {
	a, b := u.Find(i), u.Find(j)
	if a == b {
		return false
	}
	if a > b {
		a, b = b, a
	}
	u.parent[b] = a
	return true
}
