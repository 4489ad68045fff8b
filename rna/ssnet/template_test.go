package ssnet

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
)

// Pair crops: both stretches inside the molecule, apart, and every label
// of the batch is a true pair of the molecule between the bases the two
// positions stand for, and every such pair is labelled.
func TestPairWindowsLabelTheirPairs(t *testing.T) {
	all, err := ReadSet("../../data/rna/16s-finalvalid.txt")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	ws := RandomPairWindows(all[:6], 40, 32, rng)
	split := 0
	for _, w := range ws {
		n := len(w.Mol.Seq)
		if w.Start < 0 || w.Start+w.Len > n || (w.Len2 > 0 && (w.Start2 < w.Start+w.Len || w.Start2+w.Len2 > n)) {
			t.Fatalf("window %+v of %d", w, n)
		}
		if w.Len2 > 0 {
			split++
		}
	}
	if split < 10 {
		t.Fatalf("%d of 40 windows are pair crops", split)
	}
	b, err := NewBatch(ws, Record{Spec: Default.Spec(SCNN)})
	if err != nil {
		t.Fatal(err)
	}
	long := 0
	for s, w := range ws {
		for i := 0; i < w.Size(); i++ {
			for j := 0; j < w.Size(); j++ {
				want := w.Mol.Partner[w.Index(i)] == w.Index(j)
				if got := b.Labels[(s*b.L+i)*b.L+j] == 1; got != want {
					t.Fatalf("window %d (%+v) label (%d, %d) = %v, want %v", s, w, i, j, got, want)
				}
				if want && w.Index(j)-w.Index(i) > 64 {
					long++
				}
			}
		}
	}
	if long == 0 {
		t.Error("no pair spanning more than 64 bases in 40 pair crops")
	}
}

