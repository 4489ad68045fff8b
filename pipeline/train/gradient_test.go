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
			listed := map[*scnn.Param]bool{}
			for _, p := range m.Params() {
				listed[p] = true
				if !p.Trainable {
					continue
				}
				nonzero := false
				for _, v := range p.Grad {
					nonzero = nonzero || v != 0
				}
				if !nonzero {
					t.Errorf("%s: no gradient", p.Name)
				}
			}
			for _, p := range pass.Used() {
				if !listed[p] {
					t.Errorf("%s: used by the network, not among its parameters", p.Name)
				}
			}
			if len(pass.Used()) != len(m.Params()) {
				t.Errorf("the pass used %d parameters of the model's %d", len(pass.Used()), len(m.Params()))
			}
		})
	}
}
