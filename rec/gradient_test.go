package rec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// Every trainable parameter of CosRec and SCosRec at their default
// configuration receives a non-zero gradient from one training step,
// and the training pass uses no parameter outside the model's list.
func TestEveryParameterGetsAGradient(t *testing.T) {
	const users, items, b, tgt = 6, 40, 6, 3
	for _, kind := range []scnn.Kind{CosRec, SCosRec} {
		t.Run(string(kind), func(t *testing.T) {
			m, err := NewModel(DefaultConfig(kind, users, items), 2)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			us, seq, cands := gradientBatch(rng, m, users, items, b, tgt)
			pass := scnn.TrainingWith(1, nil)
			forwardBackward(t, m, pass, us, seq, cands, tgt, rng)
			for _, e := range scnn.CheckGradients(m.Params(), pass) {
				t.Error(e)
			}
		})
	}
}

// Training steps on recycled storage give the gradients of a step on new,
// zeroed storage, bit for bit, though the recycler poisons with NaN every
// buffer it hands out unzeroed (scnn.Recycler.Poison): CosRec and
// SCosRec at their default widths, dropout drawn alike in every step.
func TestRecycledStorageChangesNothing(t *testing.T) {
	const users, items, b, tgt = 6, 40, 24, 3
	for _, kind := range []scnn.Kind{CosRec, SCosRec} {
		m, err := NewModel(DefaultConfig(kind, users, items), 2)
		if err != nil {
			t.Fatal(err)
		}
		us, seq, cands := gradientBatch(rand.New(rand.NewPCG(1, 2)), m, users, items, b, tgt)
		step := func(pass *scnn.Pass) [][]float32 {
			for _, p := range m.Params() {
				clear(p.Grad)
			}
			forwardBackward(t, m, pass, us, seq, cands, tgt, rand.New(rand.NewPCG(7, 7)))
			var grads [][]float32
			for _, p := range m.Params() {
				grads = append(grads, append([]float32(nil), p.Grad...))
			}
			pass.Free()
			return grads
		}
		want := step(scnn.TrainingWith(1, nil))
		r := &scnn.Recycler{Poison: true}
		for k := 0; k < 2; k++ {
			got := step(scnn.TrainingWith(1, r))
			if r.Held() == 0 {
				t.Fatalf("%s: nothing recycled: the test checks nothing", kind)
			}
			for i := range want {
				for j := range want[i] {
					if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
						t.Fatalf("%s step %d: gradient of %s[%d] %v on recycled storage, %v on new", kind, k+1, m.Params()[i].Name, j, got[i][j], want[i][j])
					}
				}
			}
		}
	}
}

// gradientBatch is a batch of b windows for m: users in turn, random
// items, and every item a candidate of some window (so that every row of
// the output embeddings can receive a gradient), tgt targets each.
func gradientBatch(rng *rand.Rand, m *Model, users, items, b, tgt int) (us, seq, cands []int32) {
	us, seq, cands = make([]int32, b), make([]int32, b*m.L), make([]int32, b*2*tgt)
	for i := range us {
		us[i] = int32(i % users)
	}
	for i := range seq {
		seq[i] = int32(1 + rng.IntN(items))
	}
	for i := range cands {
		cands[i] = int32(1 + i%items)
	}
	return us, seq, cands
}

// forwardBackward runs a training pass of m on the batch and its loss's
// backward step (the gradients added to m's parameters).
func forwardBackward(t *testing.T, m *Model, pass *scnn.Pass, us, seq, cands []int32, tgt int, rng *rand.Rand) {
	t.Helper()
	scores, err := m.Forward(pass, us, seq, cands, rng)
	if err != nil {
		t.Fatal(err)
	}
	_, g, err := Loss(scores, tgt)
	if err != nil {
		t.Fatal(err)
	}
	if err := pass.Backward(scores, g); err != nil {
		t.Fatal(err)
	}
}
