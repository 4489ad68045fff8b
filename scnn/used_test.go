package scnn

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A training pass lists the parameters of every layer it applied, each
// once, in the order first applied (what the training loop checks
// against the parameters it optimises); an inference pass lists none.
func TestPassUsed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	lstm, err := NewBiLSTM("lstm", 3, 2, rng)
	must(err)
	dense, err := NewDense("fc", 4, 2, rng)
	must(err)
	conv, err := NewConv2D("conv", 3, 2, 2, rng)
	must(err)
	sym, err := NewSymPresConv("sym", 3, 2, 2, rng)
	must(err)
	gen, err := NewSymGenConv("gen", 1, 1, 2, rng)
	must(err)
	bn := NewBatchNorm2D("bn", 2)
	emb, err := NewEmbedding("emb", 5, 3, 0.1, rng)
	must(err)
	unused, err := NewDense("unused", 4, 2, rng)
	must(err)
	_ = unused

	p := TrainingWith(1, nil)
	x := New(1, 4, 4, 2)
	for i := range x.Data {
		x.Data[i] = float32(rng.NormFloat64())
	}
	y, err := conv.Apply(p, x)
	must(err)
	y, err = bn.Apply(p, y, []int{4})
	must(err)
	y2, err := conv.Apply(p, y)
	must(err)
	pk, err := Pack(y2)
	must(err)
	z, err := sym.Apply(p, pk)
	must(err)
	_ = z
	seq := New(1, 4, 1)
	_, err = gen.Apply(p, seq)
	must(err)
	ids, err := emb.Lookup(p, []int32{1, 2}, 2)
	must(err)
	_, err = dense.Apply(p, New(2, 4))
	must(err)
	_ = ids
	in := New(1, 4, 3)
	_, err = lstm.Apply(p, in, []int{4})
	must(err)
	var want []*Param
	for _, l := range []Layer{conv, bn, sym, gen, emb, dense, lstm} {
		want = append(want, l.Params()...)
	}
	if got := p.Used(); !slices.Equal(got, want) {
		names := func(ps []*Param) (n []string) {
			for _, q := range ps {
				n = append(n, q.Name)
			}
			return n
		}
		t.Fatalf("used %v, want %v", names(got), names(want))
	}
	if u := Inference(1).Used(); u != nil {
		t.Fatalf("an inference pass lists %d parameters", len(u))
	}
}
