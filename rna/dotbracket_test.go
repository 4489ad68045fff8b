package rna

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// firstFitLevels is the level assignment by its definition, in O(P^2):
// each pair by increasing i gets the first level none of whose pairs it
// crosses; -1 beyond the last bracket kind.
func firstFitLevels(s *Structure) map[[2]int]int {
	out := map[[2]int]int{}
	levels := make([][][2]int, len(bracketKinds))
	for _, p := range s.Pairs() {
		out[p] = -1
		for k := range levels {
			crosses := false
			for _, q := range levels[k] {
				crosses = crosses || Crossing(p, q)
			}
			if !crosses {
				levels[k] = append(levels[k], p)
				out[p] = k
				break
			}
		}
	}
	return out
}

// randomPairing pairs a random fraction of the bases of a random sequence
// of length l at random (pseudoknots of any depth).
func randomPairing(r *rand.Rand, l int, frac float64) *Structure {
	perm := r.Perm(l)
	n := int(float64(l) * frac / 2)
	var pairs [][2]int
	for k := 0; k < n; k++ {
		i, j := perm[2*k], perm[2*k+1]
		pairs = append(pairs, [2]int{min(i, j), max(i, j)})
	}
	b := make([]byte, l)
	for i := range b {
		b[i] = "ACGUN"[r.IntN(5)]
	}
	s, err := New("rand", string(b), pairs)
	if err != nil {
		panic(err)
	}
	return s
}

// checkDotBracket asserts that db shows exactly the pairs of s that the
// first-fit rule gives a level, with that level's brackets, and that the
// count of omitted pairs is the rest; it returns the structure read back.
func checkDotBracket(t *testing.T, s *Structure, db string, omitted int) *Structure {
	t.Helper()
	back, err := ParseDotBracket(s.Name, s.Seq, db)
	if err != nil {
		t.Fatalf("written string does not parse: %v", err)
	}
	want := firstFitLevels(s)
	shown := 0
	for p, k := range want {
		switch {
		case k < 0:
			if back.Partner[p[0]] != Unpaired || back.Partner[p[1]] != Unpaired || db[p[0]] != '.' || db[p[1]] != '.' {
				t.Fatalf("omitted pair %v shown as %c%c", p, db[p[0]], db[p[1]])
			}
		case back.Partner[p[0]] != p[1] || db[p[0]] != bracketKinds[k][0] || db[p[1]] != bracketKinds[k][1]:
			t.Fatalf("pair %v of level %d written as %c%c", p, k, db[p[0]], db[p[1]])
		default:
			shown++
		}
	}
	if shown+omitted != len(want) || len(back.Pairs()) != shown {
		t.Fatalf("%d pairs: %d shown, %d read back, %d reported omitted", len(want), shown, len(back.Pairs()), omitted)
	}
	return back
}

// 40 mutually crossing pairs need 40 levels: the first 30 are written
// with every bracket kind, the last 10 are left out and counted, and the
// file says so in a comment that reading skips.
func TestDotBracketTooManyLevels(t *testing.T) {
	var pairs [][2]int
	for i := 0; i < 40; i++ {
		pairs = append(pairs, [2]int{i, i + 40})
	}
	s, err := New("knots", strings.Repeat("A", 40)+strings.Repeat("U", 40), pairs)
	if err != nil {
		t.Fatal(err)
	}
	db, omitted, err := DotBracketOmitted(s)
	if err != nil || omitted != 10 {
		t.Fatalf("omitted %d, %v; want 10", omitted, err)
	}
	checkDotBracket(t, s, db, omitted)
	if db[:30] != "([{<ABCDEFGHIJKLMNOPQRSTUVWXYZ" || db[30:40] != ".........." || db[70:] != ".........." {
		t.Errorf("dot-bracket %s", db)
	}
	var buf bytes.Buffer
	if err := WriteDotBracket(&buf, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\n# 10 base pairs omitted: more pseudoknot levels than 30 bracket kinds") {
		t.Errorf("no comment on the omitted pairs:\n%s", buf.String())
	}
	back, err := ReadDotBracket(&buf, "knots.db")
	if err != nil || len(back.Pairs()) != 30 || back.Name != "knots" {
		t.Fatalf("read back: %v", err)
	}
}

// Random 2,000-nt pairings (far beyond 30 levels) write without error,
// with the pairs of every level shown and the rest counted; structures
// that fit read back equal and get no comment.
func TestDotBracketRandomPairing(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 5; trial++ {
		s := randomPairing(r, 2000, 0.5+0.5*r.Float64())
		db, omitted, err := DotBracketOmitted(s)
		if err != nil {
			t.Fatal(err)
		}
		if omitted == 0 {
			t.Fatal("a random 2,000-nt pairing fitted 30 levels: the test shows nothing")
		}
		checkDotBracket(t, s, db, omitted)
		var buf bytes.Buffer
		if err := WriteDotBracket(&buf, s); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), fmt.Sprintf("# %d base pairs omitted", omitted)) {
			t.Error("no comment")
		}
	}
	for trial := 0; trial < 200; trial++ {
		s := randomPairing(r, 1+r.IntN(60), r.Float64())
		db, omitted, err := DotBracketOmitted(s)
		if err != nil {
			t.Fatal(err)
		}
		back := checkDotBracket(t, s, db, omitted)
		if omitted == 0 && !Equal(back, s) {
			t.Fatal("round trip changed the pairs")
		}
		var buf bytes.Buffer
		if err := WriteDotBracket(&buf, s); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "#") != (omitted > 0) {
			t.Fatalf("comment line with %d omitted:\n%s", omitted, buf.String())
		}
	}
}
