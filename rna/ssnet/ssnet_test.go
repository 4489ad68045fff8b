package ssnet

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"math"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// The paper protocol's networks have the parameter counts of the paper's
// RNA networks as counted by hand in pairnet's tests (387,466 and 239,316;
// the paper reports 387,798 and 239,198).
func TestPaperParameterCounts(t *testing.T) {
	for k, want := range map[Kind]int{CNN: 387466, SCNN: 239316} {
		m, err := NewModel(k, Paper, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Net.Trainable(); got != want {
			t.Errorf("%s: %d trainable parameters, want %d", k, got, want)
		}
	}
}

func TestFamilyAndBatch(t *testing.T) {
	if f := familyOf("testdata/16s_small/d.16.m.V.ursinus.ct"); f != "16s_small" {
		t.Errorf("family %q", f)
	}
	if f := familyOf("strand/16s/CRW_00373.ct"); f != "" {
		t.Errorf("training record family %q", f)
	}
	s, err := rna.New("x", "GGGAAACCCU", [][2]int{{0, 8}, {1, 7}, {2, 6}})
	if err != nil {
		t.Fatal(err)
	}
	m := &Molecule{Structure: s}
	b, err := NewBatch([]Window{{Mol: m, Start: 1, Len: 7}, {Mol: m, Start: 0, Len: 4}}, Record{Spec: Default.Spec(CNN)})
	if err != nil {
		t.Fatal(err)
	}
	// Window 0 covers bases 1..7: pairs (1,7) and (2,6) -> (0,6), (1,5).
	if b.L != 7 || b.Labels[0*7+6] != 1 || b.Labels[6*7+0] != 1 || b.Labels[1*7+5] != 1 || b.Labels[2*7+4] != 0 {
		t.Errorf("window labels %v", b.Labels[:49])
	}
	// Window 1 covers 0..3: no pair inside; the mask is 4 x 4.
	var n, lab float32
	for i := 0; i < 49; i++ {
		n += b.Mask[49+i]
		lab += b.Labels[49+i]
	}
	if n != 16 || lab != 0 || b.In.Lengths[1] != 4 {
		t.Errorf("second window: mask %v labels %v lengths %v", n, lab, b.In.Lengths)
	}
	// One-hot: base 1 of the molecule is G (channel 2) at position 0.
	if b.In.X1.At(0, 0, 2) != 1 || b.In.X1.At(0, 6, 3) != 0 || b.In.X1.At(0, 5, 1) != 1 {
		t.Error("one-hot encoding")
	}
}

// tinyProtocol trains in a second.
var tinyProtocol = Protocol{Name: "tiny", Crop: 48, Steps: 40, Batch: 4, LRCNN: 1e-2, LRSCNN: 2e-2, L2: 1e-5, PosWeight: 5, EvalEvery: 20, HalveEvery: 15,
	LSTMHidden: 4, LSTMOut: 3, Block1: []int{5, 3}, Widths1: []int{4, 4}, Block2: []int{3}, Widths2: []int{4},
	Block3: 3, Width3: 4, PairWidth: 16, ReinjectWidth: 10}

// realSets are a few real molecules of the bundled training and
// validation files, cut short so that validation is quick.
func realSets(t *testing.T) (train, valid []Molecule) {
	all, err := ReadSet("../../data/rna/16s-finalvalid.txt")
	if err != nil {
		t.Fatal(err)
	}
	cut := func(m Molecule, n int) Molecule {
		p := slices.Clone(m.Partner[:n])
		for i, q := range p {
			if q >= n {
				p[i] = rna.Unpaired
			}
		}
		return Molecule{Structure: &rna.Structure{Name: m.Name, Seq: m.Seq[:n], Partner: p}}
	}
	for i := 0; i < 6; i++ {
		train = append(train, cut(all[i], 200))
	}
	return train, []Molecule{cut(all[10], 120), cut(all[11], 120)}
}

func TestTinyTrainingOnRealMolecules(t *testing.T) {
	train, valid := realSets(t)
	for _, k := range []Kind{CNN, SCNN} {
		dir := t.TempDir()
		opts := func(out string, steps int) TrainOptions {
			p := tinyProtocol
			p.Steps = steps
			return TrainOptions{Train: train, Valid: valid, Out: out, Kind: k, Protocol: p, Seed: 2, Workers: 1}
		}
		var losses []float64
		o := opts(filepath.Join(dir, "full"), 40)
		o.OnStep = func(_ int, l float64) { losses = append(losses, l) }
		m, res, err := Train(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		first, last := mean(losses[:10]), mean(losses[30:])
		t.Logf("%s: loss %.3f -> %.3f, validation accuracy %v", k, first, last, res.Log)
		if !(last < 0.8*first) {
			t.Errorf("%s: loss %.3f -> %.3f did not drop", k, first, last)
		}
		p, err := m.Probabilities(valid[0].Seq, 1)
		if err != nil {
			t.Fatal(err)
		}
		l := len(valid[0].Seq)
		for i := 0; i < l; i++ {
			if p[i*l+i] != 0 {
				t.Fatalf("diagonal %d: %g", i, p[i*l+i])
			}
			for j := 0; j < l; j++ {
				if p[i*l+j] != p[j*l+i] || !(p[i*l+j] >= 0 && p[i*l+j] <= 1) {
					t.Fatalf("p[%d,%d] = %g, p[%d,%d] = %g", i, j, p[i*l+j], j, i, p[j*l+i])
				}
			}
		}
		// Interrupted after 20 steps and resumed: the same parameters.
		part := filepath.Join(dir, "part")
		if _, _, err := Train(context.Background(), opts(part, 20)); err != nil {
			t.Fatal(err)
		}
		ro := opts(part, 40)
		ro.Resume, ro.Seed, ro.Workers = true, 0, 0
		if _, _, err := Train(context.Background(), ro); err != nil {
			t.Fatal(err)
		}
		ca, err := checkpoint.Load(filepath.Join(dir, "full", CheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		cb, err := checkpoint.Load(filepath.Join(part, CheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		var a loop.State
		if err := json.Unmarshal(ca.Loop, &a); err != nil {
			t.Fatal(err)
		}
		pa, pb := append(ca.Params, ca.Moments...), append(cb.Params, cb.Moments...)
		if len(pa) != len(pb) || ca.OptSteps != cb.OptSteps {
			t.Fatalf("%s: checkpoints of %d and %d arrays, %d and %d steps", k, len(pa), len(pb), ca.OptSteps, cb.OptSteps)
		}
		for i := range pa {
			if !slices.Equal(pa[i].Values, pb[i].Values) {
				t.Fatalf("%s: %s differs after resuming", k, pa[i].Name)
			}
		}
		best, err := Load(filepath.Join(dir, "full", ModelFile))
		if err != nil {
			t.Fatal(err)
		}
		if best.Record.Kind != k || best.Record.Step != a.BestStep || best.Record.Seed != 2 {
			t.Errorf("%s: record %+v", k, best.Record)
		}
	}
}

func TestLRAt(t *testing.T) {
	p := Protocol{LRCNN: 1e-3, LRSCNN: 2e-3, HalveEvery: 100}
	for _, c := range []struct {
		k    Kind
		step int
		want float64
	}{{CNN, 0, 1e-3}, {CNN, 99, 1e-3}, {CNN, 100, 5e-4}, {SCNN, 250, 5e-4}, {SCNN, 300, 2.5e-4}} {
		if got := p.LRAt(c.k, c.step); got != c.want {
			t.Errorf("%s step %d: lr %g, want %g", c.k, c.step, got, c.want)
		}
	}
	p.HalveEvery = 0
	if got := p.LRAt(SCNN, 10000); got != 2e-3 {
		t.Errorf("without halving: lr %g at step 10000", got)
	}
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func TestRandomWindowsFit(t *testing.T) {
	train, _ := realSets(t)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, w := range RandomWindows(train, 100, 64, rng) {
		if w.Len != 64 || w.Start < 0 || w.Start+w.Len > len(w.Mol.Seq) {
			t.Fatalf("window %d+%d of %d", w.Start, w.Len, len(w.Mol.Seq))
		}
	}
}

// Probabilities reads the network's upper triangle, packed (SCNN) or
// row-major (CNN), at the right places: sigmoid of logit (i, j) read by
// index from the network's own output.
func TestProbabilitiesReadTheUpperTriangle(t *testing.T) {
	seq := "GGGCGCAAGCCUGCGCCCUUUUGGGCGCAAGCCUGCGCCCAN"
	for _, k := range []Kind{CNN, SCNN} {
		m, err := NewModel(k, tinyProtocol, 4)
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.Probabilities(seq, 1)
		if err != nil {
			t.Fatal(err)
		}
		logits, err := m.Net.Forward(scnn.Inference(1), OneHot([]string{seq}))
		if err != nil {
			t.Fatal(err)
		}
		l := len(seq)
		for i := 0; i < l; i++ {
			for j := i + 1; j < l; j++ {
				want := 1 / (1 + math.Exp(-float64(logits.At(0, i, j, 0))))
				if d := math.Abs(float64(p[i*l+j]) - want); d > 1e-6 || p[j*l+i] != p[i*l+j] {
					t.Fatalf("%s: p[%d,%d] = %g, p[%d,%d] = %g, want %g", k, i, j, p[i*l+j], j, i, p[j*l+i], want)
				}
			}
		}
	}
}

func TestResumeRefusesOtherSettings(t *testing.T) {
	train, valid := realSets(t)
	out := t.TempDir()
	p := tinyProtocol
	p.Steps = 20
	if _, _, err := Train(context.Background(), TrainOptions{Train: train, Valid: valid, Out: out, Kind: SCNN, Protocol: p, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	p.Steps, p.Crop = 40, 40
	_, _, err := Train(context.Background(), TrainOptions{Train: train, Valid: valid, Out: out, Kind: SCNN, Protocol: p, Resume: true})
	if err == nil || !strings.Contains(err.Error(), "other \"tiny\" settings") {
		t.Fatalf("resume under another crop: %v", err)
	}
	p.Crop = tinyProtocol.Crop // the steps alone may change: the run is extended
	if _, _, err := Train(context.Background(), TrainOptions{Train: train, Valid: valid, Out: out, Kind: SCNN, Protocol: p, Resume: true}); err != nil {
		t.Fatal(err)
	}
}

// A bfloat16 run (the portable kernels: any CPU) records its precision in
// the model, restores the process's precision, and resumes only in it.
func TestPrecisionRecordedAndKept(t *testing.T) {
	train, valid := realSets(t)
	out := t.TempDir()
	p := tinyProtocol
	p.Steps = 20
	m, _, err := Train(context.Background(), TrainOptions{Train: train, Valid: valid, Out: out, Kind: SCNN, Protocol: p, Workers: 1, Precision: "bfloat16/go"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Record.Precision != "bfloat16/go" {
		t.Errorf("model precision %q", m.Record.Precision)
	}
	if got := scnn.GemmPrecision(); got != "float32" {
		t.Errorf("after the run the precision is %s", got)
	}
	p.Steps = 40
	if _, _, err := Train(context.Background(), TrainOptions{Train: train, Valid: valid, Out: out, Kind: SCNN, Protocol: p, Resume: true, Precision: "float32"}); err == nil || !strings.Contains(err.Error(), "bfloat16/go") {
		t.Fatalf("resuming a bfloat16 run in float32: %v", err)
	}
	m, _, err = Train(context.Background(), TrainOptions{Train: train, Valid: valid, Out: out, Kind: SCNN, Protocol: p, Resume: true})
	if err != nil || m.Record.Precision != "bfloat16/go" {
		t.Fatalf("resumed run: precision %q, %v", m.Record.Precision, err)
	}
}
