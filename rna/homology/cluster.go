package homology

import (
	"math/rand/v2"
	"sort"
)

// This file holds the pieces of family clustering (which molecules of a
// data set are homologs of which): an inverted K-mer index for
// all-against-all candidate search, the alignment statistics of a pair,
// the structure agreement of a homology transfer, a dinucleotide
// shuffle for null controls, and union-find for single linkage.

// Words is the sorted set of distinct K-mers of seq that contain no N
// (as the prefilter of Index counts them), each as its 2K-bit code.
func Words(seq string) []uint32 {
	seen := make(map[uint32]bool, len(seq))
	var out []uint32
	var w uint32
	valid := 0
	for i := 0; i < len(seq); i++ {
		c := code(seq[i])
		if c < 0 {
			valid = 0
			continue
		}
		w = (w<<2 | uint32(c)) & (wordBits - 1)
		if valid++; valid >= K && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// WordIndex is an inverted K-mer index of sequences: for each K-mer, the
// sequences that hold it. Counting the words a query shares with every
// sequence costs the length of the query's posting lists, not one bit
// set per sequence, so an all-against-all search of ten thousand RNAs
// is cheap.
type WordIndex struct {
	post  [][]int32 // post[w]: the sequences holding word w, ascending
	count []int     // distinct words of each sequence
}

// NewWordIndex indexes seqs (normalised: A, C, G, U, N).
func NewWordIndex(seqs []string) *WordIndex {
	ix := &WordIndex{post: make([][]int32, wordBits), count: make([]int, len(seqs))}
	for i, s := range seqs {
		ws := Words(s)
		ix.count[i] = len(ws)
		for _, w := range ws {
			ix.post[w] = append(ix.post[w], int32(i))
		}
	}
	return ix
}

// Candidate is an indexed sequence that shares words with a query.
type Candidate struct {
	Ref     int     // index of the sequence in the WordIndex
	Shared  int     // distinct K-mers shared with the query
	Jaccard float64 // Shared / (query's + reference's - Shared)
}

// Candidates are the indexed sequences sharing at least minShared words
// with seq, excluding those for which exclude (may be nil) is true: the
// top most alike by Jaccard similarity and the top by shared words
// (long references share more words with any query by chance, short
// fragments of long molecules have a low Jaccard similarity, so each
// ranking finds homologs the other misses), without repeats, in that
// order. Ties go to the lower index, so the result is deterministic.
func (ix *WordIndex) Candidates(seq string, top, minShared int, exclude func(ref int) bool) []Candidate {
	qs := Words(seq)
	counts := map[int32]int{}
	for _, w := range qs {
		for _, r := range ix.post[w] {
			counts[r]++
		}
	}
	all := make([]Candidate, 0, len(counts))
	for r, n := range counts {
		if n < minShared || (exclude != nil && exclude(int(r))) {
			continue
		}
		all = append(all, Candidate{Ref: int(r), Shared: n,
			Jaccard: float64(n) / float64(max(len(qs)+ix.count[r]-n, 1))})
	}
	byJaccard := append([]Candidate(nil), all...)
	sort.Slice(byJaccard, func(a, b int) bool {
		if byJaccard[a].Jaccard != byJaccard[b].Jaccard {
			return byJaccard[a].Jaccard > byJaccard[b].Jaccard
		}
		return byJaccard[a].Ref < byJaccard[b].Ref
	})
	sort.Slice(all, func(a, b int) bool {
		if all[a].Shared != all[b].Shared {
			return all[a].Shared > all[b].Shared
		}
		return all[a].Ref < all[b].Ref
	})
	var out []Candidate
	taken := map[int]bool{}
	for _, list := range [][]Candidate{byJaccard, all} {
		for _, c := range list[:min(top, len(list))] {
			if !taken[c.Ref] {
				taken[c.Ref] = true
				out = append(out, c)
			}
		}
	}
	return out
}

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
	// QueryPairs and Transferred count the query's own pairs and the
	// pairs carried to it.
	QueryPairs, Transferred int
}

// ScorePair aligns query a (sequence and partners, as rna.Structure
// holds them) against reference b and scores the pair.
func ScorePair(aSeq string, aPartner []int, bSeq string, bPartner []int) PairScore {
	m := AlignOverlap(aSeq, bSeq)
	var ps PairScore
	ps.Identity, ps.Coverage = spanIdentity(m, aSeq, bSeq)
	t := Transfer(m, bPartner)
	ps.Transferred = len(t)
	for i, j := range aPartner {
		if j > i {
			ps.QueryPairs++
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
	return ps
}

// AlignOverlap aligns a and b with Align's scores (match +1, mismatch
// -1, gap -2) but free end gaps in both: the best alignment of a suffix
// of one with a prefix of the other, or of one inside the other, so a
// fragment or a domain aligns in one piece to its place in the whole
// molecule (an end-to-end alignment pays for the end gaps wherever they
// fall and can scatter a short sequence along a long one). It returns
// the map of a's bases to b's (-1 at a gap). Ties prefer the diagonal,
// then a gap in b, then a gap in a; among equal best end cells, the
// last row before the last column, the earliest cell of each. O(len(a)
// len(b)) time and bytes.
func AlignOverlap(a, b string) []int {
	m, _ := align(a, b, true)
	return m
}

// spanIdentity is PairScore's Identity and Coverage of an alignment map
// of a to b.
func spanIdentity(m []int, a, b string) (identity, coverage float64) {
	first, last, aligned, same := -1, -1, 0, 0
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
		return 0, 0
	}
	columns := (last - first + 1) + (m[last] - m[first] + 1) - aligned
	return float64(same) / float64(columns), float64(aligned) / float64(min(len(a), len(b)))
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
