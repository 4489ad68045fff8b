package pairnet_test

import (
	"fmt"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/scnn"
)

// A small symmetric pair network on one-hot sequences, one training step,
// then inference: its map is exactly symmetric.
func Example() {
	spec := pairnet.Spec{Symmetric: true, In1D: 4, LSTMHidden: 4, LSTMOut: 2,
		Pair:     pairnet.MapSpec{Width: 8, BN: true, ReLU: true},
		Blocks:   []pairnet.Block{pairnet.Uniform(4, 5, 3)},
		Reinject: &pairnet.MapSpec{Width: 4}, OutKernel: 3}
	net, err := pairnet.New(spec, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	const l = 10
	x := scnn.New(1, l, 4)
	labels, mask := make([]float32, l*l), make([]float32, l*l)
	for i := 0; i < l; i++ {
		x.Data[i*4+i%4] = 1 // letter i%4
		for j := 0; j < l; j++ {
			mask[i*l+j] = 1
			if (i%4)+(j%4) == 3 {
				labels[i*l+j] = 1
			}
		}
	}
	in := pairnet.Inputs{X1: x, Lengths: []int{l}}

	opt := scnn.NewAdam(net.Params(), 1e-3, 1e-5)
	p := scnn.Training(0)
	logits, _ := net.Forward(p, in)
	_, grad, _ := scnn.WeightedBCE{PosWeight: 5}.Forward(logits, labels, mask)
	opt.ZeroGrad()
	if err := p.Backward(logits, grad); err != nil { // every parameter gradient
		fmt.Println(err)
	}
	opt.Step()

	logits, _ = net.Forward(scnn.Inference(0), in)
	full, _ := scnn.Unpack(logits)
	fmt.Println("trainable parameters:", net.Trainable())
	fmt.Println("output:", logits.Layout, logits.Shape)
	fmt.Println("symmetric:", scnn.MaxAbsAsymmetry(full) == 0)
	// Output:
	// trainable parameters: 1167
	// output: packed [1 10 10 1]
	// symmetric: true
}
