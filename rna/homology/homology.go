// Package homology is the model-free homology-transfer predictor of RNA
// secondary structure: find the reference molecule of known structure
// most like the query, align the two end to end, and copy the
// reference's base pairs to the query wherever both partners align.
//
// The search is the usual two-stage one: a word prefilter (shared
// 8-mers, as BLAST-like tools and the project's overlap check use)
// picks a few candidates, and a global alignment (Needleman-Wunsch,
// linear gaps) decides among them and maps the pairs. With close
// homologs in the references (the 16S rRNA set), this is the strongest
// learning-free method; without one (a family absent from the
// references) it copies little or nothing useful, and the Template
// says so by its identity.
//
// The same transfer gives the networks of rna/ssnet their template
// channels: a training molecule's template comes from the other
// training molecules only (Index.Search with an exclusion).
package homology

import (
	"fmt"
	"math/bits"
	"sort"

	"github.com/contactmap/contactmap/rna"
)

// K is the word length of the prefilter.
const K = 8

// Candidates is how many references, most alike in shared words, are
// aligned to the query.
const Candidates = 3

// wordBits is the size of a word set: one bit per possible K-mer over
// A, C, G, U (4^K).
const wordBits = 1 << (2 * K)

// Index holds the references and their word sets.
type Index struct {
	refs  []*rna.Structure
	words [][]uint64 // bit set of each reference's K-mers
	count []int      // K-mers of each reference
	// Rank orders the candidates of the prefilter (RankShared, the
	// default, or RankJaccard).
	Rank Rank
}

// Rank is how the prefilter orders references for a query.
type Rank int

const (
	// RankShared: by the number of K-mers shared with the query. Long
	// references share more words with any query by chance, so among
	// references of very different lengths (16S rRNAs beside bpRNA's
	// short RNAs) they can crowd a short query's homologs out of the
	// Candidates.
	RankShared Rank = iota
	// RankJaccard: by shared / (query's + reference's - shared) K-mers,
	// which favours references of the query's length.
	RankJaccard
)

// NewIndex indexes references (structures of known pairs; their
// sequences normalised over A, C, G, U, N).
func NewIndex(refs []*rna.Structure) *Index {
	ix := &Index{refs: refs, words: make([][]uint64, len(refs)), count: make([]int, len(refs))}
	for i, r := range refs {
		ix.words[i] = wordSet(r.Seq)
		ix.count[i] = shared(ix.words[i], ix.words[i])
	}
	return ix
}

// Len is the number of references.
func (ix *Index) Len() int { return len(ix.refs) }

// WithRank returns an index over the same references, sharing their word
// sets, that orders the prefilter's candidates by r.
func (ix *Index) WithRank(r Rank) *Index {
	c := *ix
	c.Rank = r
	return &c
}

// wordSet is the bit set of the K-mers of seq that contain no N.
func wordSet(seq string) []uint64 {
	set := make([]uint64, wordBits/64)
	var w uint32
	valid := 0 // bases of the current word that are A, C, G or U
	for i := 0; i < len(seq); i++ {
		c := code(seq[i])
		if c < 0 {
			valid = 0
			continue
		}
		w = (w<<2 | uint32(c)) & (wordBits - 1)
		if valid++; valid >= K {
			set[w/64] |= 1 << (w % 64)
		}
	}
	return set
}

func code(b byte) int {
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

func shared(a, b []uint64) int {
	n := 0
	for i := range a {
		n += bits.OnesCount64(a[i] & b[i])
	}
	return n
}

// Template is a reference aligned to a query.
type Template struct {
	Ref *rna.Structure // nil: no reference (an empty index, or all excluded)
	// Map[i] is the reference base aligned to query base i, or -1 where
	// the query base faces a gap.
	Map []int
	// Identity is the identical aligned bases over the length of the
	// longer sequence (as rna/ssnet's overlap check counts it).
	Identity float64
	// Pairs are the reference's pairs carried to the query (0-based,
	// i < j), where both partners align.
	Pairs [][2]int
}

// Search finds the template of a query sequence: among the Candidates
// references sharing the most K-mers with it, the one with the highest
// global-alignment identity (ties: the earlier reference). exclude, when
// not nil, removes references (by index) from the search: a training
// molecule's own entry, for one.
func (ix *Index) Search(seq string, exclude func(ref int) bool) Template {
	q := wordSet(seq)
	nq := shared(q, q)
	type cand struct {
		i     int
		score float64
	}
	cs := make([]cand, 0, len(ix.refs))
	for i := range ix.refs {
		if exclude != nil && exclude(i) {
			continue
		}
		n := shared(q, ix.words[i])
		score := float64(n)
		if ix.Rank == RankJaccard {
			score = float64(n) / float64(max(nq+ix.count[i]-n, 1))
		}
		cs = append(cs, cand{i, score})
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].score > cs[b].score })
	best := Template{Map: unaligned(len(seq))}
	for _, c := range cs[:min(Candidates, len(cs))] {
		ref := ix.refs[c.i]
		m, id := Align(seq, ref.Seq)
		if best.Ref == nil || id > best.Identity {
			best = Template{Ref: ref, Map: m, Identity: id}
		}
	}
	if best.Ref != nil {
		best.Pairs = Transfer(best.Map, best.Ref.Partner)
	}
	return best
}

