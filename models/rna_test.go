package models

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna/ssnet"
	"github.com/contactmap/contactmap/scnn"
)

// Every line of the table of shipped RNA models loads: its model file is
// embedded and is the SCNN it names, its references are the files it was
// trained on (its record's training data) in that order and load with
// their counts, and its decoder is the one shipped today. Every embedded
// RNA model file has its line.
func TestShippedRNATable(t *testing.T) {
	// name: reference molecules, default decoder.
	want := map[string]struct {
		refs    int
		decoder ssnet.Decoder
	}{
		"rna-scnn-bpp-global-3seeds": {11341, ssnet.Greedy},
		"rna-scnn-bpp-global-seed1":  {11341, ssnet.Greedy},
		"rna-scnn-bpp-global-seed3":  {11341, ssnet.Greedy},
		"rna-scnn-bpp-global":        {11341, ssnet.Greedy},
		"rna-scnn-bpp":               {11341, ssnet.Greedy},
		"rna-scnn":                   {11341, ssnet.Greedy},
		"bprna":                      {11341, ssnet.Greedy},
		"rna-scnn-16s":               {550, ssnet.Greedy},
		"rna-scnn-seq":               {550, ssnet.Greedy},
	}
	if !slices.Equal(RNANames(), []string{"bprna", "rna-scnn", "rna-scnn-16s", "rna-scnn-bpp", "rna-scnn-bpp-global", "rna-scnn-bpp-global-3seeds", "rna-scnn-bpp-global-seed1", "rna-scnn-bpp-global-seed3", "rna-scnn-seq"}) {
		t.Fatalf("shipped RNA models %v", RNANames())
	}
	if _, err := ShippedRNA(DefaultRNA); err != nil {
		t.Fatalf("default %s: %v", DefaultRNA, err)
	}
	for _, name := range RNANames() {
		sm, err := ShippedRNA(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(sm.Members) > 0 { // an ensemble: its members are lines of the table, with its references
			if _, _, err := LoadRNA(name); err == nil {
				t.Errorf("%s: an ensemble loaded as one network", name)
			}
			for _, mem := range sm.Members {
				ms, err := ShippedRNA(mem)
				if err != nil || len(ms.Members) > 0 || !slices.Equal(ms.Refs, sm.Refs) {
					t.Errorf("%s: member %s: %+v, %v", name, mem, ms, err)
				}
			}
			if got, ok := RNAShipped().Members(name); !ok || !slices.Equal(got, sm.Members) {
				t.Errorf("%s: RNAShipped's members %v", name, got)
			}
		}
		m, from, err := LoadRNA(sm.member0())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(from, "shipped "+sm.member0()) || m.Record.Kind != ssnet.SCNN {
			t.Errorf("%s: from %q, record %+v", name, from, m.Record)
		}
		var trained []string
		for _, f := range strings.Split(m.Record.Data, ",") {
			trained = append(trained, filepath.ToSlash(filepath.Clean(strings.TrimSpace(f))))
		}
		if !slices.Equal(sm.Refs, trained) {
			t.Errorf("%s: references %v, trained on %v", name, sm.Refs, trained)
		}
		refs, desc, err := RNARefsFor(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(refs) != want[name].refs || desc != strings.Join(sm.Refs, ", ")+" (built in)" {
			t.Errorf("%s: %d references from %q, want %d from %v", name, len(refs), desc, want[name].refs, sm.Refs)
		}
		if d := RNADefaultDecoder(name); d != want[name].decoder || d != sm.Decoder {
			t.Errorf("%s: default decoder %q, want %q", name, d, want[name].decoder)
		}
		if _, err := ssnet.ParseDecoder(string(sm.Decoder)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	files, err := fs.Glob(rnaModelFS, "*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, err := ShippedRNA(strings.TrimSuffix(f, ".scnn")); err != nil {
			t.Errorf("embedded %s has no line in the table: %v", f, err)
		}
	}
	files2 := 0 // names with a file of their own
	for _, m := range rnaTable {
		if len(m.Members) > 0 {
			continue
		}
		if m.Same == "" {
			files2++
		} else if _, err := ShippedRNA(m.Same); err != nil {
			t.Errorf("%s: the same network as %s, which is not shipped", m.Name, m.Same)
		}
	}
	if len(files) != files2 {
		t.Errorf("embedded RNA model files %v, want %d", files, files2)
	}
}

// A model file, or no model (homology transfer), gets the 16S training
// set and greedy decoding; an unknown name is no shipped model.
func TestRNADefaultsOfAModelFile(t *testing.T) {
	for _, name := range []string{"", "runs/rna/template/scnn-seed1/model.scnn"} {
		refs, desc, err := RNARefsFor(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) != 550 || desc != "data/rna/16s-finaltrain.txt (built in)" {
			t.Errorf("%q: %d references from %q", name, len(refs), desc)
		}
		if d := RNADefaultDecoder(name); d != ssnet.Greedy {
			t.Errorf("%q: decoder %q", name, d)
		}
	}
	if _, err := ShippedRNA("rna-no-such"); !errors.Is(err, errNotShippedRNA) {
		t.Errorf("unknown name: %v", err)
	}
	if _, _, err := RNARefFile("data/rna/16s-finalvalid.txt"); err == nil {
		t.Error("a reference file without an embedded copy read")
	}
}

// The embedded reference files are the training files: bpRNA TR0
// deduplicated byte for byte (10,791 molecules), the 16S set molecule for
// molecule; several read as training reads them (ssnet.ReadSets), in the
// order listed, each a group.
func TestEmbeddedRNARefsAreTheTrainingFiles(t *testing.T) {
	tr0, copyName, err := RNARefFile(RNARefsTR0Dedup)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(RNARefsTR0Dedup)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tr0, disk) || copyName != "models/rna-refs-tr0-dedup.dbn.gz" {
		t.Fatalf("%s (%d bytes) is not %s (%d bytes)", copyName, len(tr0), RNARefsTR0Dedup, len(disk))
	}
	for _, names := range [][]string{
		{RNARefs16S},
		{RNARefsTR0Dedup},
		{RNARefs16S, RNARefsTR0Dedup},
		{RNARefsTR0Dedup, RNARefs16S},
	} {
		got, err := readRNARefs(slices.Clone(names))
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		n := 0
		for _, name := range names {
			files = append(files, filepath.Join("..", filepath.FromSlash(name)))
			n += map[string]int{RNARefs16S: 550, RNARefsTR0Dedup: 10791}[name]
		}
		want, err := ssnet.ReadSets(files)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n || len(want) != n {
			t.Fatalf("%v: %d embedded molecules, %d in the files, want %d", names, len(got), len(want), n)
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Name != w.Name || g.Seq != w.Seq || !slices.Equal(g.Partner, w.Partner) || g.Family != w.Family || g.Group != w.Group {
				t.Fatalf("%v: molecule %d (%s, group %d) differs from the files' (%s, group %d)", names, i, g.Name, g.Group, w.Name, w.Group)
			}
		}
	}
}

// One line in the table ships a model with several reference files and
// another decoder: its references are both files in order, its decoder
// the line's; a line whose model file is missing fails to load, with an
// error, rather than at start.
func TestRNATableLine(t *testing.T) {
	saved := rnaTable
	t.Cleanup(func() { rnaTable = saved })
	rnaTable = append(slices.Clone(saved), RNAModel{Name: "rna-scnn-two", Refs: []string{RNARefs16S, RNARefsTR0Dedup}, Decoder: ssnet.MEA})
	refs, desc, err := RNARefsFor("rna-scnn-two")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 550+10791 || refs[0].Group != 0 || refs[550].Group != 1 || !strings.HasPrefix(refs[550].Name, "bpRNA_") ||
		desc != "data/rna/16s-finaltrain.txt, experiments/rna-families/tr0-dedup.dbn.gz (built in)" {
		t.Errorf("%d references (groups %d, %d) from %q", len(refs), refs[0].Group, refs[len(refs)-1].Group, desc)
	}
	if d := RNADefaultDecoder("rna-scnn-two"); d != ssnet.MEA {
		t.Errorf("decoder %q", d)
	}
	if !slices.Contains(RNANames(), "rna-scnn-two") {
		t.Errorf("names %v", RNANames())
	}
	if _, _, err := LoadRNA("rna-scnn-two"); err == nil || !strings.Contains(err.Error(), "rna-scnn-two") {
		t.Errorf("a line without its model file: %v", err)
	}
}

// Every shipped RNA model's probabilities agree within 1e-5
// on every kernel set this machine runs. On an AVX-512 machine that
// compares the direct convolution of narrow layers (the AVX-512 set's)
// with the output-side and im2col methods the other sets use, which
// sum in other orders.
func TestShippedRNAModelsAgreeAcrossKernelSets(t *testing.T) {
	sets := scnn.KernelSets()
	if len(sets) < 2 {
		t.Skipf("one kernel set here (%v)", sets)
	}
	defer scnn.SetKernels("")
	rng := rand.New(rand.NewPCG(29, 29))
	seq := make([]byte, 150)
	for i := range seq {
		seq[i] = "ACGU"[rng.IntN(4)]
	}
	for _, line := range rnaTable {
		if len(line.Members) > 0 {
			continue // its members are lines of their own
		}
		b, err := line.File()
		if err != nil {
			t.Fatal(err)
		}
		m, err := ssnet.ReadModel(bytes.NewReader(b), line.Name)
		if err != nil {
			t.Fatal(err)
		}
		var ref []float32
		for _, set := range sets {
			if err := scnn.SetKernels(set); err != nil {
				t.Fatal(err)
			}
			p, err := m.ProbabilitiesWith(string(seq), nil, 2)
			if err != nil {
				t.Fatalf("%s, %s kernels: %v", line.Name, set, err)
			}
			if ref == nil {
				ref = p
				continue
			}
			worst := 0.0
			for i := range p {
				worst = max(worst, math.Abs(float64(p[i]-ref[i])))
			}
			t.Logf("%s: %s kernels against %s: max |difference| %.2g", line.Name, set, sets[0], worst)
			if worst > 1e-5 {
				t.Errorf("%s: %s kernels differ from %s by %g", line.Name, set, sets[0], worst)
			}
		}
	}
}

// rna-scnn-bpp-global is rna-scnn-bpp's network under the global-600
// rule of its ensemble channel (trial 10 of experiments/rna-holdout):
// the same parameters, and a record that differs only in the rule.
func TestBppGlobalIsBppUnderTheRule(t *testing.T) {
	g, _, err := LoadRNA("rna-scnn-bpp-global")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := LoadRNA("rna-scnn-bpp")
	if err != nil {
		t.Fatal(err)
	}
	if g.Record.EnsembleGlobal != 600 || b.Record.EnsembleGlobal != 0 {
		t.Errorf("rules %d and %d, want 600 and 0", g.Record.EnsembleGlobal, b.Record.EnsembleGlobal)
	}
	rb := b.Record
	rb.EnsembleGlobal = g.Record.EnsembleGlobal
	if !reflect.DeepEqual(rb, g.Record) {
		t.Errorf("records differ beyond the rule:\n%+v\n%+v", g.Record, b.Record)
	}
	pg, pb := g.Net.Params(), b.Net.Params()
	if len(pg) != len(pb) {
		t.Fatalf("%d and %d parameters", len(pg), len(pb))
	}
	for i := range pg {
		if !slices.Equal(pg[i].Value, pb[i].Value) {
			t.Errorf("parameter %s differs", pg[i].Name)
		}
	}
}

// member0 is the line's first network: its own, or an ensemble's first
// member.
func (m RNAModel) member0() string {
	if len(m.Members) > 0 {
		return m.Members[0]
	}
	return m.Name
}

// The default is the three seeds of the shipped recipe, each under the
// global-600 rule, of distinct seeds and the same references.
func TestDefaultRNAIsThreeSeeds(t *testing.T) {
	sm, err := ShippedRNA(DefaultRNA)
	if err != nil {
		t.Fatal(err)
	}
	members, ok := RNAShipped().Members(DefaultRNA)
	if !ok || len(members) != 3 {
		t.Fatalf("default %s: members %v", DefaultRNA, members)
	}
	seeds := map[uint64]bool{}
	for _, name := range members {
		m, _, err := LoadRNA(name)
		if err != nil {
			t.Fatal(err)
		}
		r := m.Record
		if r.Protocol != "families-ensemble" || r.EnsembleGlobal != 600 || seeds[r.Seed] {
			t.Errorf("%s: protocol %s, rule %d, seed %d (seen: %v)", name, r.Protocol, r.EnsembleGlobal, r.Seed, seeds)
		}
		seeds[r.Seed] = true
		if mm, _ := ShippedRNA(name); !slices.Equal(mm.Refs, sm.Refs) {
			t.Errorf("%s: references %v, the ensemble's %v", name, mm.Refs, sm.Refs)
		}
	}
	if _, ok := RNAShipped().Members("rna-scnn-bpp-global"); ok {
		t.Error("a single network has members")
	}
}
