package homology

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

func TestAlignKnownCases(t *testing.T) {
	for _, c := range []struct {
		a, b string
		m    []int
		id   float64
	}{
		{"ACGU", "ACGU", []int{0, 1, 2, 3}, 1},
		{"ACGU", "ACU", []int{0, 1, -1, 2}, 0.75},            // one deletion in b
		{"AGGGU", "AGGGGU", []int{0, 2, 3, 4, 5}, 5.0 / 6.0}, // a gap in a: ties take the diagonal first, from the end
		{"AAAA", "CCCC", []int{0, 1, 2, 3}, 0},               // mismatches (-1) beat gaps (-2 each)
		{"", "ACG", []int{}, 0},
	} {
		m, id := Align(c.a, c.b)
		if !slices.Equal(m, c.m) || id != c.id {
			t.Errorf("Align(%q, %q) = %v, %g; want %v, %g", c.a, c.b, m, id, c.m, c.id)
		}
	}
}

// The map is strictly increasing where aligned (an alignment never
// crosses), and its identity counts exactly the identical aligned bases;
// its score equals the best score found by an independent full-matrix
// dynamic programme.
func TestAlignIsAnOptimalAlignment(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		a, b := randSeq(rng, 1+rng.IntN(30)), randSeq(rng, 1+rng.IntN(30))
		m, id := Align(a, b)
		last, same, score := -1, 0, 0
		aligned := 0
		for i, j := range m {
			if j < 0 {
				continue
			}
			if j <= last {
				t.Fatalf("%q/%q: map %v crosses", a, b, m)
			}
			last = j
			aligned++
			if a[i] == b[j] {
				same++
				score += matchScore
			} else {
				score += mismatchScore
			}
		}
		score += gapScore * (len(a) - aligned + len(b) - aligned)
		if want := float64(same) / float64(max(len(a), len(b))); id != want {
			t.Fatalf("%q/%q: identity %g, counted %g", a, b, id, want)
		}
		if best := bestScore(a, b); score != best {
			t.Fatalf("%q/%q: alignment score %d, optimum %d", a, b, score, best)
		}
	}
}

func bestScore(a, b string) int {
	s := make([][]int, len(a)+1)
	for i := range s {
		s[i] = make([]int, len(b)+1)
		s[i][0] = gapScore * i
	}
	for j := range s[0] {
		s[0][j] = gapScore * j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			d := mismatchScore
			if a[i-1] == b[j-1] {
				d = matchScore
			}
			s[i][j] = max(s[i-1][j-1]+d, s[i-1][j]+gapScore, s[i][j-1]+gapScore)
		}
	}
	return s[len(a)][len(b)]
}

func randSeq(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "ACGU"[rng.IntN(4)]
	}
	return string(b)
}

func TestTransferCarriesAlignedPairsOnly(t *testing.T) {
	// Reference pairs (0,9), (1,8), (2,7); query base 1 faces a gap, so
	// (1,8) is lost; the others move with the map.
	ref := []int{9, 8, 7, -1, -1, -1, -1, 2, 1, 0}
	m := []int{0, -1, 2, 3, 4, 5, 6, 7, 8, 9}
	got := Transfer(m, ref)
	want := [][2]int{{0, 9}, {2, 7}}
	if !slices.Equal(got, want) {
		t.Errorf("Transfer = %v, want %v", got, want)
	}
}

func TestSearchFindsTheHomologAndHonoursExclusion(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var refs []*rna.Structure
	for k := 0; k < 5; k++ {
		seq := randSeq(rng, 200)
		// A hairpin stem at the ends of each reference.
		var pairs [][2]int
		for i := 0; i < 10; i++ {
			pairs = append(pairs, [2]int{i, 199 - i})
		}
		s, err := rna.New("r", seq, pairs)
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, s)
	}
	ix := NewIndex(refs)
	// The query is reference 3 with a few point mutations.
	q := []byte(refs[3].Seq)
	for _, i := range []int{20, 80, 150} {
		q[i] = "ACGU"[(strings4(q[i])+1)%4]
	}
	tm := ix.Search(string(q), nil)
	if tm.Ref != refs[3] || tm.Identity != 197.0/200 || len(tm.Pairs) != 10 {
		t.Fatalf("found %p (want %p), identity %g, %d pairs", tm.Ref, refs[3], tm.Identity, len(tm.Pairs))
	}
	tm = ix.Search(string(q), func(r int) bool { return r == 3 })
	if tm.Ref == refs[3] || tm.Identity > 0.7 { // random sequences align at about 0.5
		t.Fatalf("excluded reference found (identity %g)", tm.Identity)
	}
	if none := NewIndex(nil).Search("ACGU", nil); none.Ref != nil || len(none.Pairs) != 0 || len(none.Map) != 4 {
		t.Fatalf("empty index: %+v", none)
	}
}

func strings4(c byte) int { return slices.Index([]byte("ACGU"), c) }

// On the bundled 16S validation molecules, transfer from the training set
// is a strong predictor (validation mean F1 0.954 when written): a guard
// that the search and the alignment keep working on real data.
func TestTransferOnReal16S(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the 16S sets")
	}
	read := func(file string) []*rna.Structure {
		f, err := openData(file)
		if err != nil {
			t.Skip(err)
		}
		defer f.Close()
		ss, err := rna.ReadFiveLine(f, file)
		if err != nil {
			t.Fatal(err)
		}
		return ss
	}
	train, valid := read("16s-finaltrain.txt"), read("16s-finalvalid.txt")
	ix := NewIndex(train)
	f1 := 0.0
	for _, v := range valid[:8] {
		s, _, err := ix.Predict(v.Name, v.Seq, nil)
		if err != nil {
			t.Fatal(err)
		}
		f1 += rna.Compare(s, v, false).F1
	}
	if f1 /= 8; f1 < 0.9 {
		t.Errorf("mean F1 %.3f on 8 validation molecules, want >= 0.9", f1)
	}
}

// Long references share words with any query by chance: among references
// of very different lengths, RankShared lets long decoys crowd a short
// query's homolog out of the candidates, and RankJaccard keeps it.
func TestRankJaccardKeepsShortHomologs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	random := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ACGU"[rng.IntN(4)]
		}
		return string(b)
	}
	query := random(80)
	// The homolog: the query with a mismatch every 9 bases (few exact
	// 8-mers survive).
	hb := []byte(query)
	for i := 4; i < len(hb); i += 9 {
		hb[i] = "ACGU"[(strings.IndexByte("ACGU", hb[i])+1)%4]
	}
	homolog := &rna.Structure{Name: "homolog", Seq: string(hb), Partner: unpairedN(len(hb))}
	refs := []*rna.Structure{}
	// Decoys: long random sequences carrying many of the query's 8-mers.
	for d := 0; d < 4; d++ {
		s := random(3000)
		for k := 0; k+12 <= len(query); k += 12 {
			at := rng.IntN(len(s) - 12)
			s = s[:at] + query[k:k+12] + s[at+12:]
		}
		refs = append(refs, &rna.Structure{Name: fmt.Sprintf("decoy%d", d), Seq: s, Partner: unpairedN(len(s))})
	}
	refs = append(refs, homolog)
	ix := NewIndex(refs)
	if got := ix.Search(query, nil); got.Ref == homolog {
		t.Skip("the decoys did not outrank the homolog by shared words")
	}
	ix.Rank = RankJaccard
	if got := ix.Search(query, nil); got.Ref != homolog {
		t.Fatalf("RankJaccard chose %v, want the homolog", got.Ref.Name)
	}
}

func unpairedN(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = rna.Unpaired
	}
	return p
}
