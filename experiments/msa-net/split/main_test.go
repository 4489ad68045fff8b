package main

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestComponents(t *testing.T) {
	edges := [][2]int{{5, 3}, {0, 3}, {2, 1}, {6, 6}}
	want := [][]int{{0, 3, 5}, {1, 2}, {4}, {6}}
	if got := components(7, edges); !reflect.DeepEqual(got, want) {
		t.Errorf("components = %v, want %v", got, want)
	}
	// The edges' order does not matter; a chain joins transitively.
	slices.Reverse(edges)
	if got := components(7, edges); !reflect.DeepEqual(got, want) {
		t.Errorf("components of the reversed edges = %v, want %v", got, want)
	}
	chain := [][2]int{{0, 1}, {2, 3}, {1, 2}, {3, 4}}
	if got := components(5, chain); !reflect.DeepEqual(got, [][]int{{0, 1, 2, 3, 4}}) {
		t.Errorf("components of a chain = %v, want one component", got)
	}
}

func TestGroupsOf(t *testing.T) {
	fams := []family{
		{id: "1aaaA", source: PSICOV, dupOf: -1},
		{id: "1bbbA", source: PSICOV, dupOf: -1},
		{id: "1BBB_A", source: Pfam, dupOf: 1}, // the same protein as 1bbbA
		{id: "2CCC_A", source: Pfam, dupOf: -1},
		{id: "1DDD_A", source: Pfam, dupOf: -1},
	}
	gs := groupsOf(fams, [][2]int{{3, 1}})
	want := []group{
		{key: "1aaaA", members: []int{0}, families: 1, psicov: 1},
		{key: "1BBB_A", members: []int{1, 2, 3}, families: 2, psicov: 1},
		{key: "1DDD_A", members: []int{4}, families: 1, psicov: 0},
	}
	if !reflect.DeepEqual(gs, want) {
		t.Errorf("groupsOf = %+v, want %+v", gs, want)
	}
}

// syntheticGroups makes n groups of 1-3 families, every fifth without a
// PSICOV family.
func syntheticGroups(n int) []group {
	var gs []group
	for i := range n {
		size := 1 + i%3
		g := group{key: fmt.Sprintf("%dxyz%c", i, 'A'+i%26), families: size, psicov: size}
		if i%5 == 4 {
			g.psicov = 0
		}
		for k := range size {
			g.members = append(g.members, 3*i+k)
		}
		gs = append(gs, g)
	}
	return gs
}

func TestAssignDeterministic(t *testing.T) {
	gs := syntheticGroups(60)
	first := assign(gs, DefaultTargets)
	if again := assign(gs, DefaultTargets); !reflect.DeepEqual(first, again) {
		t.Fatalf("assign differs between two calls:\n%v\n%v", first, again)
	}
	// The input's order does not matter: a group keeps its side.
	bySplit := map[string]string{}
	for i, g := range gs {
		bySplit[g.key] = first[i]
	}
	perm := slices.Clone(gs)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	for i, s := range assign(perm, DefaultTargets) {
		if want := bySplit[perm[i].key]; s != want {
			t.Errorf("group %s: %s after shuffling the input, %s before", perm[i].key, s, want)
		}
	}
}

func TestAssignTargets(t *testing.T) {
	gs := syntheticGroups(60) // 120 families
	splits := assign(gs, DefaultTargets)
	count := map[string]int{}
	psicov := map[string]int{}
	for i, g := range gs {
		count[splits[i]] += g.families
		psicov[splits[i]] += g.psicov
		if g.psicov == 0 && splits[i] != Train {
			t.Errorf("Pfam-only group %s on %s", g.key, splits[i])
		}
	}
	// Targets: round(0.2 x 120) = 24 and round(0.15 x 120) = 18, with at
	// most one group (3 families) more.
	if count[Test] < 24 || count[Test] > 26 || psicov[Test] < DefaultTargets.MinTestPSICOV {
		t.Errorf("test: %d families, %d PSICOV; want 24-26 and >= %d PSICOV", count[Test], psicov[Test], DefaultTargets.MinTestPSICOV)
	}
	if count[Validation] < 18 || count[Validation] > 20 {
		t.Errorf("validation: %d families, want 18-20", count[Validation])
	}
	if count[Train] != 120-count[Test]-count[Validation] {
		t.Errorf("train: %d families of 120 (test %d, validation %d)", count[Train], count[Test], count[Validation])
	}
	// The PSICOV minimum can push test past its share.
	few := assign(gs, Targets{Test: 0.01, Validation: 0.15, MinTestPSICOV: 20})
	n := 0
	for i, g := range gs {
		if few[i] == Test {
			n += g.psicov
		}
	}
	if n < 20 {
		t.Errorf("test holds %d PSICOV families with MinTestPSICOV 20", n)
	}
}

// TestGroupsNeverSplit runs the grouping and the assignment together on
// families joined by random edges: both ends of every edge must land on
// the same side.
func TestGroupsNeverSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var fams []family
	for i := range 150 {
		src := PSICOV
		if i%4 == 0 {
			src = Pfam
		}
		fams = append(fams, family{id: fmt.Sprintf("f%03d", i), source: src, dupOf: -1})
	}
	fams[1].dupOf, fams[1].source = 2, Pfam
	var edges [][2]int
	for range 60 {
		edges = append(edges, [2]int{rng.IntN(len(fams)), rng.IntN(len(fams))})
	}
	gs := groupsOf(fams, edges)
	splits := assign(gs, DefaultTargets)
	side := make([]string, len(fams))
	seen := 0
	for i, g := range gs {
		for _, m := range g.members {
			side[m] = splits[i]
			seen++
		}
	}
	if seen != len(fams) {
		t.Fatalf("groups hold %d families, want %d", seen, len(fams))
	}
	for _, e := range append(edges, [2]int{1, 2}) {
		if side[e[0]] != side[e[1]] {
			t.Errorf("%s on %s but its homolog %s on %s", fams[e[0]].id, side[e[0]], fams[e[1]].id, side[e[1]])
		}
	}
}

