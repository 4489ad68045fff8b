package ssnet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/scnn"
)

// The ensemble channel is the partition function's pair probability at
// the window's bases (a pair crop included), 0 under EnsembleCut, last
// after the template and energy channels, symmetric, and the packed
// layout is the full one packed.
func TestEnsembleChannel(t *testing.T) {
	e, err := fold.Partition(yeastPhe)
	if err != nil {
		t.Fatal(err)
	}
	mol := Molecule{Structure: &rna.Structure{Name: "phe", Seq: yeastPhe, Partner: make([]int, len(yeastPhe))}}
	for i := range mol.Partner {
		mol.Partner[i] = -1
	}
	set := []Molecule{mol}
	ctx := context.Background()
	if err := AttachEnsemble(ctx, set, nil, "", 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := AttachMFE(ctx, set, nil, 1, nil); err != nil {
		t.Fatal(err)
	}
	set[0].Template = &homology.Template{}
	w := Window{Mol: &set[0], Start: 0, Len: 30, Start2: 40, Len2: 30}
	spec := FamiliesEnsemble.Spec(CNN)
	if spec.In2D != TemplateChannels+EnergyChannels+EnsembleChannels {
		t.Fatalf("In2D %d", spec.In2D)
	}
	full, err := window2D([]Window{w}, 60, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	energy, err := window2D([]Window{w}, 60, Families.Spec(CNN), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := spec.In2D - 1
	seen := 0
	for a := 0; a < 60; a++ {
		for b := 0; b < 60; b++ {
			i, j := w.Index(a), w.Index(b)
			want := float32(0)
			if p := e.Prob(i, j); a != b && p >= EnsembleCut {
				want = RoundProb(p)
			}
			if got := full.At(0, a, b, c); got != want {
				t.Fatalf("ensemble channel at (%d, %d): %g, want %g", a, b, got, want)
			}
			if full.At(0, a, b, c) != full.At(0, b, a, c) {
				t.Fatalf("not symmetric at (%d, %d)", a, b)
			}
			if want > 0.1 {
				seen++
			}
			for k := 0; k < c; k++ {
				if full.At(0, a, b, k) != energy.At(0, a, b, k) {
					t.Fatalf("channel %d at (%d, %d) differs from the families network's", k, a, b)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no probable pair in the window")
	}
	sym := FamiliesEnsemble.Spec(SCNN)
	packed, err := window2D([]Window{w}, 60, sym, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := scnn.Pack(full)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(packed.Data, want.Data) {
		t.Fatal("packed ensemble channels differ from the packed full map")
	}
	set[0].Ensemble = nil
	if _, err := window2D([]Window{w}, 60, spec, nil); err == nil || !strings.Contains(err.Error(), "phe: no ensemble") {
		t.Fatalf("%v, want an error naming the molecule", err)
	}
}

// Molecules longer than EnsembleSpan fold in the band: no pair of a
// larger span, and the probabilities are the banded partition
// function's.
func TestEnsembleSpan(t *testing.T) {
	seq := strings.Repeat(yeastPhe, 3) // 228 nt
	ps, err := EnsemblePairs(context.Background(), seq, 1)
	if err != nil {
		t.Fatal(err)
	}
	e, err := fold.DefaultParams().WithMaxSpan(EnsembleSpan).Partition(seq, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		t.Fatal("no pairs")
	}
	for _, p := range ps {
		if int(p.J-p.I)+1 > EnsembleSpan {
			t.Fatalf("pair (%d, %d) spans more than %d", p.I, p.J, EnsembleSpan)
		}
		if want := RoundProb(e.Prob(int(p.I), int(p.J))); p.P != want {
			t.Fatalf("pair (%d, %d): %g, want %g", p.I, p.J, p.P, want)
		}
	}
}

// Inference computes the ensemble itself: ProbabilitiesWith equals
// ProbabilitiesFor with the MFE and the ensemble attached, bit for bit,
// and the map is symmetric.
func TestEnsembleInference(t *testing.T) {
	m, err := NewModel(SCNN, FamiliesEnsemble, 3)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Record.Inputs2D(); !(c.Template && c.Energy && c.Ensemble) {
		t.Fatalf("record's channels %+v", c)
	}
	p1, err := m.ProbabilitiesWith(yeastPhe, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	set := []Molecule{{Structure: &rna.Structure{Name: "phe", Seq: yeastPhe}}}
	ctx := context.Background()
	if err := AttachMFE(ctx, set, nil, 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := AttachEnsemble(ctx, set, nil, "", 1, nil); err != nil {
		t.Fatal(err)
	}
	set[0].Template = &homology.Template{}
	p2, err := m.ProbabilitiesFor(&set[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p1, p2) {
		t.Fatal("inference with the ensemble computed differs from the attached one")
	}
	l := len(yeastPhe)
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			if p1[i*l+j] != p1[j*l+i] {
				t.Fatalf("not symmetric at (%d, %d)", i, j)
			}
		}
	}
	// The energy and ensemble channels without the template's are
	// refused: their width would read as the template's.
	bad := withName(FamiliesEnsemble, "bad", func(p *Protocol) { p.Template = false })
	if _, err := NewModel(CNN, bad, 1); err == nil {
		t.Fatal("no error for energy and ensemble channels without a template")
	}
	for _, c := range []Inputs2D{{}, {Template: true}, {Energy: true}, {Template: true, Energy: true}, {Ensemble: true}, {Template: true, Ensemble: true}, {Template: true, Energy: true, Ensemble: true}} {
		if got, ok := inputs2DOf(c.Width()); !ok || got != c {
			t.Errorf("inputs2DOf(%d) = %+v, %v; want %+v", c.Width(), got, ok, c)
		}
	}
}

// The cache gives EnsemblePairs' pairs exactly, appends members that
// read back as one file, and an attach stopped midway resumes from what
// it appended to the same pairs as one run through.
func TestEnsembleCacheResume(t *testing.T) {
	seqs := []string{yeastPhe, yeastPhe[:60], yeastPhe[10:], yeastPhe[5:70], "GGGGAAAACCCC", "ACGU"}
	set := func() []Molecule {
		var out []Molecule
		for k, s := range seqs {
			out = append(out, Molecule{Structure: &rna.Structure{Name: "m" + string(rune('a'+k)), Seq: s}})
		}
		return out
	}
	path := filepath.Join(t.TempDir(), "ensemble.tsv.gz")
	ctx, cancel := context.WithCancel(context.Background())
	first := set()
	n := 0
	err := AttachEnsemble(ctx, first, NewEnsembleCache(), path, 1, func() {
		if n++; n == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v, want the cancel", err)
	}
	c, err := ReadEnsembleCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() < 3 || c.Len() == len(seqs) {
		t.Fatalf("%d entries after a cancel at 3 of %d", c.Len(), len(seqs))
	}
	resumed := set()
	if err := AttachEnsemble(context.Background(), resumed, c, path, 1, nil); err != nil {
		t.Fatal(err)
	}
	c2, err := ReadEnsembleCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Len() != len(seqs) {
		t.Fatalf("%d entries, want %d", c2.Len(), len(seqs))
	}
	fresh := set()
	if err := AttachEnsemble(context.Background(), fresh, nil, "", 1, nil); err != nil {
		t.Fatal(err)
	}
	for k := range fresh {
		// From the file (4 digits) and computed: equal to 3 digits.
		again := set()[k:][:1]
		if err := AttachEnsemble(context.Background(), again, c2, "", 1, nil); err != nil {
			t.Fatal(err)
		}
		a, b := again[0].Ensemble, fresh[k].Ensemble
		if len(a) != len(b) {
			t.Fatalf("%s: %d cached pairs, %d computed", seqs[k], len(a), len(b))
		}
		for q := range a {
			if a[q] != b[q] {
				t.Fatalf("%s: cached %+v, computed %+v", seqs[k], a[q], b[q])
			}
		}
	}
	// Corrupt lines are refused with the line number.
	bad := filepath.Join(t.TempDir(), "bad.tsv.gz")
	if err := writeEnsembleFile(bad, "0123456789abcdef0123456789abcdef\t5-3:0.5\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadEnsembleCache(bad); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("%v, want a line 1 error", err)
	}
}

func writeEnsembleFile(path, text string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeEnsembleMember(f, strings.Split(strings.TrimSuffix(text, "\n"), "\n")); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// The rule of the channel (EnsembleFold): the zero value bands every
// molecule of more than EnsembleSpan bases, a Global rule folds those of
// at most Global bases without a limit (its pairs are the global
// partition function's, long spans included), and the cache keeps the
// two apart while the molecules both rules fold alike share one key
// (the zero rule's, so that its caches stay valid). A record carries its
// rule, and a record outside the bounds is refused.
func TestEnsembleFold(t *testing.T) {
	long := strings.Repeat(yeastPhe, 3) // 228 nt
	zero, global := EnsembleFold{}, EnsembleFold{Global: 600}
	for _, c := range []struct {
		f    EnsembleFold
		n    int
		span int
	}{{zero, 200, 0}, {zero, 201, EnsembleSpan}, {global, 201, 0}, {global, 600, 0}, {global, 601, EnsembleSpan}, {EnsembleFold{Global: 100}, 150, EnsembleSpan}} {
		if got := c.f.Span(c.n); got != c.span {
			t.Errorf("%+v.Span(%d) = %d, want %d", c.f, c.n, got, c.span)
		}
	}
	ctx := context.Background()
	gp, err := global.Pairs(ctx, long, 1)
	if err != nil {
		t.Fatal(err)
	}
	e, err := fold.DefaultParams().Partition(long, 1)
	if err != nil {
		t.Fatal(err)
	}
	var want []PairProb
	for _, p := range e.Pairs(EnsembleCut) {
		want = append(want, PairProb{I: int32(p.I), J: int32(p.J), P: RoundProb(p.P)})
	}
	if !slices.Equal(gp, want) {
		t.Fatal("the global rule's pairs differ from the global partition function's")
	}
	zp, err := EnsemblePairs(ctx, long, 1)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(gp, zp) {
		t.Fatal("the global and banded channels of a 228-nt molecule are equal")
	}
	if ensembleKey(zero, long) == ensembleKey(global, long) {
		t.Fatal("one cache key for a molecule the rules fold differently")
	}
	if ensembleKey(zero, yeastPhe) != ensembleKey(global, yeastPhe) || ensembleKey(zero, long) != ensembleKey(EnsembleFold{Global: 100}, long) {
		t.Fatal("two cache keys for a molecule the rules fold alike")
	}
	// The zero rule's keys are those of the caches written before the
	// rule existed (the span 200 in every key).
	old := func(seq string) string {
		h := sha256.Sum256([]byte("ensemble\x00" + FoldFingerprint() + "\x00200\x00" + strconv.FormatFloat(EnsembleCut, 'g', -1, 64) + "\x00" + seq))
		return hex.EncodeToString(h[:16])
	}
	if ensembleKey(zero, long) != old(long) || ensembleKey(zero, yeastPhe) != old(yeastPhe) || ensembleKey(global, yeastPhe) != old(yeastPhe) {
		t.Fatal("the zero rule's cache keys changed")
	}
	if _, err := NewModel(SCNN, withName(FamiliesEnsembleGlobal, "big", func(p *Protocol) { p.EnsembleGlobal = MaxEnsembleGlobal + 1 }), 1); err == nil {
		t.Fatal("a protocol's ensemble_global over the bound is let through")
	}
	c := NewEnsembleCache()
	for _, f := range []EnsembleFold{zero, global} {
		got, err := c.FoldPairs(ctx, f, long, 1)
		if err != nil {
			t.Fatal(err)
		}
		if w := map[bool][]PairProb{true: gp, false: zp}[f == global]; !slices.Equal(got, w) {
			t.Fatalf("the cache under %+v gives another rule's pairs", f)
		}
	}
	long200 := false
	for _, p := range gp {
		long200 = long200 || int(p.J-p.I)+1 > EnsembleSpan
	}
	if !long200 {
		t.Fatal("no pair of the global channel spans more than 200 bases")
	}

	m, err := NewModel(SCNN, FamiliesEnsembleGlobal, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.Record.EnsembleFold() != global {
		t.Fatalf("record's rule %+v, want %+v", m.Record.EnsembleFold(), global)
	}
	back := saveLoad(t, m)
	if back.Record.EnsembleGlobal != 600 {
		t.Fatalf("read back ensemble_global %d", back.Record.EnsembleGlobal)
	}
	// The inference of a long molecule reads the record's rule: with
	// the global pairs attached it equals the inference that computes
	// them, and differs from the one given the banded pairs.
	p1, err := back.ProbabilitiesWith(long, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := back.ProbabilitiesAfterInputs(long, nil, nil, gp, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	p3, err := back.ProbabilitiesAfterInputs(long, nil, nil, zp, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p1, p2) || slices.Equal(p1, p3) {
		t.Fatal("inference does not follow the record's rule")
	}
	// A molecule carries the rule of its attached channel: a network of
	// another rule refuses it, and attaching under that rule replaces it.
	set := []Molecule{{Structure: &rna.Structure{Name: "long", Seq: long}, Template: &homology.Template{}}}
	if err := AttachMFE(ctx, set, nil, 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := AttachEnsemble(ctx, set, nil, "", 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := back.ProbabilitiesFor(&set[0], 1); err == nil || !strings.Contains(err.Error(), "rule") {
		t.Fatalf("%v, want the banded channel refused by a global network", err)
	}
	if err := AttachEnsembleFold(ctx, global, set, nil, "", 1, nil); err != nil {
		t.Fatal(err)
	}
	if !set[0].HasEnsemble(global) || !slices.Equal(set[0].Ensemble, gp) {
		t.Fatal("attaching under the global rule kept the banded channel")
	}
	if p4, err := back.ProbabilitiesFor(&set[0], 1); err != nil || !slices.Equal(p4, p1) {
		t.Fatalf("%v: inference on the reattached channel differs", err)
	}
	if !zero.Same(EnsembleFold{Global: EnsembleSpan}) || zero.Same(global) {
		t.Fatal("Same")
	}
	for _, g := range []int{-1, MaxEnsembleGlobal + 1} {
		bad := *m
		bad.Record.EnsembleGlobal = g
		p := filepath.Join(t.TempDir(), "bad.scnn")
		if err := bad.Save(p); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "ensemble_global") {
			t.Fatalf("ensemble_global %d: %v, want it refused", g, err)
		}
	}
}

func TestEnsembleAttachBytes(t *testing.T) {
	seq := func(n int) string { return strings.Repeat("GCAU", n/4+1)[:n] }
	mol := func(name string, n int) Molecule {
		return Molecule{Structure: &rna.Structure{Name: name, Seq: seq(n)}}
	}
	set := []Molecule{mol("a", 50), mol("b", 400), mol("c", 300), mol("d", 250)}
	f := EnsembleFold{Global: 600}
	cache := NewEnsembleCache()
	cache.m[ensembleKey(f, set[1].Seq)] = nil // b cached under f
	set[2].Ensemble, set[2].EnsembleRule = []PairProb{}, f
	// c attached under f; a and d to fold, d first.
	need, longest := f.AttachBytes(set, cache, 1)
	if need != f.Bytes(250) || longest != 250 {
		t.Errorf("one goroutine: %d bytes, longest %d; want %d, 250", need, longest, f.Bytes(250))
	}
	if need, _ := f.AttachBytes(set, cache, 4); need != f.Bytes(250)+f.Bytes(50) {
		t.Errorf("four goroutines: %d bytes, want the two left: %d", need, f.Bytes(250)+f.Bytes(50))
	}
	// Under the zero rule nothing is cached or attached; b (400 bases)
	// folds in the band.
	if need, longest := (EnsembleFold{}).AttachBytes(set, nil, 2); need != EnsembleBytes(400)+EnsembleBytes(300) || longest != 400 {
		t.Errorf("zero rule: %d bytes, longest %d; want %d, 400", need, longest, EnsembleBytes(400)+EnsembleBytes(300))
	}
	if f.Bytes(400) <= (EnsembleFold{}).Bytes(400) {
		t.Errorf("a global fold of 400 bases (%d bytes) should take more than the banded one (%d)", f.Bytes(400), (EnsembleFold{}).Bytes(400))
	}
	if need, longest := f.AttachBytes(nil, cache, 2); need != 0 || longest != 0 {
		t.Errorf("empty set: %d, %d", need, longest)
	}
}

// TestEnsembleCachePut checks that a put entry is what FoldPairs then
// returns (nothing folded), that it survives Append and
// ReadEnsembleCache under its rule only, and that bad pairs are refused.
func TestEnsembleCachePut(t *testing.T) {
	seq := strings.Repeat("GGGAAACCCU", 25) // 250 nt: the two rules differ
	c := NewEnsembleCache()
	ps := []PairProb{{I: 0, J: 8, P: 0.5}, {I: 1, J: 7, P: 0.25}}
	glob := EnsembleFold{Global: 600}
	if err := c.Put(glob, seq, ps); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a fold would fail: the entry must come from the cache
	got, err := c.FoldPairs(ctx, glob, seq, 1)
	if err != nil || len(got) != 2 || got[1] != ps[1] {
		t.Fatalf("FoldPairs after Put: %v, %v", got, err)
	}
	path := filepath.Join(t.TempDir(), "c.tsv.gz")
	if err := c.Append(path); err != nil {
		t.Fatal(err)
	}
	r, err := ReadEnsembleCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.FoldPairs(ctx, glob, seq, 1); err != nil || len(got) != 2 || got[0] != ps[0] {
		t.Fatalf("read back: %v, %v", got, err)
	}
	if _, err := r.FoldPairs(ctx, EnsembleFold{}, seq, 1); err == nil || r.Has(EnsembleFold{}, seq) || !r.Has(glob, seq) {
		t.Error("the zero rule's entry of a 250-nt sequence came from the global rule's")
	}
	for _, bad := range [][]PairProb{
		{{I: 3, J: 3, P: 0.5}},
		{{I: 0, J: 250, P: 0.5}},
		{{I: 0, J: 8, P: 0}},
		{{I: 1, J: 7, P: 0.5}, {I: 0, J: 8, P: 0.5}},
	} {
		if err := c.Put(glob, seq, bad); err == nil {
			t.Errorf("Put(%v) accepted", bad)
		}
	}
}
