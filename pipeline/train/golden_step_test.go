package train

import (
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// goldenStep runs one training forward and backward pass of m on b and
// returns the loss, the logits and the trainable parameters with their
// gradients.
func goldenStep(t *testing.T, m *Model, b *Batch) (float64, []float32, []*scnn.Param) {
	t.Helper()
	for _, p := range m.Params() {
		p.ZeroGrad()
	}
	logits, err := m.Forward(b, true)
	if err != nil {
		t.Fatal(err)
	}
	loss, g, err := scnn.WeightedBCE{PosWeight: 5}.Forward(logits, b.Labels, b.Mask)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Backward(g); err != nil {
		t.Fatal(err)
	}
	var ps []*scnn.Param
	for _, p := range m.Params() {
		if p.Trainable {
			ps = append(ps, p)
		}
	}
	return loss, append([]float32(nil), logits.Data...), ps
}
