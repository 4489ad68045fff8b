package homology

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

// Words are the distinct K-mers free of N, sorted: a run of N breaks the
// words, repeats count once.
func TestWords(t *testing.T) {
	if got := Words("ACGU"); len(got) != 0 {
		t.Errorf("Words of a sequence shorter than K: %v", got)
	}
	// AAAAAAAA twice in a row, then an N that breaks the window.
	if got := Words("AAAAAAAAANAAAAAAA"); len(got) != 1 || got[0] != 0 {
		t.Errorf("Words(AAAAAAAAANAAAAAAA) = %v, want [0] (AAAAAAAA once)", got)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	s := randSeq(rng, 500)
	ws := Words(s)
	if !slices.IsSorted(ws) || len(slices.Compact(slices.Clone(ws))) != len(ws) {
		t.Fatal("Words not sorted and distinct")
	}
	if n := sharedWords(s, s); n != len(ws) {
		t.Errorf("%d words, a plain count gives %d", len(ws), n)
	}
}

// The prefilter keeps the Top best ranked, ties in index order; with
// MinShared 0 it fills the Top with sequences sharing no word, in index
// order, and with MinShared 1 it leaves them out.
func TestPrefilterRanked(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	q := randSeq(rng, 100)
	seqs := []string{
		"ACGUACG",          // 0: shorter than K: no words
		q[:50],             // 1: 43 words of the query
		randSeq(rng, 20),   // 2: shares none (most likely)
		q,                  // 3: every word
		q[:50],             // 4: as 1, a later index
		randSeq(rng, 1000), // 5: a few by chance at most
	}
	ix := NewWordIndex(seqs)
	refs := func(cs []Candidate) []int {
		var out []int
		for _, c := range cs {
			out = append(out, c.Ref)
		}
		return out
	}
	if got := refs(ix.Ranked(q, Prefilter{Rank: RankShared, Top: 3, MinShared: 1})); !slices.Equal(got, []int{3, 1, 4}) {
		t.Errorf("top 3 by shared words: %v, want [3 1 4]", got)
	}
	if got := refs(ix.Ranked(q, Prefilter{Rank: RankShared, Top: 3, MinShared: 1, Exclude: func(r int) bool { return r == 1 }})); !slices.Equal(got[:2], []int{3, 4}) {
		t.Errorf("top 3 without 1: %v, want [3 4 ...]", got)
	}
	short := "ACGUNACGUNACGUNACGU" // no word at all
	if got := refs(ix.Ranked(short, Prefilter{Rank: RankJaccard, Top: 2})); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("MinShared 0, nothing shared: %v, want the first two in index order", got)
	}
	if got := ix.Ranked(short, Prefilter{Rank: RankJaccard, Top: 2, MinShared: 1}); len(got) != 0 {
		t.Errorf("MinShared 1, nothing shared: %+v, want none", got)
	}
	for _, c := range ix.Ranked(q, Prefilter{Rank: RankJaccard, Top: 6}) {
		n := sharedWords(q, seqs[c.Ref])
		j := float64(n) / float64(max(len(Words(q))+len(Words(seqs[c.Ref]))-n, 1))
		if c.Shared != n || math.Abs(c.Jaccard-j) > 1e-15 {
			t.Errorf("candidate %d: shared %d, Jaccard %g; want %d, %g", c.Ref, c.Shared, c.Jaccard, n, j)
		}
	}
	if got := ix.Ranked(q, Prefilter{Top: 0}); len(got) != 0 {
		t.Errorf("Top 0: %+v", got)
	}
}

// Nearest aligns the prefilter's candidates and keeps the best scored,
// the better ranked at ties; Exact finds the first identical sequence.
func TestNearestAndExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	q := randSeq(rng, 120)
	mut := []byte(q)
	mut[60] = "CGUA"[rna.BaseCode(mut[60])]
	seqs := []string{randSeq(rng, 120), q + randSeq(rng, 400), string(mut), q, string(mut)}
	ix := NewWordIndex(seqs)
	var scored []int
	r, id := ix.Nearest(string(mut), Prefilter{Rank: RankShared, Top: 3, Exclude: func(r int) bool { return r == 2 || r == 4 }}, func(r int) float64 {
		scored = append(scored, r)
		return Identity(string(mut), seqs[r])
	})
	if r != 3 || id != 119.0/120 {
		t.Errorf("Nearest = %d, %g; want 3, %g", r, id, 119.0/120)
	}
	if !slices.Equal(scored, []int{1, 3, 0}) {
		t.Errorf("scored %v, want the prefilter's order [1 3 0]", scored)
	}
	// 1 and 3 hold every word of q: 1 ranks first, the lower index.
	if r, _ := ix.Nearest(q, Prefilter{Rank: RankShared, Top: 5}, func(int) float64 { return 0.5 }); r != 1 {
		t.Errorf("Nearest at equal scores = %d, want the best ranked (1)", r)
	}
	if r, id := NewWordIndex(nil).Nearest(q, Prefilter{Top: 3}, func(int) float64 { return 1 }); r != -1 || id != 0 {
		t.Errorf("empty index: %d, %g", r, id)
	}
	if r, ok := ix.Exact(string(mut)); !ok || r != 2 {
		t.Errorf("Exact = %d, %v; want the first copy, 2", r, ok)
	}
	if _, ok := ix.Exact(q[1:]); ok {
		t.Error("Exact found a sequence that is not indexed")
	}
}