// Template channels: exactly symmetric, zero on the diagonal, channel 0
// the reference's pairs where the query is the reference itself, and the
// same in the packed layout as in the full one.
func TestTemplateChannels(t *testing.T) {
	all, err := ReadSet("../../data/rna/16s-finalvalid.txt")
	if err != nil {
		t.Fatal(err)
	}
	refs := []Molecule{all[0], all[1]}
	ix := TemplateRefs(refs)
	q := []Molecule{{Structure: all[0].Structure}}
	if err := AttachTemplates(context.Background(), q, ix, false, 0.5); err != nil {
		t.Fatal(err)
	}
	if q[0].Template.Ref != all[0].Structure || q[0].Template.Identity != 1 {
		t.Fatalf("template of a reference itself: identity %g", q[0].Template.Identity)
	}
	w := Window{Mol: &q[0], Start: 100, Len: 60, Start2: 700, Len2: 60}
	full, err := window2D([]Window{w}, 120, Template.Spec(CNN), nil)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := window2D([]Window{w}, 120, Template.Spec(SCNN), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := scnn.Pack(full)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(packed.Data, want.Data) {
		t.Fatal("packed template channels differ from the packed full map")
	}
	pairs := 0
	for i := 0; i < 120; i++ {
		for j := 0; j < 120; j++ {
			for c := 0; c < TemplateChannels; c++ {
				v := full.At(0, i, j, c)
				if v != full.At(0, j, i, c) {
					t.Fatalf("channel %d not symmetric at (%d, %d)", c, i, j)
				}
				if i == j && v != 0 {
					t.Fatalf("channel %d on the diagonal: %g", c, v)
				}
			}
			isPair := all[0].Partner[w.Index(i)] == w.Index(j)
			if (full.At(0, i, j, 0) == 1) != isPair {
				t.Fatalf("pair channel at (%d, %d): %g, pair %v", i, j, full.At(0, i, j, 0), isPair)
			}
			if isPair {
				pairs++
			}
			if i != j && (full.At(0, i, j, 1) != 1 || full.At(0, i, j, 2) != 1) {
				t.Fatalf("identity channels at (%d, %d) of a self template", i, j)
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no pair in the window")
	}
	// A template under the minimum identity is none: zero channels.
	q2 := []Molecule{{Structure: all[0].Structure}}
	if err := AttachTemplates(context.Background(), q2, TemplateRefs([]Molecule{all[5]}), false, 0.999); err != nil {
		t.Fatal(err)
	}
	if q2[0].Template.Ref != nil {
		t.Fatal("a template under the minimum identity was kept")
	}
	// A training molecule's template never is itself.
	self := []Molecule{{Structure: all[0].Structure}, {Structure: all[0].Structure}, {Structure: all[3].Structure}}
	if err := AttachTemplates(context.Background(), self, TemplateRefs(self), true, 0); err != nil {
		t.Fatal(err)
	}
	if self[0].Template.Ref != self[1].Structure || self[2].Template.Ref == self[2].Structure {
		t.Fatal("a training molecule's template is itself")
	}
}

// A run cancelled at a random point (as SIGINT cancels the command's
// context) leaves a checkpoint, even before its first validation, and
// the resumed run ends bit-identical to an uninterrupted one; the
// template protocol's pair crops and template channels included.
func TestCancelledRunResumesBitIdentical(t *testing.T) {
	train, valid := realSets(t)
	p := tinyProtocol
	p.PairCrops, p.Template, p.MinIdentity, p.TemplateDrop = true, true, 0.3, 0.2
	p.Crop, p.Steps, p.EvalEvery = 24, 30, 30
	dir := t.TempDir()
	opts := func(out string) TrainOptions {
		return TrainOptions{Train: slices.Clone(train), Valid: slices.Clone(valid), Out: out, Kind: SCNN, Protocol: p, Seed: 3, Workers: 1}
	}
	if _, _, err := Train(context.Background(), opts(filepath.Join(dir, "full"))); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "part")
	ctx, cancel := context.WithCancel(context.Background())
	o := opts(part)
	stopAt := 1 + rand.IntN(p.Steps-2)
	o.OnStep = func(step int, _ float64) {
		if step == stopAt {
			cancel()
		}
	}
	if _, _, err := Train(ctx, o); err != ErrInterrupted {
		t.Fatalf("cancelled run: %v", err)
	}
	if st, err := loop.Info(part, nil); err != nil || st.Steps != stopAt {
		t.Fatalf("checkpoint after cancelling at step %d: step %d, %v", stopAt, st.Steps, err)
	}
	o = opts(part)
	o.Resume, o.Seed, o.Workers = true, 0, 0
	if _, _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(filepath.Join(dir, "full", ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(part, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	ma, err := ReadModel(bytes.NewReader(a), "full")
	if err != nil {
		t.Fatal(err)
	}
	mb, err := ReadModel(bytes.NewReader(b), "part")
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := ma.Net.Params(), mb.Net.Params()
	for i := range pa {
		if !slices.Equal(pa[i].Value, pb[i].Value) {
			t.Fatalf("%s differs after cancel at step %d and resume", pa[i].Name, stopAt)
		}
	}
}

// A run killed at a random point (kill -9: only what is on disk
// survives) resumes from its last checkpoint and ends bit-identical to
// an uninterrupted run. The kill is the checkpoint file copied aside at
// a random step, with a checkpoint written at every step.
func TestKilledRunResumesBitIdentical(t *testing.T) {
	train, valid := realSets(t)
	p := tinyProtocol
	p.Steps, p.EvalEvery = 12, 5
	dir := t.TempDir()
	opts := func(out string) TrainOptions {
		return TrainOptions{Train: slices.Clone(train), Valid: slices.Clone(valid), Out: out, Kind: CNN, Protocol: p, Seed: 5, Workers: 1,
			CheckpointEvery: time.Nanosecond}
	}
	full := filepath.Join(dir, "full")
	killAt := 2 + rand.IntN(p.Steps-3)
	saved := map[string][]byte{}
	o := opts(full)
	o.OnStep = func(step int, _ float64) {
		if step == killAt {
			for _, f := range []string{CheckpointFile, ModelFile, LogFile} {
				if b, err := os.ReadFile(filepath.Join(full, f)); err == nil {
					saved[f] = b
				}
			}
		}
	}
	if _, _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "part")
	os.MkdirAll(part, 0o755)
	for f, b := range saved {
		if err := os.WriteFile(filepath.Join(part, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := loop.Info(part, nil); err != nil || st.Steps != killAt-1 {
		t.Fatalf("checkpoint at the kill (step %d): %d steps, %v", killAt, st.Steps, err)
	}
	o = opts(part)
	o.Resume, o.Seed, o.Workers = true, 0, 0
	if _, _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ModelFile, LogFile} {
		a, _ := os.ReadFile(filepath.Join(full, f))
		b, _ := os.ReadFile(filepath.Join(part, f))
		if f == LogFile { // the seconds column differs
			a, b = dropLastColumn(a), dropLastColumn(b)
		}
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Fatalf("%s differs after a kill at step %d and resume:\n%s\n%s", f, killAt, a, b)
		}
	}
}

func dropLastColumn(tsv []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(tsv), "\n") {
		if i := strings.LastIndexByte(l, '\t'); i >= 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, "\n"))
}

// Checkpoints written before the shared training loop are read: the
// committed template-short runs (1,500 steps, done), and one resumes
// with more steps from where it stopped.
func TestLegacyCheckpoint(t *testing.T) {
	src := "../../experiments/rna-template/short/cnn-seed1"
	secs, steps, done, err := RunInfo(src)
	if err != nil {
		t.Fatal(err)
	}
	if steps != 1500 || !done || secs <= 0 {
		t.Fatalf("RunInfo: %g s, %d steps, done %v", secs, steps, done)
	}
	st, err := loop.Info(src, legacy)
	if err != nil {
		t.Fatal(err)
	}
	if st.Round != 3 || st.Next != 0 || len(st.Log) != 2 || st.Log[1].Step != 1500 || st.BestRound < 1 {
		t.Fatalf("legacy state: round %d, next %d, log %+v, best round %d", st.Round, st.Next, st.Log, st.BestRound)
	}
}

// A budget stops the run after a validation and a checkpoint; the run
// then resumes under a larger budget.
func TestBudgetStopsAndResumes(t *testing.T) {
	train, valid := realSets(t)
	p := tinyProtocol
	out := t.TempDir()
	o := TrainOptions{Train: train, Valid: valid, Out: out, Kind: CNN, Protocol: p, Seed: 1, Workers: 1, Budget: time.Nanosecond}
	_, res, err := Train(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.Steps != 0 || len(res.Log) != 1 {
		t.Fatalf("budget 1ns: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(out, CheckpointFile)); err != nil {
		t.Fatal(err)
	}
	o.Resume, o.Budget = true, time.Hour
	if _, res, err = Train(context.Background(), o); err != nil || res.Stopped || res.Steps != p.Steps {
		t.Fatalf("resumed: %+v, %v", res, err)
	}
}

// ReadSet reads the bpRNA split's gzip-compressed dot-bracket files, each
// record's family its source database.
func TestReadSetBpRNA(t *testing.T) {
	set, err := ReadSet("../../../shared/data/bprna/VL0.dbn.gz")
	if err != nil {
		t.Skip(err)
	}
	fams := map[string]int{}
	for _, m := range set {
		fams[m.Family]++
	}
	if len(set) != 1300 || fams[""] != 0 || fams["CRW"] == 0 || fams["RFAM"] == 0 {
		t.Fatalf("%d molecules, families %v", len(set), fams)
	}
}

// Every trainable parameter of every protocol's CNN and SCNN receives a
// gradient from one training step on real molecules: no layer is left
// out of the network's parameter list or cut off from the loss.
func TestEveryParameterGetsAGradient(t *testing.T) {
	all, err := ReadSet("../../data/rna/16s-finalvalid.txt")
	if err != nil {
		t.Fatal(err)
	}
	set := all[:4]
	if err := AttachTemplates(context.Background(), set, TemplateRefs(all[4:10]), false, 0); err != nil {
		t.Fatal(err)
	}
	for k := range set {
		set[k].MFE = set[k].Partner // any structure will do for the energy channels
		for i, j := range set[k].Partner {
			if i < j { // and for the ensemble channel, its pairs at 0.5
				set[k].Ensemble = append(set[k].Ensemble, PairProb{I: int32(i), J: int32(j), P: 0.5})
			}
		}
		if set[k].Ensemble == nil {
			set[k].Ensemble = []PairProb{}
		}
		for _, temp := range FamiliesEnsembleTemps.EnsembleTemps { // the further channels, the same pairs
			set[k].SetEnsemble(EnsembleFold{}.At(temp), set[k].Ensemble)
		}
	}
	for _, p := range Protocols {
		for _, k := range []Kind{CNN, SCNN} {
			m, err := NewModel(k, p, 1)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			b, err := NewBatch(RandomPairWindows(set, 2, 20, rng), m.Record)
			if err != nil {
				t.Fatal(err)
			}
			pass := scnn.TrainingWith(1, nil)
			logits, err := m.Net.Forward(pass, b.In)
			if err != nil {
				t.Fatal(err)
			}
			_, g, err := scnn.WeightedBCE{PosWeight: 5, Workers: 1}.Forward(logits, b.Labels, b.Mask)
			if err != nil {
				t.Fatal(err)
			}
			if err := pass.Backward(logits, g); err != nil {
				t.Fatal(err)
			}
			if m.Net.Trainable() == 0 {
				t.Errorf("%s %s: no trainable parameter", p.Name, k)
			}
			for _, e := range scnn.CheckGradients(m.Net.Params(), pass) {
				t.Errorf("%s %s: %s", p.Name, k, e)
			}
		}
	}
}

// A finished run resumed with no more steps returns at once, without
// preparing templates (minutes on a large training set); with more
// steps it prepares them and trains on.
func TestFinishedRunResumesAtOnce(t *testing.T) {
	train, valid := realSets(t)
	p := tinyProtocol
	p.Template, p.MinIdentity = true, 0.3
	out := t.TempDir()
	opts := func() TrainOptions {
		return TrainOptions{Train: slices.Clone(train), Valid: slices.Clone(valid), Out: out, Kind: CNN, Protocol: p, Seed: 2, Workers: 1}
	}
	if _, _, err := Train(context.Background(), opts()); err != nil {
		t.Fatal(err)
	}
	o := opts()
	o.Resume = true
	_, res, err := Train(context.Background(), o)
	if err != nil || res.Steps != p.Steps {
		t.Fatalf("resumed finished run: %+v, %v", res, err)
	}
	if o.Train[0].Template != nil {
		t.Error("a finished run prepared templates")
	}
	o = opts()
	o.Resume, o.Protocol.Steps = true, p.Steps+p.EvalEvery
	if _, res, err = Train(context.Background(), o); err != nil || res.Steps != p.Steps+p.EvalEvery || o.Train[0].Template == nil {
		t.Fatalf("extended: %+v, %v", res, err)
	}
}

// The templates do not depend on how many goroutines search them.
func TestAttachTemplatesParallelSame(t *testing.T) {
	all, err := ReadSet("../../data/rna/16s-finalvalid.txt")
	if err != nil {
		t.Fatal(err)
	}
	ix := TemplateRefs(all)
	var first []Molecule
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		set := slices.Clone(all)
		err := AttachTemplates(context.Background(), set, ix, true, 0.5)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = set
			continue
		}
		found := 0
		for k := range set {
			a, b := first[k].Template, set[k].Template
			if a.Ref != b.Ref || a.Identity != b.Identity || !slices.Equal(a.Map, b.Map) || !slices.Equal(a.Pairs, b.Pairs) {
				t.Fatalf("molecule %d: template differs between 1 and %d goroutines", k, procs)
			}
			if a.Ref != nil {
				found++
				if a.Ref == all[k].Structure {
					t.Fatalf("molecule %d: its own template", k)
				}
			}
		}
		if found == 0 {
			t.Fatal("no molecule found a template: the test checks nothing")
		}
	}
}

// Length-bucketed batches: a batch of short molecules holds whole
// molecules of at most 2*crop bases, all of the drawn molecule's group and
// all among the 4n of that group nearest in length to the first; a batch
// of long molecules holds windows of exactly 2*crop bases of molecules
// longer than that, of one group. Over many draws both kinds occur, and
// every group does.
func TestBucketWindows(t *testing.T) {
	const n, crop = 4, 16
	rng := rand.New(rand.NewPCG(3, 9))
	var set []Molecule
	for g := 0; g < 2; g++ {
		for k := 0; k < 40; k++ {
			l := 5 + (k*7+g*3)%60 // 5-64 bases: some over 2*crop
			seq := strings.Repeat("GC", l)[:l]
			st := &rna.Structure{Name: fmt.Sprintf("g%d-%d", g, k), Seq: seq, Partner: make([]int, l)}
			for i := range st.Partner {
				st.Partner[i] = -1
			}
			set = append(set, Molecule{Structure: st, Group: g})
		}
	}
	kinds := map[bool]int{}
	groups := map[int]int{}
	for range 300 {
		ws := BucketWindows(set, n, crop, rng)
		if len(ws) != n {
			t.Fatalf("%d windows, want %d", len(ws), n)
		}
		g := ws[0].Mol.Group
		long := len(ws[0].Mol.Seq) > 2*crop
		kinds[long]++
		groups[g]++
		var sameSide []int // lengths of the group's molecules on the first's side
		for _, m := range set {
			if m.Group == g && (len(m.Seq) > 2*crop) == long {
				sameSide = append(sameSide, len(m.Seq))
			}
		}
		slices.Sort(sameSide)
		for _, w := range ws {
			if w.Mol.Group != g || (len(w.Mol.Seq) > 2*crop) != long {
				t.Fatalf("window of %s (group %d, %d bases) in a batch of group %d, long %v", w.Mol.Name, w.Mol.Group, len(w.Mol.Seq), g, long)
			}
			if long {
				if w.Size() != 2*crop {
					t.Fatalf("long window of %d bases, want %d", w.Size(), 2*crop)
				}
				continue
			}
			if w.Start != 0 || w.Len != len(w.Mol.Seq) || w.Len2 != 0 {
				t.Fatalf("short window %+v is not its molecule whole", w)
			}
			// Within 4n of the first in the group's length order (equal
			// lengths take any of their ranks).
			first, last := func(x int) int { return slices.Index(sameSide, x) }, func(x int) int {
				i, _ := slices.BinarySearch(sameSide, x+1)
				return i - 1
			}
			l0, l := len(ws[0].Mol.Seq), len(w.Mol.Seq)
			if first(l)-last(l0) >= 4*n || first(l0)-last(l) >= 4*n {
				t.Fatalf("batch of a %d-base molecule holds one of %d bases: further than %d apart in length order %v", l0, l, 4*n, sameSide)
			}
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 || groups[0] == 0 || groups[1] == 0 {
		t.Errorf("batches: long %d, short %d; groups %v", kinds[true], kinds[false], groups)
	}
}

// A network trained with every template dropped (TemplateDrop 1) records
// it, and its inference ignores a template, even an identical one: the
// probabilities equal those without any, while the same network without
// the flag reads it.
func TestNoTemplateInference(t *testing.T) {
	train, _ := realSets(t) // 200-nt molecules
	same := *train[0].Structure
	q := []Molecule{{Structure: &same}}
	if err := AttachTemplates(context.Background(), q, TemplateRefs(train[:1]), false, 0.5); err != nil {
		t.Fatal(err)
	}
	if q[0].Template == nil || q[0].Template.Ref == nil {
		t.Fatal("no template for a copy of the reference")
	}
	m, err := NewModel(SCNN, FamiliesNoTemplateForTest, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Record.NoTemplate {
		t.Fatal("the record does not say the templates were dropped")
	}
	with, err := m.ProbabilitiesWith(q[0].Seq, q[0].Template, 1)
	if err != nil {
		t.Fatal(err)
	}
	without, err := m.ProbabilitiesWith(q[0].Seq, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(with, without) {
		t.Fatal("a no-template network read the template")
	}
	m.Record.NoTemplate = false
	reads, err := m.ProbabilitiesWith(q[0].Seq, q[0].Template, 1)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(reads, without) {
		t.Fatal("the template changes nothing even without the flag: the test sees nothing")
	}
}

// FamiliesNoTemplateForTest is families-ensemble-notemplate without the
// ensemble channel (no partition function in the test).
var FamiliesNoTemplateForTest = withName(Families, "families-notemplate-test", func(p *Protocol) { p.TemplateDrop = 1 })
