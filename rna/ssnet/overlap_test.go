package ssnet

import (
	"math"
	"testing"

	"github.com/contactmap/contactmap/rna"
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

func mol(name, seq string) Molecule {
	return Molecule{Structure: &rna.Structure{Name: name, Seq: seq, Partner: make([]int, len(seq))}}
}

func TestOverlaps(t *testing.T) {
	refs := []Molecule{mol("r1", "GGGGAAAACCCCUUUUGGGGAAAACCCC"), mol("r2", "ACGUACGUACGUACGUACGUACGUACGU")}
	qs := []Molecule{mol("same", "ACGUACGUACGUACGUACGUACGUACGU"), mol("near", "GGGGAAAACCCCUUAUGGGGAAAACCCC"), mol("far", "UUUUUUUUUUUUUUUUUUUUUUUUUUUU")}
	o := Overlaps(qs, refs)
	if !o[0].Exact || o[0].Nearest != "r2" {
		t.Errorf("identical: %+v", o[0])
	}
	if o[1].Exact || o[1].Nearest != "r1" || math.Abs(o[1].Identity-27.0/28) > 1e-12 {
		t.Errorf("one substitution: %+v", o[1])
	}
	if o[2].Identity >= NearIdentical {
		t.Errorf("unrelated: %+v", o[2])
	}
	// 27/28 = 0.964 is near-identical too: only "far" is disjoint.
	if d := Disjoint(o); d["same"] || d["near"] || !d["far"] || len(d) != 3 {
		t.Errorf("Disjoint: %v", d)
	}
}
