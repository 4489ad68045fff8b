package scnn

import (
	"fmt"
	"math"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// Adam is the Adam optimiser (Kingma & Ba) with L2 weight decay added to
// the gradient of params marked Decay (g += L2 * w, as Keras' kernel
// regulariser and PyTorch's Adam weight_decay do):
//
//	m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g²
//	w -= LR * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + Eps)
//
// A weight whose magnitude falls below 2^-100 (about 8e-31) is set to 0,
// and so are m and v below float32's normal range (2^-126, about
// 1.2e-38). The weights of an input channel that is 0 in every batch (a
// feature channel the data never set) get only the decay's gradient and
// shrink geometrically; once their products with the output gradients
// underflow into the subnormal range, each such multiply-add takes a
// microcode assist on x86, about a hundred times an FMA's time. The
// default CNN's epochs went from about 55 s to 360-630 s when its dead
// weights got there (1e-42 by epoch 8). A weight that small changes no
// output a float32 sum can hold, and the dead ones' gradients reach no
// other parameter, so the flush changes nothing else the network learns.
type Adam struct {
	LR, Beta1, Beta2, Eps, L2 float64
	T                         int // steps taken

	params []*Param
	m, v   [][]float32
	spans  []adamSpanOf // Step's work items, made on its first call
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

// Step applies one update from the current gradients. Every element is
// updated on its own, so the parameters go to GOMAXPROCS workers in
// spans of adamSpan elements, with the same result on any number.
func (a *Adam) Step() {
	a.T++
	c1 := 1 - math.Pow(a.Beta1, float64(a.T))
	c2 := 1 - math.Pow(a.Beta2, float64(a.T))
	b1, b2 := float32(a.Beta1), float32(a.Beta2)
	if a.spans == nil {
		for k, p := range a.params {
			for lo := 0; lo < len(p.Value); lo += adamSpan {
				a.spans = append(a.spans, adamSpanOf{k, lo, min(lo+adamSpan, len(p.Value))})
			}
		}
	}
	kern.ParallelFor(len(a.spans), kern.Workers(0), func(_, s int) {
		sp := a.spans[s]
		p, m, v := a.params[sp.k], a.m[sp.k], a.v[sp.k]
		// For each i: g = p.Grad[i] (+ L2 p.Value[i] with decay);
		// m[i] = flushToZero(b1*m[i] + (1-b1)*g);
		// v[i] = flushToZero(b2*v[i] + (1-b2)*g*g);
		// p.Value[i] = flushBelow(p.Value[i] - LR*(m[i]/c1)/(sqrt(v[i]/c2)+Eps), 2^-100),
		// the last quotient in float64; flushToZero(x) is x, or 0 of x's
		// sign where x is subnormal, flushBelow(x, t) where |x| < t.
		kern.AdamUpdate(p.Value[sp.lo:sp.hi], p.Grad[sp.lo:sp.hi], m[sp.lo:sp.hi], v[sp.lo:sp.hi], p.Decay,
			float32(a.L2), b1, 1-b1, b2, 1-b2, c1, c2, a.LR, a.Eps)
	})
}

// adamSpan is the most elements of one parameter one work item of
// Adam.Step updates.
const adamSpan = 1 << 14

// adamSpanOf is elements lo..hi-1 of parameter k.
type adamSpanOf struct{ k, lo, hi int }

// Optimizer updates the trainable parameters it was built over from
// their gradients. The training loop (package scnn/loop) drives it:
// ZeroGrad, a forward and backward pass, SetLR from the schedule, Step;
// and checkpoints it by Type, StepCount and Moments, restored by
// Restore.
type Optimizer interface {
	// ZeroGrad clears the gradients of the parameters it updates.
	ZeroGrad()
	// SetLR sets the learning rate of the next Step.
	SetLR(lr float64)
	// Step applies one update from the current gradients.
	Step()
	// Type names the optimiser in checkpoints ("adam"): a checkpoint is
	// restored only into an optimiser of its type.
	Type() string
	// StepCount is the number of steps taken.
	StepCount() int
	// Moments are its state arrays, in an order fixed by the parameters
	// it was built over; their names are for reading only.
	Moments() []*Param
	// Restore sets the step count and the moments (as Moments lists
	// them) from a checkpoint.
	Restore(steps int, moments []Array) error
}

var _ Optimizer = (*Adam)(nil)

// SetLR sets LR.
func (a *Adam) SetLR(lr float64) { a.LR = lr }

// Type is "adam".
func (a *Adam) Type() string { return "adam" }

// StepCount is T.
func (a *Adam) StepCount() int { return a.T }

// Moments are the first and second moments of each parameter, named
// "m/<param>" and "v/<param>".
func (a *Adam) Moments() []*Param {
	var out []*Param
	for k, p := range a.params {
		out = append(out,
			&Param{Name: "m/" + p.Name, Shape: p.Shape, Value: a.m[k]},
			&Param{Name: "v/" + p.Name, Shape: p.Shape, Value: a.v[k]})
	}
	return out
}

// Restore sets T and the moments, matched by name to Moments' ("m/<param>",
// "v/<param>"), in any order. It refuses a negative step count, negative
// second moments, a moment missing or left over, or one whose size is
// not its parameter's (ErrCorrupt).
func (a *Adam) Restore(steps int, moments []Array) error {
	if steps < 0 {
		return fmt.Errorf("adam state: step count %d: %w", steps, ErrCorrupt)
	}
	ms := a.Moments()
	if len(moments) != len(ms) {
		return fmt.Errorf("adam state: %d moment arrays for %d parameters (want %d): %w", len(moments), len(a.params), len(ms), ErrCorrupt)
	}
	byName := make(map[string]*Array, len(moments))
	for k := range moments {
		byName[moments[k].Name] = &moments[k]
	}
	for k, m := range ms {
		mo, ok := byName[m.Name]
		switch {
		case !ok:
			return fmt.Errorf("adam state: no moment %s: %w", m.Name, ErrCorrupt)
		case len(mo.Values) != len(m.Value):
			return fmt.Errorf("adam state: moment %s has %d values, want %d: %w", m.Name, len(mo.Values), len(m.Value), ErrCorrupt)
		}
		if k%2 == 1 {
			for i, v := range mo.Values {
				if !(v >= 0) {
					return fmt.Errorf("adam state: %s value %d is %v, a second moment cannot be negative: %w", m.Name, i, v, ErrCorrupt)
				}
			}
		}
	}
	for _, m := range ms {
		copy(m.Value, byName[m.Name].Values)
	}
	a.T = steps
	return nil
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
