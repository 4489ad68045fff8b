package scnn

import (
	"fmt"
	"math"
)

// Adam is the Adam optimiser (Kingma & Ba) with L2 weight decay added to
// the gradient of params marked Decay (g += L2 * w, as Keras' kernel
// regulariser and PyTorch's Adam weight_decay do):
//
//	m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g²
//	w -= LR * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + Eps)
type Adam struct {
	LR, Beta1, Beta2, Eps, L2 float64
	T                         int // steps taken

	params []*Param
	m, v   [][]float32
}

// NewAdam returns Adam over the trainable params, with b1 0.9, b2 0.999,
// eps 1e-8.
func NewAdam(params []*Param, lr, l2 float64) *Adam {
	a := &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, L2: l2}
	for _, p := range params {
		if !p.Trainable {
			continue
		}
		a.params = append(a.params, p)
		a.m = append(a.m, make([]float32, len(p.Value)))
		a.v = append(a.v, make([]float32, len(p.Value)))
	}
	return a
}

// ZeroGrad clears the gradients of the optimised params.
func (a *Adam) ZeroGrad() {
	for _, p := range a.params {
		p.ZeroGrad()
	}
}

// Step applies one update from the current gradients.
func (a *Adam) Step() {
	a.T++
	c1 := 1 - math.Pow(a.Beta1, float64(a.T))
	c2 := 1 - math.Pow(a.Beta2, float64(a.T))
	b1, b2 := float32(a.Beta1), float32(a.Beta2)
	for k, p := range a.params {
		m, v := a.m[k], a.v[k]
		for i, g := range p.Grad {
			if p.Decay {
				g += float32(a.L2) * p.Value[i]
			}
			m[i] = b1*m[i] + (1-b1)*g
			v[i] = b2*v[i] + (1-b2)*g*g
			mh := float64(m[i]) / c1
			vh := float64(v[i]) / c2
			p.Value[i] -= float32(a.LR * mh / (math.Sqrt(vh) + a.Eps))
		}
	}
}

// State returns the moment estimates as params named "adam.m/<name>" and
// "adam.v/<name>" plus "adam.t" (the step count), for checkpoints written
// with WriteParams.
func (a *Adam) State() []*Param {
	var out []*Param
	for k, p := range a.params {
		out = append(out,
			&Param{Name: "adam.m/" + p.Name, Shape: p.Shape, Value: a.m[k]},
			&Param{Name: "adam.v/" + p.Name, Shape: p.Shape, Value: a.v[k]})
	}
	out = append(out, &Param{Name: "adam.t", Shape: []int{1}, Value: []float32{float32(a.T)}})
	return out
}

// SetState restores a state saved by State (same params, same order).
func (a *Adam) SetState(arrays []Array) error {
	st := a.State()
	if err := AssignParams(st, arrays); err != nil {
		return fmt.Errorf("adam state: %w", err)
	}
	a.T = int(st[len(st)-1].Value[0])
	return nil
}
