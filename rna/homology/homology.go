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
//
// The word index and its search (WordIndex, Prefilter, Nearest) are the
// project's one homology search: family clustering takes its candidates
// from it (WordIndex.Candidates, aligned by AlignOverlap), and rna/ssnet's
// overlap tables their nearest training molecules (by Identity, and
// LocalIdentity for the deduplication of a training set).
package homology

import (
	"fmt"

	"github.com/contactmap/contactmap/rna"
)

// Candidates is how many references, most alike in shared words, are
// aligned to the query.
const Candidates = 3

// Index holds the references and their word index.
type Index struct {
	refs  []*rna.Structure
	words *WordIndex
	// Rank orders the candidates of the prefilter (RankShared, the
	// default, or RankJaccard).
	Rank Rank
}

// NewIndex indexes references (structures of known pairs; their
// sequences normalised over A, C, G, U, N).
func NewIndex(refs []*rna.Structure) *Index {
	seqs := make([]string, len(refs))
	for i, r := range refs {
		seqs[i] = r.Seq
	}
	return &Index{refs: refs, words: NewWordIndex(seqs)}
}

// Len is the number of references.
func (ix *Index) Len() int { return len(ix.refs) }

// WithRank returns an index over the same references, sharing their word
// index, that orders the prefilter's candidates by r.
func (ix *Index) WithRank(r Rank) *Index {
	c := *ix
	c.Rank = r
	return &c
}

// Template is a reference aligned to a query.
type Template struct {
	Ref *rna.Structure // nil: no reference (an empty index, or all excluded)
	// Map[i] is the reference base aligned to query base i, or -1 where
	// the query base faces a gap.
	Map []int
	// Identity is the identical aligned bases over the length of the
	// longer sequence (Align's identity).
	Identity float64
	// Pairs are the reference's pairs carried to the query (0-based,
	// i < j), where both partners align.
	Pairs [][2]int
}

// Search finds the template of a query sequence: among the Candidates
// references ranked first by the prefilter (every reference admitted),
// the one with the highest global-alignment identity (ties: the better
// ranked). exclude, when not nil, removes references (by index) from the
// search: a training molecule's own entry, for one.
func (ix *Index) Search(seq string, exclude func(ref int) bool) Template {
	maps := make(map[int][]int, Candidates)
	r, id := ix.words.Nearest(seq, Prefilter{Rank: ix.Rank, Top: Candidates, Exclude: exclude}, func(r int) float64 {
		m, id := Align(seq, ix.refs[r].Seq)
		maps[r] = m
		return id
	})
	if r < 0 {
		return Template{Map: unaligned(len(seq))}
	}
	ref := ix.refs[r]
	return Template{Ref: ref, Map: maps[r], Identity: id, Pairs: Transfer(maps[r], ref.Partner)}
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