func unaligned(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = -1
	}
	return m
}

// Transfer carries a reference's pairing to the query through an
// alignment map (m[i]: the reference base of query base i, or -1): query
// bases i < j pair when their reference bases pair.
func Transfer(m []int, refPartner []int) [][2]int {
	back := make([]int, len(refPartner)) // reference base -> query base, or -1
	for r := range back {
		back[r] = -1
	}
	for i, r := range m {
		if r >= 0 && r < len(back) {
			back[r] = i
		}
	}
	var pairs [][2]int
	for i, r := range m {
		if r < 0 || r >= len(refPartner) {
			continue
		}
		p := refPartner[r]
		if p < 0 {
			continue
		}
		if j := back[p]; j > i {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	return pairs
}

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
	m, same := align(a, b, false)
	if len(a) == 0 || len(b) == 0 {
		return m, 0
	}
	return m, float64(same) / float64(max(len(a), len(b)))
}

// align is Align's dynamic programme, and AlignOverlap's with freeEnds:
// gaps before and after either sequence cost nothing, and the traceback
// starts at the best cell of the last row or column. It returns the map
// of a's bases to b's (-1 at a gap) and the number of identical aligned
// bases. Ties prefer the diagonal, then a gap in b, then a gap in a; among
// equal best end cells, the last row before the last column, the earliest
// cell of each.
func align(a, b string, freeEnds bool) (m []int, same int) {
	n, l := len(a), len(b)
	m = unaligned(n)
	if n == 0 || l == 0 {
		return m, 0
	}
	gapAt := func(k int) int32 {
		if freeEnds {
			return 0
		}
		return int32(gapScore * k)
	}
	// trace[i*(l+1)+j]: 0 diagonal, 1 up (a_i against a gap), 2 left.
	trace := make([]byte, (n+1)*(l+1))
	prev, cur := make([]int32, l+1), make([]int32, l+1)
	for j := 1; j <= l; j++ {
		prev[j] = gapAt(j)
		trace[j] = 2
	}
	bestS, bestI, bestJ := int32(-1<<30), n, l
	for i := 1; i <= n; i++ {
		cur[0] = gapAt(i)
		trace[i*(l+1)] = 1
		ai := a[i-1]
		row := trace[i*(l+1):]
		for j := 1; j <= l; j++ {
			s := prev[j-1] + mismatchScore
			if ai == b[j-1] {
				s = prev[j-1] + matchScore
			}
			t := byte(0)
			if v := prev[j] + gapScore; v > s {
				s, t = v, 1
			}
			if v := cur[j-1] + gapScore; v > s {
				s, t = v, 2
			}
			cur[j], row[j] = s, t
		}
		if freeEnds && cur[l] > bestS {
			bestS, bestI, bestJ = cur[l], i, l
		}
		prev, cur = cur, prev
	}
	if freeEnds {
		for j := 1; j <= l; j++ { // the last row, now in prev
			if prev[j] > bestS {
				bestS, bestI, bestJ = prev[j], n, j
			}
		}
	}
	// Moves on the first row or column align nothing: the walk stops
	// there.
	for i, j := bestI, bestJ; i > 0 && j > 0; {
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

// Predict is the homology-transfer prediction of a query: the template's
// pairs as a structure named name. Without a reference it predicts no
// pairs.
func (ix *Index) Predict(name, seq string, exclude func(ref int) bool) (*rna.Structure, Template, error) {
	t := ix.Search(seq, exclude)
	s, err := rna.New(name, seq, t.Pairs)
	if err != nil {
		return nil, t, fmt.Errorf("homology: %s: %w", name, err)
	}
	return s, t, nil
}
