package train

import (
	"github.com/contactmap/contactmap/pipeline/model"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// goldenStep runs one training forward and backward pass of m on b and
// returns the loss, the logits and the trainable parameters with their
// gradients.
func goldenStep(t *testing.T, m *model.Model, b *model.Batch) (float64, []float32, []*scnn.Param) {
	t.Helper()
	for _, p := range m.Params() {
		p.ZeroGrad()
	}
	pass := scnn.Training(2)
	logits, err := m.Forward(pass, b)
	if err != nil {
		t.Fatal(err)
	}
	loss, g, err := scnn.WeightedBCE{PosWeight: 5}.Forward(logits, b.Labels, b.Mask)
	if err != nil {
		t.Fatal(err)
	}
	if err := pass.Backward(logits, g); err != nil {
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
