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

// Apply applies the layer at every position. Its backward step adds
// dL/dW = x^T dy and dL/dB = sum dy, and passes dL/dx = dy W^T.
func (d *Dense) Apply(p *Pass, x *Tensor) (*Tensor, error) {
	p.use(d)
	r := len(x.Shape)
	if r == 0 || x.Shape[r-1] != d.In {
		return nil, fmt.Errorf("scnn: %s: input %v, want last axis %d", d.W.Name, x.Shape, d.In)
	}
	shape := append(append([]int(nil), x.Shape[:r-1]...), d.Out)
	y, err := p.newTensor(x.Layout, shape)
	if err != nil {
		return nil, err
	}
	rows := x.Len() / d.In
	for q := 0; q < rows; q++ {
		copy(y.Data[q*d.Out:(q+1)*d.Out], d.B.Value)
	}
	kern.Gemm(false, false, rows, d.Out, d.In, 1, x.Data, d.In, d.W.Value, d.Out, 1, y.Data, d.Out)
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		kern.Gemm(true, false, d.In, d.Out, rows, 1, x.Data, d.In, dy.Data, d.Out, 1, d.W.Grad, d.Out)
		for q := 0; q < rows; q++ {
			for f, v := range dy.Data[q*d.Out : (q+1)*d.Out] {
				d.B.Grad[f] += v
			}
		}
		if p.wants(x) {
			dx := p.zerosLike(x)
			kern.Gemm(false, true, rows, d.In, d.Out, 1, dy.Data, d.Out, d.W.Value, d.Out, 0, dx.Data, d.In)
			p.addGrad(x, dx)
		}
		return nil
	})
	return y, nil
}
