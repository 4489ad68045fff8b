package ssnet

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/homology"
)

// A rule at another temperature folds with rna/fold's parameters at it
// and keys its cache entries apart; at 37 C (or 0) it is the channel's
// own rule, its keys those written before temperatures.
func TestEnsembleFoldTemperature(t *testing.T) {
	ctx := context.Background()
	zero := EnsembleFold{}
	if !zero.Same(zero.At(37)) || zero.At(37).Temperature != 0 || zero.TemperatureC() != 37 {
		t.Fatalf("At(37) = %+v, not the zero rule", zero.At(37))
	}
	warm := zero.At(50)
	if warm.Same(zero) || !warm.Same(EnsembleFold{Temperature: 50}) || warm.Same(EnsembleFold{Global: 600, Temperature: 50}) {
		t.Fatal("Same ignores the temperature or the global rule")
	}
	if ensembleKey(EnsembleFold{Temperature: 37}, yeastPhe) != ensembleKey(zero, yeastPhe) {
		t.Fatal("a rule at 37 C written out keys apart from the zero rule") // the zero rule's own key: TestEnsembleFold
	}
	keys := map[string]bool{}
	for _, f := range []EnsembleFold{zero, zero.At(25), warm, {Global: 600, Temperature: 50}} {
		keys[ensembleKey(f, strings.Repeat(yeastPhe, 3))] = true // 228 nt: the global rule keys apart too
	}
	if len(keys) != 4 {
		t.Fatalf("%d distinct keys of 4 rules", len(keys))
	}
	for _, temp := range []float64{25, 50} {
		got, err := zero.At(temp).Pairs(ctx, yeastPhe, 1)
		if err != nil {
			t.Fatal(err)
		}
		e, err := fold.DefaultParams().WithTemperature(temp).Partition(yeastPhe, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := e.Pairs(EnsembleCut)
		if len(got) != len(want) {
			t.Fatalf("%g C: %d pairs, want %d", temp, len(got), len(want))
		}
		for k, p := range want {
			if got[k] != (PairProb{I: int32(p.I), J: int32(p.J), P: RoundProb(p.P)}) {
				t.Fatalf("%g C: pair %d %+v, want %+v", temp, k, got[k], p)
			}
		}
		at37, _ := zero.Pairs(ctx, yeastPhe, 1)
		if slices.Equal(got, at37) {
			t.Fatalf("%g C: the 37 C ensemble", temp)
		}
	}
}

// SetEnsemble puts a rule's channel in its temperature's place, leaves
// the others, replaces one of its temperature under another rule, and
// does not write into a copy's EnsembleAt.
func TestSetEnsemble(t *testing.T) {
	a := []PairProb{{I: 0, J: 5, P: 0.5}}
	b := []PairProb{{I: 1, J: 6, P: 0.25}}
	c := []PairProb{{I: 2, J: 7, P: 0.125}}
	var m Molecule
	m.SetEnsemble(EnsembleFold{}, a)
	m.SetEnsemble(EnsembleFold{}.At(25), b)
	if !slices.Equal(m.Ensemble, a) || !slices.Equal(m.EnsembleUnder(EnsembleFold{}.At(25)), b) || m.EnsembleUnder(EnsembleFold{}.At(50)) != nil {
		t.Fatalf("%+v", m)
	}
	cp := m
	cp.SetEnsemble(EnsembleFold{Global: 600}.At(25), c)
	if !slices.Equal(m.EnsembleUnder(EnsembleFold{}.At(25)), b) {
		t.Fatal("a copy's SetEnsemble changed the original")
	}
	if len(cp.EnsembleAt) != 1 || cp.HasEnsemble(EnsembleFold{}.At(25)) || !slices.Equal(cp.EnsembleUnder(EnsembleFold{Global: 600}.At(25)), c) {
		t.Fatalf("the 25 C channel not replaced: %+v", cp.EnsembleAt)
	}
	if !cp.HasEnsemble(EnsembleFold{}) || cp.HasEnsemble(EnsembleFold{Global: 600}) {
		t.Fatal("the 37 C channel's rule")
	}
}

// A network with further ensemble channels: its 2D input has them after
// the 37 C channel, each its temperature's probabilities; inference from
// attached channels (through a cache) equals inference computing them;
// its record saves, loads and is checked; a window without a further
// channel is refused by name.
func TestEnsembleTempsNetwork(t *testing.T) {
	ctx := context.Background()
	p := FamiliesEnsembleTemps
	m, err := NewModel(SCNN, p, 7)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Record.Inputs2D()
	if !(c.Template && c.Energy && c.Ensemble && c.Temps == 2) || m.Record.Spec.In2D != TemplateChannels+EnergyChannels+3*EnsembleChannels {
		t.Fatalf("channels %+v, in_2d %d", c, m.Record.Spec.In2D)
	}
	if got := m.Record.EnsembleFolds(); len(got) != 3 || got[1].TemperatureC() != 25 || got[2].TemperatureC() != 50 {
		t.Fatalf("folds %+v", got)
	}
	// the layout
	set := []Molecule{{Structure: &rna.Structure{Name: "phe", Seq: yeastPhe, Partner: make([]int, len(yeastPhe))}}}
	for i := range set[0].Partner {
		set[0].Partner[i] = -1
	}
	cachePath := filepath.Join(t.TempDir(), "ens.tsv.gz")
	cache := NewEnsembleCache()
	for _, f := range m.Record.EnsembleFolds() {
		if err := AttachEnsembleFold(ctx, f, set, cache, cachePath, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := AttachMFE(ctx, set, nil, 1, nil); err != nil {
		t.Fatal(err)
	}
	set[0].Template = &homology.Template{}
	l := len(yeastPhe)
	w := Window{Mol: &set[0], Len: l}
	x, err := window2D([]Window{w}, l, FamiliesEnsembleTemps.Spec(CNN), m.Record.ExtraEnsembleFolds())
	if err != nil {
		t.Fatal(err)
	}
	width := m.Record.Spec.In2D
	for k, f := range m.Record.EnsembleFolds() {
		off := width - 3 + k
		dense := make([]float32, l*l)
		for _, q := range set[0].EnsembleUnder(f) {
			dense[int(q.I)*l+int(q.J)], dense[int(q.J)*l+int(q.I)] = q.P, q.P
		}
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				if got := x.Data[(i*l+j)*width+off]; got != dense[i*l+j] {
					t.Fatalf("channel %d (%g C) at (%d, %d): %v, want %v", off, f.TemperatureC(), i, j, got, dense[i*l+j])
				}
			}
		}
	}
	// attached (and read back from the cache) = computed
	back, err := ReadEnsembleCache(cachePath)
	if err != nil || back.Len() != 3 {
		t.Fatalf("cache: %d entries, %v", back.Len(), err)
	}
	again := []Molecule{{Structure: set[0].Structure, Template: &homology.Template{}}}
	for _, f := range m.Record.EnsembleFolds() {
		if err := AttachEnsembleFold(ctx, f, again, back, "", 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	if back.Len() != 3 {
		t.Fatal("the cache grew: an entry was not found under its rule")
	}
	p1, err := m.ProbabilitiesWith(yeastPhe, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := m.ProbabilitiesFor(&again[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p1, p2) {
		t.Fatal("inference from attached channels differs from computed ones")
	}
	// the attached further channels are the ones read: the 25 C slot
	// holding the 50 C pairs changes the output
	swapped := again[0]
	swapped.SetEnsemble(EnsembleFold{}.At(25), again[0].EnsembleUnder(EnsembleFold{}.At(50)))
	if p4, err := m.ProbabilitiesFor(&swapped, 1); err != nil || slices.Equal(p1, p4) {
		t.Fatalf("the attached 25 C channel is not read (%v)", err)
	}
	if p5, err := m.ProbabilitiesAfterEnsembles(yeastPhe, nil, again[0].MFE, again[0].Ensemble, swapped.EnsembleAt, 1, nil); err != nil || slices.Equal(p1, p5) {
		t.Fatalf("ProbabilitiesAfterEnsembles does not read the given 25 C channel (%v)", err)
	}
	if p6, err := m.ProbabilitiesAfterEnsembles(yeastPhe, nil, again[0].MFE, again[0].Ensemble, again[0].EnsembleAt, 1, nil); err != nil || !slices.Equal(p1, p6) {
		t.Fatalf("ProbabilitiesAfterEnsembles with the right channels differs (%v)", err)
	}
	// a channel attached under another rule is refused, not recomputed
	wrong := again[0]
	wrong.SetEnsemble(EnsembleFold{Global: 600}.At(25), wrong.EnsembleUnder(EnsembleFold{}.At(25)))
	if _, err := m.ProbabilitiesFor(&wrong, 1); err == nil || !strings.Contains(err.Error(), "at 25 C") {
		t.Fatalf("a 25 C channel under another rule: %v", err)
	}
	// a window without one
	none := set[0]
	none.EnsembleAt = nil
	if _, err := window2D([]Window{{Mol: &none, Len: l}}, l, m.Net.Spec, m.Record.ExtraEnsembleFolds()); err == nil || !strings.Contains(err.Error(), "phe: no ensemble channel at 25 C") {
		t.Fatalf("a window without the 25 C channel: %v", err)
	}
	// the record
	path := filepath.Join(t.TempDir(), "m.scnn")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m2.Record.EnsembleTemps, []float64{25, 50}) {
		t.Fatalf("loaded temps %v", m2.Record.EnsembleTemps)
	}
	if p3, err := m2.ProbabilitiesFor(&again[0], 1); err != nil || !slices.Equal(p1, p3) {
		t.Fatalf("the loaded model infers otherwise (%v)", err)
	}
	// ensembles of networks need the same temperatures
	plain, _ := NewModel(SCNN, FamiliesEnsemble, 7)
	if err := SameInputs(m, plain); err == nil {
		t.Fatal("SameInputs: a network with further channels and one without")
	}
	other := withName(FamiliesEnsembleTemps, "other", func(p *Protocol) { p.EnsembleTemps = []float64{25, 60} })
	if o, err := NewModel(SCNN, other, 7); err != nil {
		t.Fatal(err)
	} else if err := SameInputs(m, o); err == nil {
		t.Fatal("SameInputs: networks at other temperatures")
	}
}

// Records and protocols with bad further temperatures are refused.
func TestEnsembleTempsBounds(t *testing.T) {
	for _, ts := range [][]float64{{37}, {25, 25}, {0}, {-1}, {101}, {math.NaN()}, {10, 20, 30, 40, 50}} {
		p := withName(FamiliesEnsembleTemps, "bad", func(p *Protocol) { p.EnsembleTemps = ts })
		if _, err := NewModel(CNN, p, 1); err == nil {
			t.Errorf("protocol with temps %v accepted", ts)
		}
	}
	noEns := withName(Families, "bad", func(p *Protocol) { p.EnsembleTemps = []float64{25} })
	if _, err := NewModel(CNN, noEns, 1); err == nil {
		t.Error("temps without the ensemble channel accepted")
	}
	m, err := NewModel(CNN, FamiliesEnsembleTemps, 1)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(r *Record){
		"37 C":          func(r *Record) { r.EnsembleTemps = []float64{25, 37} },
		"one too few":   func(r *Record) { r.EnsembleTemps = []float64{25} },
		"none":          func(r *Record) { r.EnsembleTemps = nil },
		"too many":      func(r *Record) { r.EnsembleTemps = []float64{1, 2, 3, 4, 5} },
		"out of bounds": func(r *Record) { r.EnsembleTemps = []float64{25, 150} },
	} {
		bad := *m
		bad.Record.EnsembleTemps = slices.Clone(m.Record.EnsembleTemps)
		edit(&bad.Record)
		path := filepath.Join(t.TempDir(), "bad.scnn")
		if err := bad.Save(path); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil {
			t.Errorf("%s: a record with ensemble_temps %v and in_2d %d loaded", name, bad.Record.EnsembleTemps, bad.Record.Spec.In2D)
		}
	}
}

// Training shows its preparation: a stage for the MFE structures and one
// for each rule's ensemble channels, each ticked once per molecule it
// attaches; a second run on the same molecules, now attached, shows none.
func TestTrainPreparationProgress(t *testing.T) {
	train, valid := realSets(t)
	p := tinyProtocol
	p.Steps, p.EvalEvery = 2, 2
	p.Template, p.Energy, p.Ensemble, p.EnsembleTemps = true, true, true, []float64{25}
	stages := map[string][2]int{} // name: total, ticks
	progress := func(total int, name string) (func(), func()) {
		s := stages[name]
		s[0] += total
		stages[name] = s
		return func() { s := stages[name]; s[1]++; stages[name] = s }, nil
	}
	o := TrainOptions{Train: train, Valid: valid, Out: t.TempDir(), Kind: SCNN, Protocol: p, Workers: 1, Progress: progress}
	if _, _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	n := len(train) + len(valid)
	for _, name := range []string{"MFE structures", EnsembleFold{}.Stage(), EnsembleFold{}.At(25).Stage()} {
		if s := stages[name]; s != [2]int{n, n} {
			t.Errorf("stage %q: total %d, ticks %d; want %d molecules", name, s[0], s[1], n)
		}
	}
	if len(stages) != 3 {
		t.Errorf("stages %v", stages)
	}
	clear(stages)
	o.Out = t.TempDir()
	if _, _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(stages) != 0 {
		t.Errorf("the molecules attached already: stages %v", stages)
	}
}
