package homology

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

func dinucleotides(s string) map[string]int {
	m := map[string]int{}
	for i := 0; i+1 < len(s); i++ {
		m[s[i:i+2]]++
	}
	return m
}

// A dinucleotide shuffle keeps every dinucleotide count and both end
// letters, changes the sequence (for a long enough one), and is
// reproducible from its seed.
func TestDinucleotideShuffleKeepsDinucleotides(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	changed := 0
	for trial := 0; trial < 300; trial++ {
		s := randSeq(rng, 3+rng.IntN(200))
		if trial%7 == 0 {
			s += "NNAC" // N letters and a final letter seen once
		}
		got := DinucleotideShuffle(s, rand.New(rand.NewPCG(uint64(trial), 9)))
		if len(got) != len(s) || got[0] != s[0] || got[len(got)-1] != s[len(s)-1] {
			t.Fatalf("shuffle of %q = %q: length or end letters differ", s, got)
		}
		want, have := dinucleotides(s), dinucleotides(got)
		if len(want) != len(have) {
			t.Fatalf("shuffle of %q = %q: dinucleotides %v, want %v", s, got, have, want)
		}
		for k, v := range want {
			if have[k] != v {
				t.Fatalf("shuffle of %q = %q: %s %d times, want %d", s, got, k, have[k], v)
			}
		}
		if again := DinucleotideShuffle(s, rand.New(rand.NewPCG(uint64(trial), 9))); again != got {
			t.Fatalf("shuffle of %q not reproducible: %q then %q", s, got, again)
		}
		if len(s) > 50 && got != s {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no long sequence changed under the shuffle")
	}
	if got := DinucleotideShuffle("AC", rng); got != "AC" {
		t.Errorf("shuffle of AC = %q", got)
	}
}

// The word index finds the sequences sharing words with a query, ranks
// them by Jaccard then by shared words, skips the excluded, and counts
// shared words as a plain count of the 8-mers both hold does.
func TestWordIndexCandidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base := randSeq(rng, 300)
	seqs := []string{
		randSeq(rng, 300), // 0: unrelated
		base,              // 1: the query itself
		base[100:160],     // 2: a fragment: high Jaccard? no, few words
		base + randSeq(rng, 2000),
		randSeq(rng, 100),
	}
	ix := NewWordIndex(seqs)
	cs := ix.Candidates(base, 2, 1, func(r int) bool { return r == 1 })
	var refs []int
	for _, c := range cs {
		refs = append(refs, c.Ref)
		want := sharedWords(base, seqs[c.Ref])
		if c.Shared != want {
			t.Errorf("candidate %d: %d shared words, want %d", c.Ref, c.Shared, want)
		}
	}
	// By Jaccard: the fragment (53 words of 53, against the query's 293)
	// and the long molecule (293 of 2593); by shared words the long one
	// first (already taken), then the fragment: no repeats.
	if !slices.Equal(refs, []int{2, 3}) {
		t.Errorf("candidates %v, want [2 3]", refs)
	}
	if cs := ix.Candidates(base, 5, 100, nil); len(cs) != 2 || cs[0].Ref != 1 || cs[1].Ref != 3 {
		t.Errorf("candidates sharing >= 100 words: %+v, want refs 1 and 3", cs)
	}
}

// sharedWords counts the distinct 8-mers of A, C, G and U that a and b
// both hold, by their text.
func sharedWords(a, b string) int {
	words := func(s string) map[string]bool {
		out := map[string]bool{}
		for i := 0; i+K <= len(s); i++ {
			if w := s[i : i+K]; !strings.ContainsFunc(w, func(r rune) bool { return !strings.ContainsRune("ACGU", r) }) {
				out[w] = true
			}
		}
		return out
	}
	wa, wb := words(a), words(b)
	n := 0
	for w := range wa {
		if wb[w] {
			n++
		}
	}
	return n
}

