package main

import (
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/compare"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/scnn"
)

// A query covering chain residues 1-3 of 5 (a Pfam domain): its scores land
// on those residues' pairs, every pair with residue 0 or 4 ranks last, and
// the feature channel reads the packed 2D features at the same pairs.
func TestQueryMapping(t *testing.T) {
	const l = 5
	c := &features.Chain{Seq: "MACDW", OneD: make([]float32, l*features.N1D), TwoD: make([]float32, l*(l+1)/2*features.N2D)}
	aln := &msa.Alignment{Rows: [][]byte{[]byte("ACD"), []byte("AC-")}}
	pairs, err := features.QueryPairs(c.Seq, aln)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 3 || pairs[0] != [2]int{1, 0} || pairs[2] != [2]int{3, 2} {
		t.Fatalf("pairs %v, want chain 1-3 on query 0-2", pairs)
	}
	f := &family{plm: &model.Sample{ID: "x", Chain: c}, aln: aln, pairs: pairs}
	s := []float64{0, 1, 2, 1, 0, 3, 2, 3, 0} // query (0,1)=1, (0,2)=2, (1,2)=3
	p := mapQuery(f, s)
	if p[1*l+2] != 1 || p[1*l+3] != 2 || p[2*l+3] != 3 || p[3*l+2] != 3 {
		t.Errorf("mapped scores %v", p)
	}
	for _, k := range []int{0*l + 1, 0*l + 4, 3*l + 4, 4*l + 0} {
		if p[k] != outside {
			t.Errorf("pair %d (a residue outside the query): %g, want the lowest score", k, p[k])
		}
	}
	c.TwoD[scnn.PackedIndex(l, 1, 3)*features.N2D] = 7
	c.TwoD[scnn.PackedIndex(l, 0, 3)*features.N2D] = 9 // outside: not read
	ch := channel(f, f.plm)
	if ch[1*l+3] != 7 || ch[3*l+1] != 7 || ch[0*l+3] != outside {
		t.Errorf("channel: (1,3) %g, (3,1) %g, (0,3) %g", ch[1*l+3], ch[3*l+1], ch[0*l+3])
	}
}

// A model-free row (one run) compared with a kind of three seeds is
// repeated under each of its seeds; two kinds of several seeds are left as
// they are.
func TestPaired(t *testing.T) {
	byKind := map[string][]compare.Run{
		"plm":  {{Kind: "plm", Seed: 1}},
		"scnn": {{Kind: "scnn", Seed: 1}, {Kind: "scnn", Seed: 2}, {Kind: "scnn", Seed: 5}},
		"cnn":  {{Kind: "cnn", Seed: 1}, {Kind: "cnn", Seed: 2}},
	}
	got := paired(byKind, "plm", "scnn")
	var seeds []int
	for _, r := range got {
		if r.Kind == "plm" {
			seeds = append(seeds, r.Seed)
		}
	}
	if len(got) != 6 || len(seeds) != 3 || seeds[0] != 1 || seeds[1] != 2 || seeds[2] != 5 {
		t.Errorf("plm vs scnn: %d runs, plm seeds %v", len(got), seeds)
	}
	if got := paired(byKind, "cnn", "scnn"); len(got) != 5 {
		t.Errorf("cnn vs scnn: %d runs, want 5", len(got))
	}
	if len(byKind["plm"]) != 1 || byKind["plm"][0].Seed != 1 {
		t.Error("paired changed its input")
	}
}

// The pick: the best candidate, unless a single model (then an SCNN) is
// within 0.005 of it.
func TestPick(t *testing.T) {
	run := func(kind string, seed int, v float64) compare.Run {
		return compare.Run{Kind: kind, Seed: seed, Scores: map[string][]float64{"long top-L/5": {v, v}}}
	}
	for _, c := range []struct {
		runs []compare.Run
		want string
	}{
		{[]compare.Run{run("scnn", 1, 0.60), run("cnn", 1, 0.62), run("plmDCA", 1, 0.9)}, "Pick: cnn seed 1"},
		{[]compare.Run{run("scnn", 1, 0.618), run("cnn", 1, 0.62)}, "Pick: scnn seed 1"},
		{[]compare.Run{run("scnn ensemble", 1, 0.65), run("scnn", 2, 0.646), run("cnn", 3, 0.649)}, "Pick: scnn seed 2"},
		{[]compare.Run{run("scnn ensemble", 1, 0.66), run("scnn", 2, 0.646)}, "Pick: scnn ensemble"},
	} {
		got, ok, err := pick(c.runs, "")
		if err != nil || !ok || !strings.Contains(got.text, c.want) || !strings.Contains(c.want, got.name) {
			t.Errorf("%v: %q (%s), want %q", c.runs, got.text, got.name, c.want)
		}
	}
	if _, ok, _ := pick([]compare.Run{run("plmDCA", 1, 0.5)}, ""); ok {
		t.Error("a pick without network runs")
	}
	// A pick made already is kept, whatever this split says.
	runs := []compare.Run{run("scnn", 1, 0.60), run("cnn", 1, 0.62), run("scnn", 2, 0.5)}
	if got, ok, err := pick(runs, "scnn seed 2"); err != nil || !ok || got.name != "scnn seed 2" || got.run.Seed != 2 || !strings.Contains(got.text, "made on validation") {
		t.Errorf("fixed pick: %+v, %v, %v", got, ok, err)
	}
	if _, _, err := pick(runs, "scnn seed 9"); err == nil {
		t.Error("a fixed pick among no candidate")
	}
}
