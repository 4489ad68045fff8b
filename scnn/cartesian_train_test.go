package scnn

import (
	"fmt"
	"testing"
)

// Training by halves against central differences: a padded batch through
// the halves (a CNN's batchnormed self-Cartesian product, an SCNN's
// batchnormed sgConv outer sum; pairnet compares the rectified product
// with the materialised map) and a convolution of the map they
// describe with a dense part before (whose gradient is wanted) and one
// after, under batch statistics: the gradients of the 1D input, the dense
// input, the kernel, the bias, the batchnorm's gamma and beta, and the
// sgConv's S and bias.
func TestTrainingByHalvesGradients(t *testing.T) {
	for _, sum := range []bool{false, true} {
		rng := newRNG(9)
		b, l, n, lengths := 2, 6, 3, []int{6, 4}
		x := randTensor(rng, b, l, n)
		for i := 4 * n; i < l*n; i++ {
			x.Data[l*n+i] = 0 // the second chain's padding
		}
		var before, after *Tensor
		if sum {
			before, after = randPacked(rng, b, l, 2), randPacked(rng, b, l, 1)
		} else {
			before, after = randTensor(rng, b, l, l, 2), randTensor(rng, b, l, l, 1)
		}
		width := 2 * n // the halves' channels in the kernel: row + column
		sg, _ := NewSymGenConv("pair", 1, n, 4, rng)
		if sum {
			width = 4
		}
		bn := randBatchNorm(rng, map[bool]int{false: 2 * n, true: 4}[sum])
		cin := 2 + width + 1
		cv, _ := NewConv2D("conv", 3, cin, 3, rng)
		sp, _ := NewSymPresConv("sconv", 3, cin, 3, rng)
		forward := func(p *Pass) (*Tensor, error) {
			var row, col *Tensor
			var err error
			if sum {
				row, col, err = OuterSumHalves(p, x, lengths, sg, bn)
			} else {
				row, col, err = CartesianHalves(p, x, lengths, bn, false)
			}
			if err != nil {
				return nil, err
			}
			m := CartesianMap{Before: before, Row: row, Col: col, Sum: sum, After: []*Tensor{after}, Lengths: lengths}
			if sum {
				return ForwardBranchesSymCartesian(p, m, sp)
			}
			return ForwardBranchesCartesian(p, m, cv)
		}
		p := Training(1)
		p.Watch(x, before)
		y, err := forward(p)
		if err != nil {
			t.Fatal(err)
		}
		r := ZerosLike(y)
		randn(r.Data, rng)
		if err := p.Backward(y, r); err != nil {
			t.Fatal(err)
		}
		loss := func() float64 {
			y, err := forward(Training(1))
			if err != nil {
				t.Fatal(err)
			}
			return fullDot(y, r)
		}
		name := fmt.Sprintf("sum=%v", sum)
		checkGrad(t, name+" dx", x.Data, p.Grad(x).Data, nil, 1e-2, 2e-3, loss)
		var scale []float64
		if sum {
			scale = packedWeights(before)
		}
		checkGrad(t, name+" dBefore", before.Data, p.Grad(before).Data, scale, 1e-2, 2e-3, loss)
		checkGrad(t, name+" dgamma", bn.Gamma.Value, bn.Gamma.Grad, nil, 1e-2, 2e-3, loss)
		checkGrad(t, name+" dbeta", bn.Beta.Value, bn.Beta.Grad, nil, 1e-2, 2e-3, loss)
		if sum {
			checkGrad(t, name+" dR", sp.R.Value, sp.R.Grad, nil, 1e-2, 2e-3, loss)
			checkGrad(t, name+" db", sp.B.Value, sp.B.Grad, nil, 1e-2, 2e-3, loss)
			checkGrad(t, name+" dS", sg.S.Value, sg.S.Grad, nil, 1e-2, 2e-3, loss)
			checkGrad(t, name+" dc", sg.B.Value, sg.B.Grad, nil, 1e-2, 2e-3, loss)
		} else {
			checkGrad(t, name+" dW", cv.W.Value, cv.W.Grad, nil, 1e-2, 2e-3, loss)
			checkGrad(t, name+" db", cv.B.Value, cv.B.Grad, nil, 1e-2, 2e-3, loss)
		}
	}
}
