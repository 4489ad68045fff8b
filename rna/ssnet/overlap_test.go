package ssnet

import (
	"math"
	"testing"

	"github.com/contactmap/contactmap/rna"
)

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

// FilterSimilar drops a fragment of an evaluated molecule (local
// identity over the shorter sequence) and an identical sequence (named
// by the first molecule that holds it), and keeps the unrelated.
func TestFilterSimilar(t *testing.T) {
	long := "GGGGAAAACCCCUUUUGGGGAAAACCCCACGUACGUAAGGCCUUAGCUAGCUAGGAUCCAUG"
	against := []Molecule{mol("a1", long), mol("a2", "ACGUACGUACGUACGUACGUACGUACGU"), mol("a3", "ACGUACGUACGUACGUACGUACGUACGU")}
	set := []Molecule{mol("frag", long[10:40]), mol("dup", "ACGUACGUACGUACGUACGUACGUACGU"), mol("far", "UUUUUUUUUUUUUUUUUUUUUUUUUUUU")}
	kept, dropped := FilterSimilar(set, against, 0.8)
	if len(kept) != 1 || kept[0].Name != "far" {
		t.Errorf("kept %v, want far only", kept)
	}
	if len(dropped) != 2 || dropped[0] != (Overlap{Name: "frag", Nearest: "a1", Identity: 1}) || dropped[1] != (Overlap{Name: "dup", Nearest: "a2", Identity: 1, Exact: true}) {
		t.Errorf("dropped %+v, want frag (a1, 1) and dup (a2, exact)", dropped)
	}
}
