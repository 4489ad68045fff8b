package homology

import (
	"slices"

	"github.com/contactmap/contactmap/rna"
)

// This file holds the package's one word prefilter: an inverted K-mer
// index of sequences and the ranking of its sequences for a query, used
// by homology transfer (Index), by family clustering (Candidates) and by
// rna/ssnet's overlap tables (Nearest, Exact).

// K is the word length of the prefilter.
const K = 8

// wordBits is the number of possible K-mers over A, C, G, U (4^K).
const wordBits = 1 << (2 * K)

// Words is the sorted set of distinct K-mers of seq that contain no N
// (nor any letter other than A, C, G, U), each as its 2K-bit code: the
// words the prefilter counts.
func Words(seq string) []uint32 {
	out := make([]uint32, 0, max(len(seq)-K+1, 0))
	var w uint32
	valid := 0 // bases of the current word that are A, C, G or U
	for i := 0; i < len(seq); i++ {
		c := rna.BaseCode(seq[i])
		if c < 0 {
			valid = 0
			continue
		}
		w = (w<<2 | uint32(c)) & (wordBits - 1)
		if valid++; valid >= K {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// WordIndex is an inverted K-mer index of sequences: for each K-mer, the
// sequences that hold it. Counting the words a query shares with every
// sequence costs the length of the query's posting lists, not one pass
// over each sequence's words, so an all-against-all search of ten
// thousand RNAs is cheap.
type WordIndex struct {
	post  [][]int32      // post[w]: the sequences holding word w, ascending
	count []int          // distinct words of each sequence
	first map[string]int // the first sequence of each distinct sequence
}

// NewWordIndex indexes seqs (normalised: A, C, G, U, N).
func NewWordIndex(seqs []string) *WordIndex {
	ix := &WordIndex{post: make([][]int32, wordBits), count: make([]int, len(seqs)), first: make(map[string]int, len(seqs))}
	for i, s := range seqs {
		ws := Words(s)
		ix.count[i] = len(ws)
		for _, w := range ws {
			ix.post[w] = append(ix.post[w], int32(i))
		}
		if _, ok := ix.first[s]; !ok {
			ix.first[s] = i
		}
	}
	return ix
}

// Len is the number of indexed sequences.
func (ix *WordIndex) Len() int { return len(ix.count) }

// Exact is the first indexed sequence equal to seq, if any.
func (ix *WordIndex) Exact(seq string) (ref int, ok bool) {
	ref, ok = ix.first[seq]
	return ref, ok
}

// Rank is how the prefilter orders indexed sequences for a query.
type Rank int

const (
	// RankShared: by the number of K-mers shared with the query. Long
	// references share more words with any query by chance, so among
	// references of very different lengths (16S rRNAs beside bpRNA's
	// short RNAs) they can crowd a short query's homologs out of the
	// candidates.
	RankShared Rank = iota
	// RankJaccard: by shared / (query's + reference's - shared) K-mers,
	// which favours references of the query's length.
	RankJaccard
)

// Candidate is an indexed sequence that shares words with a query.
type Candidate struct {
	Ref     int     // index of the sequence in the WordIndex
	Shared  int     // distinct K-mers shared with the query
	Jaccard float64 // Shared / (query's + reference's - Shared)
}

// before reports whether c ranks strictly above d under r.
func (r Rank) before(c, d Candidate) bool {
	if r == RankJaccard {
		return c.Jaccard > d.Jaccard
	}
	return c.Shared > d.Shared
}

// Prefilter is which indexed sequences a search considers for a query:
// the Top ranked by Rank among those sharing at least MinShared K-mers
// with it and not excluded. Ties go to the lower index, so the choice is
// deterministic. MinShared 0 admits every sequence, those sharing no
// word ranked last in index order: a search then finds a reference
// whenever one is left.
type Prefilter struct {
	Rank      Rank
	Top       int
	MinShared int
	// Exclude, when not nil, removes sequences (by index): a query's own
	// entry, for one.
	Exclude func(ref int) bool
}

// shared counts, for every indexed sequence, the distinct words it
// shares with the query words qs.
func (ix *WordIndex) shared(qs []uint32) []int32 {
	n := make([]int32, len(ix.count))
	for _, w := range qs {
		for _, r := range ix.post[w] {
			n[r]++
		}
	}
	return n
}

// Ranked are the candidates p admits for seq, best ranked first.
func (ix *WordIndex) Ranked(seq string, p Prefilter) []Candidate {
	qs := Words(seq)
	return ix.top(ix.shared(qs), len(qs), p)
}

// top is Ranked over the shared word counts of a query of nq words.
func (ix *WordIndex) top(shared []int32, nq int, p Prefilter) []Candidate {
	if p.Top <= 0 {
		return nil
	}
	out := make([]Candidate, 0, min(p.Top, len(shared)))
	for r, s := range shared {
		n := int(s)
		if n < p.MinShared || (p.Exclude != nil && p.Exclude(r)) {
			continue
		}
		c := Candidate{Ref: r, Shared: n, Jaccard: float64(n) / float64(max(nq+ix.count[r]-n, 1))}
		if len(out) == p.Top && !p.Rank.before(c, out[len(out)-1]) {
			continue
		}
		// Insert c after every candidate ranked at least as high: those
		// come from lower indexes.
		k := len(out)
		for k > 0 && p.Rank.before(c, out[k-1]) {
			k--
		}
		if len(out) < p.Top {
			out = append(out, Candidate{})
		}
		copy(out[k+1:], out[k:len(out)-1])
		out[k] = c
	}
	return out
}

// Candidates are the indexed sequences sharing at least minShared words
// (and at least one) with seq, excluding those for which exclude (may
// be nil) is true: the top most alike by Jaccard similarity and the top
// by shared words (long references share more words with any query by
// chance, short fragments of long molecules have a low Jaccard
// similarity, so each ranking finds homologs the other misses), without
// repeats, in that order. Ties go to the lower index, so the result is
// deterministic.
func (ix *WordIndex) Candidates(seq string, top, minShared int, exclude func(ref int) bool) []Candidate {
	qs := Words(seq)
	shared := ix.shared(qs)
	var out []Candidate
	taken := map[int]bool{}
	for _, r := range []Rank{RankJaccard, RankShared} {
		for _, c := range ix.top(shared, len(qs), Prefilter{Rank: r, Top: top, MinShared: max(minShared, 1), Exclude: exclude}) {
			if !taken[c.Ref] {
				taken[c.Ref] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// Nearest is the search of the package: the candidate p admits for seq
// that identity scores highest (ties: the better ranked), and its
// score; ref is -1 when p admits no sequence. identity is called once
// for each candidate, with its index.
func (ix *WordIndex) Nearest(seq string, p Prefilter, identity func(ref int) float64) (ref int, score float64) {
	ref = -1
	for _, c := range ix.Ranked(seq, p) {
		if id := identity(c.Ref); ref < 0 || id > score {
			ref, score = c.Ref, id
		}
	}
	return ref, score
}
