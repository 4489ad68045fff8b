package train

import (
	"testing"

	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/scnn"
)

// Every trainable parameter of the shipped architectures (the default
// CNN and SCNN, which the shipped models and the ensemble's members
// use) and of the paper's receives a non-zero gradient from one training
// step on real chains, and the training pass uses no parameter outside
// the model's list: no layer is left out of training or of the model
// file.
func TestEveryParameterGetsAGradient(t *testing.T) {
	samples, _, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []model.Arch{model.DefaultArch(model.CNN), model.DefaultArch(model.SCNN), model.PaperArch(model.CNN), model.PaperArch(model.SCNN)} {
		t.Run(string(arch.Kind)+"/"+arch.Config, func(t *testing.T) {
			if testing.Short() && arch.Config == "paper" {
				t.Skip("paper widths")
			}
			m, err := model.NewModel(arch, 3)
			if err != nil {
				t.Fatal(err)
			}
			b := model.NewBatch(samples[:4], m.Packed())
			pass := scnn.TrainingWith(2, nil)
			logits, err := m.Forward(pass, b)
			if err != nil {
				t.Fatal(err)
			}
			_, g, err := scnn.WeightedBCE{PosWeight: 5}.Forward(logits, b.Labels, b.Mask)
			if err != nil {
				t.Fatal(err)
			}
			if err := pass.Backward(logits, g); err != nil {
				t.Fatal(err)
			}
			for _, e := range scnn.CheckGradients(m.Params(), pass) {
				t.Error(e)
			}
		})
	}
}