// Human ubiquitin and calmodulin's first 76 residues: no relation.
const (
	ubiquitin  = "MQIFVKTLTGKTITLEVEPSDTIENVKAKIQDKEGIPPDQQRLIFAGKQLEDGRTLSDYNIQKESTLHLVLRLRGG"
	calmodulin = "MADQLTEEQIAEFKEAFSLFDKDGDGTITTKELGTVMRSLGQNPTEAELQDMINEVDADGNGTIDFPEFLTMMARK"
)

// dbLen is about the length of all the families' queries.
const dbLen = 18000

func TestRuleHomologous(t *testing.T) {
	r := DefaultRule
	// A copy, and a copy with every fourth residue changed, are homologous.
	mutated := []byte(ubiquitin)
	for i := 0; i < len(mutated); i += 4 {
		mutated[i] = "AW"[i%8/4]
		if mutated[i] == ubiquitin[i] {
			mutated[i] = 'G'
		}
	}
	for name, b := range map[string]string{"identical": ubiquitin, "75% identical": string(mutated)} {
		c, m, err := r.Test(ubiquitin, b, dbLen)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Homologous(c) || c&BySignificance == 0 {
			t.Errorf("%s: criteria %v (%+v), want significant and homologous", name, c, m)
		}
	}
	c, m, err := r.Test(ubiquitin, ubiquitin, dbLen)
	if err != nil {
		t.Fatal(err)
	}
	if m.Identity != 1 || m.Coverage != 1 || m.Residues != len(ubiquitin) || c != ByCoverage|ByLong|BySignificance {
		t.Errorf("identical: %+v, criteria %v; want identity and coverage 1, %d residues, coverage+long+significant", m, c, len(ubiquitin))
	}

	// Shuffled copies and an unrelated protein are not.
	rng := rand.New(rand.NewPCG(31, 3))
	for k := range 5 {
		s := shuffled(ubiquitin, rng)
		if c, m, err := r.Test(ubiquitin, s, dbLen); err != nil || r.Homologous(c) {
			t.Errorf("shuffled %d (%s): criteria %v (%+v, err %v), want not homologous", k, s, c, m, err)
		}
	}
	if c, m, err := r.Test(ubiquitin, calmodulin, dbLen); err != nil || r.Homologous(c) {
		t.Errorf("ubiquitin and calmodulin: criteria %v (%+v, err %v), want not homologous", c, m, err)
	}
}

func TestClassify(t *testing.T) {
	r := DefaultRule
	for _, tc := range []struct {
		m    Match
		want Criteria
	}{
		{Match{Residues: 30, Identity: 0.25, Coverage: 0.5, EValue: 1}, ByCoverage},
		{Match{Residues: 30, Identity: 0.249, Coverage: 0.9, EValue: 1}, 0},
		{Match{Residues: 40, Identity: 0.30, Coverage: 0.4, EValue: 1}, ByLong},
		{Match{Residues: 39, Identity: 0.50, Coverage: 0.4, EValue: 1}, 0},
		{Match{Residues: 20, Identity: 0.1, Coverage: 0.1, EValue: 0.009}, BySignificance},
		{Match{Residues: 20, Identity: 0.1, Coverage: 0.1, EValue: 0.01}, 0},
	} {
		if got := r.Classify(tc.m); got != tc.want {
			t.Errorf("Classify(%+v) = %v, want %v", tc.m, got, tc.want)
		}
	}
	if r.Homologous(ByCoverage|ByLong) || !r.Homologous(ByShared) || !r.Homologous(BySignificance) {
		t.Error("DefaultRule: only significance and shared members decide")
	}
	if got := (ByCoverage | ByShared).String(); got != "coverage+shared" {
		t.Errorf("String = %q", got)
	}
}

func TestSharedMembers(t *testing.T) {
	long := "ACDEFGHIKLMNPQRSTVWYACDEFGHIKLMNPQ" // 34 residues
	a := memberHashes([][]byte{[]byte("AC-DEFGHIKLMNPQRSTVWYACDEFGHIKLMNPQ--"), []byte("ACDEF-----")}, 30)
	b := memberHashes([][]byte{[]byte(long), []byte(long), []byte("ACDEF"), []byte("WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW")}, 30)
	if len(a) != 1 || len(b) != 2 {
		t.Fatalf("hashes: %d and %d, want 1 (the short row dropped) and 2 (the copy once)", len(a), len(b))
	}
	if n := sharedCount(a, b); n != 1 {
		t.Errorf("sharedCount = %d, want 1 (gaps removed before comparing)", n)
	}
	c := memberHashes([][]byte{[]byte(long[1:])}, 30)
	if n := sharedCount(a, c); n != 0 {
		t.Errorf("sharedCount with a shorter sequence = %d, want 0", n)
	}
}

func TestProteinKey(t *testing.T) {
	for id, want := range map[string]string{"1ctfA": "1CTF_A", "1CTF_A": "1CTF_A", "1tzvA": "1TZV_A", "2PPN_A": "2PPN_A"} {
		if got := proteinKey(id); got != want {
			t.Errorf("proteinKey(%q) = %q, want %q", id, got, want)
		}
	}
}
