package scnn

import (
	"math"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// ReLU returns max(0, x), elementwise, for any shape and layout.
func ReLU(p *Pass, x *Tensor) *Tensor {
	y := p.overwrittenLike(x) // every element written
	forChunks(p, len(x.Data), func(_, lo, hi int) {
		out := y.Data[lo:hi]
		copy(out, x.Data[lo:hi])
		kern.ReLU(out) // the vector loop: no branch per element
	})
	p.record(y, func() error {
		if dy := p.gradOf(y); dy != nil {
			p.addGrad(x, reluGrad(p, dy, y))
		}
		return nil
	})
	return y
}

// ReLUInPlace is ReLU writing max(0, x) over x itself, for a caller whose
// x has no other use (saves an allocation and a pass over memory). In a
// training pass, no earlier operation may have kept x for its backward
// step.
func ReLUInPlace(p *Pass, x *Tensor) *Tensor {
	forChunks(p, len(x.Data), func(_, lo, hi int) { kern.ReLU(x.Data[lo:hi]) })
	p.record(x, func() error {
		if dy := p.gradOf(x); dy != nil {
			p.addGrad(x, reluGrad(p, dy, x))
		}
		return nil
	})
	return x
}

// reluGrad zeroes dy, in place, where the output y is not positive.
func reluGrad(p *Pass, dy, y *Tensor) *Tensor {
	forChunks(p, len(dy.Data), func(_, lo, hi int) { kern.ReLUMask(dy.Data[lo:hi], y.Data[lo:hi]) })
	return dy
}

func sigmoid(v float32) float32 { return float32(1 / (1 + math.Exp(-float64(v)))) }

// Sigmoid returns 1/(1+exp(-x)), elementwise. Training uses the loss on
// logits (WeightedBCE), which is stabler; Sigmoid turns logits into
// probabilities. Its backward step is dy * y * (1 - y).
func Sigmoid(p *Pass, x *Tensor) *Tensor {
	y := p.overwrittenLike(x) // every element written
	for i, v := range x.Data {
		y.Data[i] = sigmoid(v)
	}
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		for i, v := range y.Data {
			dy.Data[i] *= v * (1 - v)
		}
		p.addGrad(x, dy)
		return nil
	})
	return y
}

// Tanh returns tanh(x), elementwise, for any shape and layout. Its
// backward step is dy * (1 - y²).
func Tanh(p *Pass, x *Tensor) *Tensor {
	y := p.overwrittenLike(x) // every element written
	forChunks(p, len(x.Data), func(_, lo, hi int) {
		out := y.Data[lo:hi]
		for i, v := range x.Data[lo:hi] {
			out[i] = float32(math.Tanh(float64(v)))
		}
	})
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		for i, v := range y.Data {
			dy.Data[i] *= 1 - v*v
		}
		p.addGrad(x, dy)
		return nil
	})
	return y
}
