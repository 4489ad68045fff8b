package homology

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestIdentity(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"ACGUACGU", "ACGUACGU", 1},
		{"ACGUACGU", "ACGAACGU", 7.0 / 8}, // one substitution
		{"ACGUACGU", "ACGUCGU", 7.0 / 8},  // one deletion: 7 identical over 8
		{"AAAA", "UUUU", 0},
		{"", "ACG", 0},
	} {
		if got := Identity(tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Identity(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// Identity is the most identical bases of any optimal end-to-end
// alignment and LocalIdentity of any optimal local one, as an
// independent full-matrix programme over (score, identical bases)
// finds them; Identity is at least Align's identity.
func TestIdentitiesAreTheMostIdenticalOptima(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 300; trial++ {
		a, b := randSeq(rng, rng.IntN(25)), randSeq(rng, rng.IntN(25))
		if trial%3 == 0 {
			a, b = randSeqOf(rng, "AC", len(a)), randSeqOf(rng, "AC", len(b))
		}
		g, l := mostIdentical(a, b)
		if len(a) > 0 && len(b) > 0 {
			if got, want := Identity(a, b), float64(g)/float64(max(len(a), len(b))); got != want {
				t.Fatalf("Identity(%q, %q) = %g, want %g", a, b, got, want)
			}
			if _, id := Align(a, b); id > Identity(a, b) {
				t.Fatalf("%q/%q: Align's identity %g above Identity's %g", a, b, id, Identity(a, b))
			}
		}
		if got, want := LocalIdentity(a, b), float64(l)/float64(max(1, min(len(a), len(b)))); got != want {
			t.Fatalf("LocalIdentity(%q, %q) = %g, want %g", a, b, got, want)
		}
	}
	frag := randSeq(rng, 40)
	if id := LocalIdentity(frag, randSeq(rng, 300)+frag+randSeq(rng, 300)); id != 1 {
		t.Errorf("LocalIdentity of a fragment in its molecule = %g, want 1", id)
	}
}

func randSeqOf(rng *rand.Rand, alpha string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[rng.IntN(len(alpha))]
	}
	return string(b)
}

// mostIdentical is the most identical bases among the optimal global
// and among the optimal local alignments of a and b, by full matrices
// of (score, identical bases) compared lexicographically.
func mostIdentical(a, b string) (global, local int) {
	type cell struct{ s, id int }
	lex := func(x, y cell) cell {
		if y.s > x.s || y.s == x.s && y.id > x.id {
			return y
		}
		return x
	}
	g := make([][]cell, len(a)+1)
	l := make([][]cell, len(a)+1)
	for i := range g {
		g[i], l[i] = make([]cell, len(b)+1), make([]cell, len(b)+1)
		g[i][0] = cell{gapScore * i, 0}
	}
	for j := range g[0] {
		g[0][j] = cell{gapScore * j, 0}
	}
	best := cell{}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			d, same := mismatchScore, 0
			if a[i-1] == b[j-1] {
				d, same = matchScore, 1
			}
			g[i][j] = lex(lex(cell{g[i-1][j-1].s + d, g[i-1][j-1].id + same}, cell{g[i-1][j].s + gapScore, g[i-1][j].id}), cell{g[i][j-1].s + gapScore, g[i][j-1].id})
			c := lex(lex(cell{l[i-1][j-1].s + d, l[i-1][j-1].id + same}, cell{l[i-1][j].s + gapScore, l[i-1][j].id}), cell{l[i][j-1].s + gapScore, l[i][j-1].id})
			if c.s <= 0 {
				c = cell{}
			}
			l[i][j] = c
			best = lex(best, c)
		}
	}
	return g[len(a)][len(b)].id, best.id
}