// A fragment aligned inside a longer homolog scores its identity over
// its own region; the transfer F1 is 1 for identical structures and 0
// when the transferred pairs miss the query's.
func TestScorePair(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	frag := randSeq(rng, 80)
	long := randSeq(rng, 400) + frag + randSeq(rng, 400)
	unpaired := func(n int) []int {
		p := make([]int, n)
		for i := range p {
			p[i] = -1
		}
		return p
	}
	ps := ScorePair(frag, unpaired(80), long, unpaired(len(long)))
	if ps.Identity != 1 || ps.Coverage != 1 || ps.F1 != 0 {
		t.Errorf("fragment in a long molecule: %+v, want identity 1, coverage 1, F1 0", ps)
	}
	// A hairpin 0-9 .. 20-29 in both: F1 1.
	hp := unpaired(30)
	for k := 0; k < 10; k++ {
		hp[k], hp[29-k] = 29-k, k
	}
	s := randSeq(rng, 30)
	if ps := ScorePair(s, hp, s, hp); ps.F1 != 1 || ps.QueryPairs != 10 || ps.Transferred != 10 {
		t.Errorf("identical hairpins: %+v, want F1 1 over 10 pairs", ps)
	}
	shifted := unpaired(30)
	for k := 0; k < 5; k++ {
		shifted[10+k], shifted[19-k] = 19-k, 10+k
	}
	if ps := ScorePair(s, hp, s, shifted); ps.F1 != 0 || ps.Transferred != 5 {
		t.Errorf("disjoint structures: %+v, want F1 0, 5 transferred", ps)
	}
	// Two unrelated random sequences of the same length: the free end
	// gaps find a short overlap of chance matches, covering little.
	if ps := ScorePair(randSeq(rng, 200), unpaired(200), randSeq(rng, 200), unpaired(200)); ps.Coverage > 0.5 || ps.Identity > 0.9 {
		t.Errorf("unrelated sequences: %+v, want a short chance overlap", ps)
	}
	// A homolog with every tenth base changed, both ends trimmed by 5:
	// identity 0.9 over its region.
	mut := []byte(frag)
	for i := 0; i < len(mut); i += 10 {
		mut[i] = "CGUA"[rna.BaseCode(mut[i])]
	}
	if ps := ScorePair(frag, unpaired(80), string(mut[5:75]), unpaired(70)); ps.Identity < 0.85 || ps.Coverage < 0.99 {
		t.Errorf("a mutated, trimmed homolog: %+v, want identity about 0.9, coverage 1", ps)
	}
}

// A long query whose middle is a fragment reference: F1 is diluted by
// the query's pairs outside the fragment, SpanF1 counts only those
// inside the aligned span, and a span covering the whole query leaves
// SpanF1 equal to F1.
func TestScorePairSpanF1(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 60
	frag := randSeq(rng, n)
	long := randSeq(rng, 300) + frag + randSeq(rng, 300)
	fp := make([]int, n)
	for i := range fp {
		fp[i] = -1
	}
	for k := 0; k < 10; k++ { // a hairpin 10-19 .. 40-49
		fp[10+k], fp[49-k] = 49-k, 10+k
	}
	lp := make([]int, len(long))
	for i := range lp {
		lp[i] = -1
	}
	for i, j := range fp {
		if j >= 0 {
			lp[300+i] = 300 + j
		}
	}
	for k := 0; k < 40; k++ { // 40 more pairs outside the fragment
		lp[20+k], lp[259-k] = 259-k, 20+k
	}
	ps := ScorePair(long, lp, frag, fp)
	if ps.QueryPairs != 50 || ps.SpanPairs != 10 || ps.Transferred != 10 {
		t.Fatalf("%+v: want 50 query pairs, 10 in the span, 10 transferred", ps)
	}
	if want := 2 * 10.0 / 60; math.Abs(ps.F1-want) > 1e-12 || ps.SpanF1 != 1 {
		t.Errorf("F1 %.3f, SpanF1 %.3f: want %.3f and 1", ps.F1, ps.SpanF1, want)
	}
	if ps := ScorePair(frag, fp, frag, fp); ps.SpanF1 != ps.F1 || ps.F1 != 1 {
		t.Errorf("identical molecules: F1 %.3f, SpanF1 %.3f, want both 1", ps.F1, ps.SpanF1)
	}
}

// Union-find names every set by its smallest member, whatever the order
// of the unions.
func TestUnionFind(t *testing.T) {
	u := NewUnionFind(6)
	if !u.Union(4, 2) || !u.Union(5, 4) || u.Union(2, 5) || !u.Union(3, 1) {
		t.Fatal("Union reported the wrong merges")
	}
	want := []int{0, 1, 2, 1, 2, 2}
	for i, w := range want {
		if got := u.Find(i); got != w {
			t.Errorf("Find(%d) = %d, want %d", i, got, w)
		}
	}
}

// The overlap alignment pays nothing for end gaps: a suffix of one
// sequence that is a prefix of the other aligns base for base, where an
// end-to-end alignment pays for the overhangs.
func TestAlignOverlapSuffixPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x, y, z := randSeq(rng, 40), randSeq(rng, 60), randSeq(rng, 40)
	m := AlignOverlap(x+y, y+z)
	for i := range m {
		want := -1
		if i >= 40 {
			want = i - 40
		}
		if m[i] != want {
			t.Fatalf("AlignOverlap: base %d maps to %d, want %d", i, m[i], want)
		}
	}
	if m := AlignOverlap("", "ACG"); len(m) != 0 {
		t.Errorf("AlignOverlap of an empty sequence: %v", m)
	}
}
