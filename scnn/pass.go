package scnn

import (
	"fmt"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// A Pass is one forward pass through layers. Layers hold parameters only;
// what a backward step needs lives in the pass:
//
//   - an inference pass (Inference, or a nil *Pass) records nothing, so
//     every intermediate can be freed as soon as the next layer has
//     consumed it, and one set of layers serves any number of concurrent
//     inference passes;
//   - a training pass (Training) records, for each operation, a backward
//     step holding the inputs it needs (a tape). Backward runs the steps
//     in reverse: composing layers in the forward pass is all it takes to
//     get the backward pass. Batch normalisation uses batch statistics in
//     a training pass and running statistics in an inference pass.
//
// Workers is the number of goroutines of every parallel loop of the pass
// (convolutions, elementwise layers, batch statistics); 0 means GOMAXPROCS.
// Training results depend on it only through float32 rounding in
// convolutions; inference results do not depend on it.
type Pass struct {
	Workers int
	// RunningStats makes batch normalisation use (and leave) its running
	// statistics in a training pass too: frozen batchnorm, as when
	// fine-tuning; the forward values are then those of an inference pass.
	RunningStats bool
	tape         *tape
	pool         [][]float32 // released buffers of an inference pass (pool.go)
	owned        [][]float32 // buffers of a training pass, recycled by Free (recycle.go)
	recycler     *Recycler   // of a training pass: where its buffers come from and go; nil: none
	freed        bool
}

type tape struct {
	steps []func() error
	grads map[*Tensor]*Tensor
	// wanted holds the tensors whose gradient the backward pass computes:
	// outputs of recorded operations and inputs the caller watches. An
	// operation skips the input gradients nobody wants (a batch's
	// features), computing only what the parameters need.
	wanted map[*Tensor]bool
	// used lists the parameters of the layers the pass applied, in the
	// order first applied (Used).
	used []*Param
	seen map[*Param]bool
}

// Inference returns a pass that records nothing.
func Inference(workers int) *Pass { return &Pass{Workers: workers} }

// TrainingWith returns a pass that records backward steps, takes the
// storage of its tensors from r and gives it back to r at Free (see
// Recycler). With r nil the pass allocates anew and Free leaves its
// storage to the garbage collector. Results do not depend on r.
func TrainingWith(workers int, r *Recycler) *Pass {
	return &Pass{Workers: workers, recycler: r, tape: &tape{grads: map[*Tensor]*Tensor{}, wanted: map[*Tensor]bool{}}}
}

// Training returns a pass that records backward steps and allocates its
// storage anew (TrainingWith with no Recycler). A training loop owns a
// Recycler and passes it to TrainingWith (package scnn/loop does).
func Training(workers int) *Pass { return TrainingWith(workers, nil) }

// Training reports whether the pass records backward steps.
func (p *Pass) Training() bool { return p != nil && p.tape != nil }

func (p *Pass) workers() int {
	if p == nil {
		return kern.Workers(0)
	}
	return kern.Workers(p.Workers)
}

// record adds the backward step of an operation with output y to a
// training pass's tape.
func (p *Pass) record(y *Tensor, step func() error) {
	if p.Training() {
		p.tape.steps = append(p.tape.steps, step)
		p.tape.wanted[y] = true
	}
}

// use records that a training pass applied layer l: its parameters
// receive gradients in the backward pass.
func (p *Pass) use(l Layer) {
	if !p.Training() {
		return
	}
	if p.tape.seen == nil {
		p.tape.seen = map[*Param]bool{}
	}
	for _, q := range l.Params() {
		if !p.tape.seen[q] {
			p.tape.seen[q] = true
			p.tape.used = append(p.tape.used, q)
		}
	}
}

// Used lists the parameters of every layer a training pass applied (its
// trainable ones get gradients; batch normalisation's running statistics
// are updated), in the order first applied; nil for an inference pass.
// A training loop checks them against the parameters it optimises and
// saves, so that a layer left out of a model's parameter list is an
// error at the first step instead of a layer silently never trained or
// saved (package scnn/loop).
func (p *Pass) Used() []*Param {
	if !p.Training() {
		return nil
	}
	return p.tape.used
}

// Watch asks a training pass for the gradients of inputs xs (read them
// with Grad after Backward). Call it before the operations that use them.
func (p *Pass) Watch(xs ...*Tensor) {
	if p.Training() {
		for _, x := range xs {
			p.tape.wanted[x] = true
		}
	}
}

// wants reports whether the backward pass needs the gradient of x.
func (p *Pass) wants(x *Tensor) bool { return p.tape.wanted[x] }

// gradOf removes and returns the gradient accumulated for y, nil when
// nothing downstream of y reached the loss.
func (p *Pass) gradOf(y *Tensor) *Tensor {
	g := p.tape.grads[y]
	delete(p.tape.grads, y)
	return g
}

// addGrad adds g to the gradient of x (if anything wants it). The tape
// takes g over: the caller must not use it afterwards.
func (p *Pass) addGrad(x, g *Tensor) {
	if !p.wants(x) {
		return
	}
	if prev, ok := p.tape.grads[x]; ok {
		addInto(p, prev.Data, g.Data)
		return
	}
	p.tape.grads[x] = g
}

func addInto(p *Pass, dst, src []float32) {
	forChunks(p, len(dst), func(_, lo, hi int) {
		kern.AddRuns(dst[lo:hi], src[lo:hi], hi-lo, 1, 0, 0) // dst += src
	})
}

// Backward seeds the gradient of the pass's output y with dy (the loss
// gradient, same shape and layout) and runs the recorded steps in reverse
// order (dy itself is not changed). Parameter gradients are added to
// Param.Grad; the gradients of the
// pass's inputs are then available from Grad. A pass is backward-stepped
// once.
func (p *Pass) Backward(y, dy *Tensor) error {
	if !p.Training() {
		return fmt.Errorf("scnn: Backward of an inference pass")
	}
	if !SameShape(y, dy) {
		return fmt.Errorf("scnn: Backward: gradient %s %v for output %s %v", dy.Layout, dy.Shape, y.Layout, y.Shape)
	}
	if p.tape.steps == nil {
		return fmt.Errorf("scnn: Backward: the pass was already stepped back, or recorded nothing")
	}
	seed := p.overwrittenLike(dy) // every element copied from dy
	forChunks(p, len(dy.Data), func(_, lo, hi int) {
		copy(seed.Data[lo:hi], dy.Data[lo:hi])
	})
	p.addGrad(y, seed)
	for i := len(p.tape.steps) - 1; i >= 0; i-- {
		if err := p.tape.steps[i](); err != nil {
			return err
		}
		p.tape.steps[i] = nil // frees what the step held
	}
	p.tape.steps = nil
	return nil
}

// Grad returns the gradient of a watched input x after Backward, nil if
// the loss does not depend on it (or it was not watched).
func (p *Pass) Grad(x *Tensor) *Tensor {
	if !p.Training() {
		return nil
	}
	return p.tape.grads[x]
}
