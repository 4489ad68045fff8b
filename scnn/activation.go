package scnn

import (
	"fmt"
	"math"
)

// ReLU is max(0, x), elementwise, for any shape and layout.
type ReLU struct{ y *Tensor }

// Forward applies max(0, x).
func (r *ReLU) Forward(x *Tensor) *Tensor {
	y := ZerosLike(x)
	forChunks(len(x.Data), func(_, lo, hi int) {
		out := y.Data[lo:hi]
		for i, v := range x.Data[lo:hi] {
			if v > 0 {
				out[i] = v
			}
		}
	})
	r.y = y
	return y
}

// ForwardInPlace is Forward writing max(0, x) over x itself, for a caller
// that no longer needs x (saves an allocation and a pass over memory).
func (r *ReLU) ForwardInPlace(x *Tensor) *Tensor {
	forChunks(len(x.Data), func(_, lo, hi int) {
		v := x.Data[lo:hi]
		for i := range v {
			if !(v[i] > 0) {
				v[i] = 0
			}
		}
	})
	r.y = x
	return x
}

// BackwardInPlace is Backward writing the result over dy itself.
func (r *ReLU) BackwardInPlace(dy *Tensor) (*Tensor, error) {
	if r.y == nil || !SameShape(dy, r.y) {
		return nil, fmt.Errorf("scnn: ReLU: gradient does not match the last forward")
	}
	forChunks(len(dy.Data), func(_, lo, hi int) {
		d := dy.Data[lo:hi]
		for i, v := range r.y.Data[lo:hi] {
			if !(v > 0) {
				d[i] = 0
			}
		}
	})
	return dy, nil
}

// Backward passes dy where the output was positive.
func (r *ReLU) Backward(dy *Tensor) (*Tensor, error) {
	if r.y == nil || !SameShape(dy, r.y) {
		return nil, fmt.Errorf("scnn: ReLU: gradient does not match the last forward")
	}
	dx := ZerosLike(dy)
	forChunks(len(dy.Data), func(_, lo, hi int) {
		out, d := dx.Data[lo:hi], dy.Data[lo:hi]
		for i, v := range r.y.Data[lo:hi] {
			if v > 0 {
				out[i] = d[i]
			}
		}
	})
	return dx, nil
}

// Sigmoid is 1/(1+exp(-x)), elementwise. Training uses the loss on logits
// (WeightedBCE), which is stabler; Sigmoid turns logits into probabilities.
type Sigmoid struct{ y *Tensor }

func sigmoid(v float32) float32 { return float32(1 / (1 + math.Exp(-float64(v)))) }

// Forward applies the logistic function.
func (s *Sigmoid) Forward(x *Tensor) *Tensor {
	y := ZerosLike(x)
	for i, v := range x.Data {
		y.Data[i] = sigmoid(v)
	}
	s.y = y
	return y
}

// Backward returns dy * y * (1 - y).
func (s *Sigmoid) Backward(dy *Tensor) (*Tensor, error) {
	if s.y == nil || !SameShape(dy, s.y) {
		return nil, fmt.Errorf("scnn: Sigmoid: gradient does not match the last forward")
	}
	dx := ZerosLike(dy)
	for i, y := range s.y.Data {
		dx.Data[i] = dy.Data[i] * y * (1 - y)
	}
	return dx, nil
}
