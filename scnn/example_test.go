package scnn_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/contactmap/contactmap/scnn"
)

// A symmetric network from 1D features to contact logits, one training
// step, and a check that the prediction is a symmetric map.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	const batch, length, features = 2, 12, 5
	lengths := []int{12, 9} // the second chain is padded

	sg, _ := scnn.NewSymGenConv("sg", 1, features, 8, rng) // outer sum a_i + a_j
	bn := scnn.NewBatchNorm2D("bn", 8)
	sp, _ := scnn.NewSymPresConv("sp", 5, 8, 1, rng)
	params := append(append(sg.Params(), bn.Params()...), sp.Params()...)
	opt := scnn.NewAdam(params, 2e-3, 1e-5)

	x := scnn.New(batch, length, features)
	for i := range x.Data {
		x.Data[i] = float32(rng.NormFloat64())
	}
	scnn.MaskSequences(nil, x, lengths)
	labels := make([]float32, batch*length*length)
	mask := make([]float32, batch*length*length)
	for b, n := range lengths {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				mask[(b*length+i)*length+j] = 1
				if i-j <= 3 && j-i <= 3 {
					labels[(b*length+i)*length+j] = 1
				}
			}
		}
	}

	// A training pass records each layer's backward step; composing the
	// layers is all the backward pass needs.
	p := scnn.Training(0)
	h, _ := sg.Apply(p, x)
	h, _ = bn.Apply(p, h, lengths)
	logits, _ := sp.Apply(p, scnn.ReLUInPlace(p, h))
	loss, grad, _ := scnn.WeightedBCE{PosWeight: 5}.Forward(logits, labels, mask)
	opt.ZeroGrad()
	if err := p.Backward(logits, grad); err != nil {
		fmt.Println(err)
	}
	opt.Step()

	// An inference pass keeps nothing: the layers can be shared.
	q := scnn.Inference(0)
	h, _ = sg.Apply(q, x)
	h, _ = bn.ApplyInPlace(q, h, lengths)
	logits, _ = sp.Apply(q, scnn.ReLUInPlace(q, h))

	full, _ := scnn.Unpack(logits)
	fmt.Println("layout:", logits.Layout, "shape:", logits.Shape)
	fmt.Println("symmetric:", scnn.MaxAbsAsymmetry(full) == 0)
	fmt.Println("finite positive loss:", loss > 0 && !math.IsInf(loss, 0) && !math.IsNaN(loss))
	// sg: 5*8 + 8; bn: 2*8; sp: 15*8*1 + 1
	fmt.Println("free parameters:", scnn.CountTrainable(sg, bn, sp))
	// Output:
	// layout: packed shape: [2 12 12 1]
	// symmetric: true
	// finite positive loss: true
	// free parameters: 185
}

// Packed storage keeps the upper triangle: L(L+1)/2 pixels instead of L².
func ExamplePack() {
	full := scnn.New(1, 3, 3, 1)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			full.Set(float32(10*min(i, j)+max(i, j)), 0, i, j, 0)
		}
	}
	p, _ := scnn.Pack(full)
	fmt.Println(p.Data, p.At(0, 2, 1, 0))
	// Output: [0 1 2 11 12 22] 12
}
