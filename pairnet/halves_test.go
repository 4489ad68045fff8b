package pairnet

import (
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// Spec.InfersByHalves says what a network built from the Spec does in an
// inference pass: true for the protein networks of both kinds and the
// RNA CNN, false for the RNA SCNN (ReLU after its sgConv maps) and for a
// network without blocks.
func TestInfersByHalves(t *testing.T) {
	noBlocks := proteinDefault(false)
	noBlocks.Blocks = nil
	for _, c := range []struct {
		name string
		s    Spec
		want bool
	}{
		{"protein CNN", proteinDefault(false), true},
		{"protein SCNN", proteinDefault(true), true},
		{"RNA CNN", rnaDefault(false), true},
		{"RNA SCNN", rnaDefault(true), false},
		{"no blocks", noBlocks, false},
	} {
		if got := c.s.InfersByHalves(); got != c.want {
			t.Errorf("%s: InfersByHalves %v, want %v", c.name, got, c.want)
		}
		net, err := New(c.s, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := net.byHalves(scnn.Inference(1)); got != c.want {
			t.Errorf("%s: the network's inference by halves %v, want %v", c.name, got, c.want)
		}
		if got := net.byHalves(scnn.Training(1)); got != c.want {
			t.Errorf("%s: the network's training by halves %v, want %v", c.name, got, c.want)
		}
		net.materialize = true
		if net.byHalves(scnn.Training(1)) || net.byHalves(scnn.Inference(1)) {
			t.Errorf("%s: goes by halves when told to materialise its maps", c.name)
		}
	}
}
