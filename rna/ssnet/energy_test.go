package ssnet

import (
	"bytes"
	"compress/gzip"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/scnn"
)

// yeastPhe is yeast tRNA-Phe (76 nt).
const yeastPhe = "GCGGAUUUAGCUCAGUUGGGAGAGCGCCAGACUGAAGAUCUGGAGGUCCUGUGUUCGAUCCACAGAAUUCGCACCA"

// Energy channels: channel 0 is exactly the MFE structure of rna/fold at
// the window's bases (a pair crop included), channel 1 the AU/CG/GU
// pairs at least 4 apart; both symmetric, zero on the diagonal, after
// the template channels when both are present, and the packed layout
// equals the full one packed.
func TestEnergyChannels(t *testing.T) {
	st, _, err := fold.MFE(yeastPhe)
	if err != nil {
		t.Fatal(err)
	}
	mol := Molecule{Structure: &rna.Structure{Name: "phe", Seq: yeastPhe, Partner: make([]int, len(yeastPhe))}}
	for i := range mol.Partner {
		mol.Partner[i] = -1
	}
	set := []Molecule{mol}
	if err := AttachMFE(context.Background(), set, nil, 1, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(set[0].MFE, st.Partner) {
		t.Fatal("attached MFE differs from fold.MFE")
	}
	set[0].Template = nil
	w := Window{Mol: &set[0], Start: 0, Len: 30, Start2: 40, Len2: 30}
	energyOnly := Inputs2D{Energy: true}
	spec := Default.Spec(CNN)
	spec.In2D = energyOnly.Width()
	full, err := window2D([]Window{w}, 60, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for a := 0; a < 60; a++ {
		for b := 0; b < 60; b++ {
			i, j := w.Index(a), w.Index(b)
			mfe := a != b && st.Partner[i] == j
			can := a != b && (i-j > 3 || j-i > 3) && canPair(yeastPhe[i], yeastPhe[j])
			if got := full.At(0, a, b, 0) == 1; got != mfe {
				t.Fatalf("MFE channel at (%d, %d): %v, want %v", a, b, got, mfe)
			}
			if got := full.At(0, a, b, 1) == 1; got != can {
				t.Fatalf("pair channel at (%d, %d) (%c%c): %v, want %v", a, b, yeastPhe[i], yeastPhe[j], got, can)
			}
			for c := 0; c < EnergyChannels; c++ {
				if full.At(0, a, b, c) != full.At(0, b, a, c) {
					t.Fatalf("channel %d not symmetric at (%d, %d)", c, a, b)
				}
			}
			if mfe {
				pairs++
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no MFE pair in the window")
	}
	sym := Default.Spec(SCNN)
	sym.In2D = spec.In2D
	packed, err := window2D([]Window{w}, 60, sym, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := scnn.Pack(full)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(packed.Data, want.Data) {
		t.Fatal("packed energy channels differ from the packed full map")
	}

	// With a template: channels 0-2 as the template network's, 3-4 the
	// energy channels above.
	ix := TemplateRefs([]Molecule{mol})
	set[0].Template = nil
	if err := AttachTemplates(context.Background(), set, ix, false, 0); err != nil {
		t.Fatal(err)
	}
	both, err := window2D([]Window{w}, 60, Families.Spec(CNN), nil)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := window2D([]Window{w}, 60, Template.Spec(CNN), nil)
	if err != nil {
		t.Fatal(err)
	}
	for a := 0; a < 60; a++ {
		for b := 0; b < 60; b++ {
			for c := 0; c < TemplateChannels; c++ {
				if both.At(0, a, b, c) != tmpl.At(0, a, b, c) {
					t.Fatalf("template channel %d at (%d, %d) differs", c, a, b)
				}
			}
			for c := 0; c < EnergyChannels; c++ {
				if both.At(0, a, b, TemplateChannels+c) != full.At(0, a, b, c) {
					t.Fatalf("energy channel %d at (%d, %d) differs", c, a, b)
				}
			}
		}
	}
	// A molecule without its MFE attached is refused.
	set[0].MFE = nil
	if _, err := window2D([]Window{w}, 60, Families.Spec(CNN), nil); err == nil || !strings.Contains(err.Error(), "phe: no MFE") {
		t.Fatalf("%v, want an error naming the molecule", err)
	}
}

// A network with energy channels folds the sequence itself at inference:
// ProbabilitiesWith (folding) equals ProbabilitiesFor with the MFE
// attached, bit for bit.
func TestEnergyInference(t *testing.T) {
	m, err := NewModel(SCNN, Families, 3)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := m.ProbabilitiesWith(yeastPhe, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	mol := Molecule{Structure: &rna.Structure{Name: "phe", Seq: yeastPhe}}
	set := []Molecule{mol}
	if err := AttachMFE(context.Background(), set, nil, 1, nil); err != nil {
		t.Fatal(err)
	}
	set[0].Template = &homology.Template{}
	p2, err := m.ProbabilitiesFor(&set[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p1, p2) {
		t.Fatal("inference with the MFE folded differs from the attached one")
	}
}

// The MFE cache gives fold's structure, marks itself changed only when
// it folded, and round-trips through its file.
func TestMFECache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mfe.tsv.gz")
	c, err := ReadMFECache(path) // no file yet: empty
	if err != nil || c.Len() != 0 {
		t.Fatalf("%v, %d", err, c.Len())
	}
	seqs := []string{yeastPhe, "GGGGAAACCCC", "AAAA"}
	var want [][]int
	for _, s := range seqs {
		p, err := c.Partners(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		st, _, err := fold.MFE(s)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p, st.Partner) {
			t.Fatalf("%s: cache %v, fold %v", s, p, st.Partner)
		}
		want = append(want, p)
	}
	if !c.Changed() || c.Len() != 3 {
		t.Fatal("a cache that folded says it did not")
	}
	if err := c.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadMFECache(path)
	if err != nil {
		t.Fatal(err)
	}
	for k, s := range seqs {
		p, err := back.Partners(s, 1)
		if err != nil || !slices.Equal(p, want[k]) {
			t.Fatalf("%s after the round trip: %v %v", s, p, err)
		}
	}
	if back.Changed() {
		t.Fatal("a cache that held every structure folded one")
	}
}

// A corrupt cache is refused with the file and the line.
func TestReadMFECacheErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"abc\t1-2\n", "line 1: want KEY<TAB>PAIRS"},
		{strings.Repeat("a", 32) + "\t1-2\n" + strings.Repeat("b", 32) + "\t5-3\n", `line 2: bad pair "5-3"`},
		{strings.Repeat("a", 32) + "\tx\n", `line 1: bad pair "x"`},
	} {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(c.text))
		zw.Close()
		path := filepath.Join(t.TempDir(), "c.gz")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadMFECache(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	// A cached pair beyond the sequence (a collision or corruption) is an
	// error, not an index panic.
	c := NewMFECache()
	c.m[mfeKey("ACGU")] = []int32{0, 9}
	if _, err := c.Partners("ACGU", 1); err == nil {
		t.Error("a pair beyond the sequence was accepted")
	}
}

// Sampling: a set of one group draws as it did before groups existed
// (one draw of the stream per molecule), and a set of two groups draws
// each about half of the time however unequal their sizes.
func TestSamplerGroups(t *testing.T) {
	set := make([]Molecule, 100)
	s := newSampler(set)
	r1, r2 := rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 1))
	for k := 0; k < 50; k++ {
		if s.draw(r1) != &set[r2.IntN(len(set))] {
			t.Fatal("one group draws otherwise than uniformly over the set")
		}
	}
	for i := 90; i < 100; i++ {
		set[i].Group = 1
	}
	s = newSampler(set)
	small := 0
	for k := 0; k < 4000; k++ {
		if s.draw(r1).Group == 1 {
			small++
		}
	}
	if small < 1800 || small > 2200 {
		t.Fatalf("the group of 10 of 100 drawn %d times in 4000", small)
	}
}

// Validation over several files is the mean of their means.
func TestGroupMeans(t *testing.T) {
	set := []Molecule{{Group: 0}, {Group: 1}, {Group: 1}, {Group: 1}}
	sc := make([]MolScore, 4)
	for k, v := range []float64{0.9, 0.1, 0.2, 0.3} {
		sc[k].Exact.Accuracy, sc[k].Exact.F1 = v, v/2
	}
	acc, f1 := groupMeans(set, sc)
	if want := (0.9 + 0.2) / 2; acc < want-1e-12 || acc > want+1e-12 || f1 < want/2-1e-12 || f1 > want/2+1e-12 {
		t.Fatalf("acc %g f1 %g, want %g and %g", acc, f1, want, want/2)
	}
}
