package rec

import (
	"math/rand/v2"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// Every trainable parameter of CosRec and SCosRec at their default
// configuration receives a non-zero gradient from one training step,
// and the training pass uses no parameter outside the model's list.
func TestEveryParameterGetsAGradient(t *testing.T) {
	const users, items, b, tgt = 6, 40, 6, 3
	for _, kind := range []Kind{CosRec, SCosRec} {
		t.Run(string(kind), func(t *testing.T) {
			m, err := NewModel(DefaultConfig(kind, users, items), 2)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			us := make([]int32, b)
			seq := make([]int32, b*m.L)
			cands := make([]int32, b*2*tgt)
			for i := range us {
				us[i] = int32(i % users)
			}
			for i := range seq {
				seq[i] = int32(1 + rng.IntN(items))
			}
			// Every item is a candidate of some window, so that every row
			// of the output embeddings can receive a gradient.
			for i := range cands {
				cands[i] = int32(1 + i%items)
			}
			pass := scnn.TrainingWith(1, nil)
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
			for _, e := range scnn.CheckGradients(m.Params(), pass) {
				t.Error(e)
			}
		})
	}
}
