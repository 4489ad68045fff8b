package main

import (
	"slices"
	"testing"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// The centroid and MEA decoded from one shared partition function are
// the structures of ssnet's centroid predictor and of a fresh partition
// function's MEA, molecule by molecule, whatever the order of the calls.
func TestEnsembleDecodings(t *testing.T) {
	set := []ssnet.Molecule{
		{Structure: &rna.Structure{Name: "a", Seq: "GGGGAAACCCCAUCGAUCGGCGCAAAAGCGCC"}},
		{Structure: &rna.Structure{Name: "b", Seq: "GCGCUUCGGCGCAAGGGAUUCCCUUAAGGGAUCCCU"}},
		{Structure: &rna.Structure{Name: "a", Seq: "ACGUACGUAGCUAGCUAGGGCCCAAAGGGCCCUA"}}, // same name, other sequence
	}
	ens := newEnsembleDecodings()
	paired := 0
	for _, k := range []int{2, 0, 1} {
		m := &set[k]
		d, err := ens.get(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ssnet.CentroidPredictor()(m)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.centroid.Pairs(), want.Pairs()) || d.centroid.Name != m.Name {
			t.Errorf("%s (%d): centroid %v, want %v", m.Name, k, d.centroid.Pairs(), want.Pairs())
		}
		e, err := fold.DefaultParams().Partition(m.Seq, 1)
		if err != nil {
			t.Fatal(err)
		}
		mea, _, err := e.MEA(1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(d.mea.Pairs(), mea.Pairs(), func(a, b [2]int) bool { return a == b }) {
			t.Errorf("%s (%d): MEA %v, want %v", m.Name, k, d.mea.Pairs(), mea.Pairs())
		}
		paired += len(d.centroid.Pairs()) + len(d.mea.Pairs())
		if again, _ := ens.get(m); again != d {
			t.Errorf("%s (%d): decoded twice", m.Name, k)
		}
	}
	if paired == 0 {
		t.Error("no pairs in any structure: the comparison is empty")
	}
	if len(ens.m) != 3 {
		t.Errorf("%d entries, want 3 (one per name and sequence)", len(ens.m))
	}
}
