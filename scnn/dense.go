package scnn

import (
	"fmt"
	"math/rand/v2"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// Dense is a fully connected layer applied at every position: the last
// axis of x (any layout) maps from In to Out channels,
//
//	y[..., f] = bias[f] + sum_k x[..., k] * W[k, f].
type Dense struct {
	In, Out int
	W       *Param // (In, Out)
	B       *Param // (Out)

	x *Tensor
}

// NewDense returns a Glorot-initialised Dense layer.
func NewDense(name string, in, out int, rng *rand.Rand) (*Dense, error) {
	if in < 1 || out < 1 {
		return nil, fmt.Errorf("%s: bad sizes %d -> %d", name, in, out)
	}
	d := &Dense{In: in, Out: out, W: newParam(name+".W", true, true, in, out), B: newParam(name+".b", true, false, out)}
	glorotUniform(d.W.Value, in, out, Glorot, rng)
	return d, nil
}

// Params returns W and B.
func (d *Dense) Params() []*Param { return []*Param{d.W, d.B} }

// Forward applies the layer at every position.
func (d *Dense) Forward(x *Tensor) (*Tensor, error) {
	r := len(x.Shape)
	if r == 0 || x.Shape[r-1] != d.In {
		return nil, fmt.Errorf("scnn: %s: input %v, want last axis %d", d.W.Name, x.Shape, d.In)
	}
	d.x = x
	shape := append(append([]int(nil), x.Shape[:r-1]...), d.Out)
	y, err := newTensor(nil, x.Layout, shape)
	if err != nil {
		return nil, err
	}
	rows := x.Len() / d.In
	for p := 0; p < rows; p++ {
		copy(y.Data[p*d.Out:(p+1)*d.Out], d.B.Value)
	}
	kern.Gemm(false, false, rows, d.Out, d.In, 1, x.Data, d.In, d.W.Value, d.Out, 1, y.Data, d.Out)
	return y, nil
}

// Backward adds dL/dW, dL/dB and returns dL/dx.
func (d *Dense) Backward(dy *Tensor) (*Tensor, error) {
	if d.x == nil {
		return nil, fmt.Errorf("scnn: %s: Backward before Forward", d.W.Name)
	}
	rows := d.x.Len() / d.In
	if dy.Len() != rows*d.Out || dy.Layout != d.x.Layout {
		return nil, fmt.Errorf("scnn: %s: gradient %v does not match input %v", d.W.Name, dy.Shape, d.x.Shape)
	}
	kern.Gemm(true, false, d.In, d.Out, rows, 1, d.x.Data, d.In, dy.Data, d.Out, 1, d.W.Grad, d.Out)
	for p := 0; p < rows; p++ {
		for f, v := range dy.Data[p*d.Out : (p+1)*d.Out] {
			d.B.Grad[f] += v
		}
	}
	dx := ZerosLike(d.x)
	kern.Gemm(false, true, rows, d.In, d.Out, 1, dy.Data, d.Out, d.W.Value, d.Out, 0, dx.Data, d.In)
	return dx, nil
}
