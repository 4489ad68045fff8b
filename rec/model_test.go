package rec

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
)

// Parameter counts at ML-1M's sizes (6,040 users, 3,416 items, CosRec's
// split), counted by hand from CosRec's layers:
//
//	embeddings: users 6040*50, items 3417*50, W2 3417*200, b2 3417  = 1,159,667
//	block 1: conv1 100*128+128, bn 2*128, conv3 9*128*128+128, bn   = 161,024
//	block 2: conv1 128*256+256, bn 2*256, conv3 9*256*256+256, bn   = 624,128
//	fc 256*150+150                                                  = 38,550
//
// 1,983,369 for CosRec (the paper: 1.983M). SCosRec ties the first 1x1
// (50*128 free instead of 100*128) and the 3x3 kernels (6 of 9 positions):
// 1,983,369 - 6,400 - 49,152 - 196,608 = 1,731,209 (the paper: 1.730M).
func TestParameterCountsML1M(t *testing.T) {
	for kind, want := range map[scnn.Kind]int{CosRec: 1983369, SCosRec: 1731209} {
		m, err := NewModel(DefaultConfig(kind, 6040, 3416), 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Trainable(); got != want {
			t.Errorf("%s: %d trainable parameters, want %d", kind, got, want)
		}
	}
}

// smallConfig is a narrow network for tests.
func smallConfig(kind scnn.Kind, users, items int) Config {
	return Config{Kind: kind, Users: users, Items: items, L: 5, D: 4, Blocks: []int{6, 5}, FC: 7, Dropout: 0.5}
}

// SCosRec computed on triangles equals CosRec with the tied kernels
// computed on full maps: the sgConv is a 1x1 convolution of the pairwise
// encoding with W = [S; S], the spConvs convolutions with Q[a,b] = Q[b,a].
// Batch statistics (training pass) and running statistics (inference)
// both.
func TestSCosRecEqualsTiedCosRec(t *testing.T) {
	sym, err := NewModel(smallConfig(SCosRec, 3, 9), 5)
	if err != nil {
		t.Fatal(err)
	}
	full, err := NewModel(smallConfig(CosRec, 3, 9), 6)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range sym.Params() { // non-trivial biases and batchnorm
		if p.Trainable {
			for i := range p.Value {
				p.Value[i] += float32(0.1 * rng.NormFloat64())
			}
		}
	}
	for _, e := range [][2]*scnn.Embedding{{full.UserEmb, sym.UserEmb}, {full.ItemEmb, sym.ItemEmb}, {full.Out, sym.Out}, {full.OutBias, sym.OutBias}} {
		copy(e[0].W.Value, e[1].W.Value)
	}
	copy(full.FCLayer.W.Value, sym.FCLayer.W.Value)
	copy(full.FCLayer.B.Value, sym.FCLayer.B.Value)
	for i, fb := range full.blocks {
		sb := sym.blocks[i]
		if i == 0 {
			copy(fb.full1.W.Value, sb.gen.Kernel())
			copy(fb.full1.B.Value, sb.gen.B.Value)
		} else {
			copy(fb.full1.W.Value, sb.sym1.Kernel())
			copy(fb.full1.B.Value, sb.sym1.B.Value)
		}
		copy(fb.full3.W.Value, sb.sym3.Kernel())
		copy(fb.full3.B.Value, sb.sym3.B.Value)
		for k, bn := range []*scnn.BatchNorm2D{fb.bn1, fb.bn3} {
			src := []*scnn.BatchNorm2D{sb.bn1, sb.bn3}[k]
			for j, p := range bn.Params() {
				copy(p.Value, src.Params()[j].Value)
			}
		}
	}
	users := []int32{0, 2, 1, 2}
	seq := []int32{1, 2, 3, 4, 5, 0, 0, 9, 8, 7, 3, 3, 3, 3, 3, 6, 1, 6, 2, 6}
	cands := []int32{1, 2, 3, 4, 5, 6, 7, 8}
	for _, train := range []bool{false, true} {
		var ys [2]*scnn.Tensor
		for k, m := range []*Model{sym, full} {
			p := scnn.Inference(1)
			if train {
				p = scnn.Training(1)
				p.RunningStats = false
			}
			// Dropout off: the same mask cannot be drawn for both.
			m.Dropout = 0
			y, err := m.Forward(p, users, seq, cands, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			ys[k] = y
		}
		for i := range ys[0].Data {
			if d := math.Abs(float64(ys[0].Data[i] - ys[1].Data[i])); d > 1e-4*math.Max(1, math.Abs(float64(ys[1].Data[i]))) {
				t.Fatalf("train=%v: score %d: triangles %g, full %g", train, i, ys[0].Data[i], ys[1].Data[i])
			}
		}
	}
}

// The loss and its gradient: central differences of Loss in float64.
func TestLossGradient(t *testing.T) {
	s, _ := scnn.FromData([]float32{2, -1, 0.5, 0.3, -2, 1, 0, 4}, 2, 4)
	v, g, err := Loss(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: positives (2,-1,-2,1), negatives (0.5,0.3,0,4).
	want := (softplus(-2)+softplus(1)+softplus(2)+softplus(-1))/4 + (softplus(0.5)+softplus(0.3)+softplus(0)+softplus(4))/4
	if math.Abs(v-want) > 1e-6 { // the scores are float32
		t.Errorf("loss %v, want %v", v, want)
	}
	for i := range s.Data {
		old := s.Data[i]
		s.Data[i] = old + 1e-3
		lp, _, _ := Loss(s, 2)
		s.Data[i] = old - 1e-3
		lm, _, _ := Loss(s, 2)
		s.Data[i] = old
		if num := (lp - lm) / 2e-3; math.Abs(num-float64(g.Data[i])) > 1e-4 {
			t.Errorf("dL/ds[%d]: numeric %g analytic %g", i, num, g.Data[i])
		}
	}
	bad, _ := scnn.FromData([]float32{float32(math.NaN()), 0}, 1, 2)
	if _, _, err := Loss(bad, 1); err == nil {
		t.Error("NaN score: no error")
	}
}

// syntheticData is a small data set with sequential structure: user u
// walks items u, u+1, u+2, ... (mod n), so the next item is predictable.
func syntheticData(t *testing.T, users, items, length int) *Dataset {
	var rs []Rating
	for u := 0; u < users; u++ {
		for i := 0; i < length; i++ {
			rs = append(rs, Rating{User: int64(u + 1), Item: int64((u+i)%items + 1), Score: 1, Time: int64(i)})
		}
	}
	d, err := NewDataset(rs)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A short training run on structured data lowers the loss and beats the
// most-popular baseline on validation; an interrupted run resumed from its
// checkpoint ends with exactly the parameters of an uninterrupted one.
func TestTrainLearnsAndResumes(t *testing.T) {
	d := syntheticData(t, 40, 30, 30)
	dir := t.TempDir()
	cfg := smallConfig(SCosRec, 0, 0)
	opts := func(out string, epochs int) TrainOptions {
		return TrainOptions{Data: d, Out: out, Kind: SCosRec, Seed: 3, Epochs: epochs, Batch: 64, LR: 1e-2, Workers: 1, Config: &cfg}
	}
	full := filepath.Join(dir, "full")
	res, err := Train(context.Background(), opts(full, 6))
	if err != nil {
		t.Fatal(err)
	}
	if first, last := res.Log[0].TrainLoss, res.Log[len(res.Log)-1].TrainLoss; !(last < 0.7*first) {
		t.Errorf("training loss %v -> %v: did not drop by 30%%", first, last)
	}
	pop, err := Evaluate(d, Validation, Popularity(d), 64)
	if err != nil {
		t.Fatal(err)
	}
	if p := Summarize(pop).MAP; !(res.BestMAP > p) {
		t.Errorf("validation MAP %v not above most-popular %v", res.BestMAP, p)
	}
	part := filepath.Join(dir, "part")
	if _, err := Train(context.Background(), opts(part, 3)); err != nil {
		t.Fatal(err)
	}
	o := opts(part, 6)
	o.Resume, o.Seed, o.Workers = true, 0, 0
	if _, err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	sameCheckpoints(t, full, part)
	a, err := loop.Info(full, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loop.Info(part, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.BestRound != b.BestRound || len(b.Log) != 6 || !b.Done {
		t.Errorf("best epochs %d and %d, %d epochs logged, done %v", a.BestRound, b.BestRound, len(b.Log), b.Done)
	}
	// A run directory is not overwritten without --force.
	if _, err := Train(context.Background(), opts(full, 1)); err == nil {
		t.Error("training over a finished run without Force: no error")
	}
	// The model file loads and scores.
	m, r, err := Load(filepath.Join(full, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	if r.Seed != 3 || r.Epoch != a.BestRound || m.Trainable() == 0 || len(r.ItemRaw) != d.Items+1 {
		t.Errorf("record %+v", r)
	}
	if _, err := os.Stat(filepath.Join(full, LogFile)); err != nil {
		t.Error(err)
	}
}
