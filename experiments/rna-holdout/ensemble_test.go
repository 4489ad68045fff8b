package main

import (
	"slices"
	"testing"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// The ensemble's structure is the decoder's on the mean of its
// networks' probabilities, and the networks' own probabilities are
// left as they were.
func TestMeanPredictor(t *testing.T) {
	var ms []*ssnet.Model
	for _, seed := range []uint64{1, 2} {
		m, err := ssnet.NewModel(ssnet.SCNN, ssnet.Default, seed)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	st, err := rna.New("m", "GGGGAAACCCCAUGGCCUUCGGGCCAGCGGAUUUAGCUC", nil)
	if err != nil {
		t.Fatal(err)
	}
	mol := &ssnet.Molecule{Structure: st}
	p1, err := ms[0].ProbabilitiesFor(mol, 1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := ms[1].ProbabilitiesFor(mol, 1)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(p1, p2) {
		t.Fatal("two seeds give the same probabilities: the test cannot tell a mean from either")
	}
	mean := make([]float32, len(p1))
	for k := range p1 {
		mean[k] = (p1[k] + p2[k]) * 0.5
	}
	paired := 0
	for _, d := range []ssnet.Decoder{ssnet.Greedy, ssnet.MEA} {
		want, err := d.Decode(mol.Name, mol.Seq, mean)
		if err != nil {
			t.Fatal(err)
		}
		paired += len(want.Pairs())
		got, err := meanPredictor(ms, d)(mol)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Pairs(), want.Pairs()) {
			t.Errorf("%s: pairs %v, want %v", d, got.Pairs(), want.Pairs())
		}
	}
	if paired == 0 {
		t.Fatal("no decoder finds a pair in the mean: the test cannot tell structures apart")
	}
	again, err := ms[0].ProbabilitiesFor(mol, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again, p1) {
		t.Error("the ensemble changed a network's probabilities")
	}
}
