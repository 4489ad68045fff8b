package scnn

import "fmt"

// Param is a named array of model values with its gradient. Trainable
// params are updated by the optimizer; the others (batchnorm running
// statistics) are state saved with the model.
type Param struct {
	Name      string
	Shape     []int
	Value     []float32
	Grad      []float32 // nil for non-trainable params
	Trainable bool
	Decay     bool // L2 weight decay applies (kernels, not biases or batchnorm)
}

func newParam(name string, trainable, decay bool, shape ...int) *Param {
	n := 1
	for _, d := range shape {
		if d <= 0 {
			panic(fmt.Sprintf("scnn: param %s: bad shape %v", name, shape))
		}
		n *= d
	}
	p := &Param{Name: name, Shape: shape, Value: make([]float32, n), Trainable: trainable, Decay: decay}
	if trainable {
		p.Grad = make([]float32, n)
	}
	return p
}

// ZeroGrad sets the gradient to zero.
func (p *Param) ZeroGrad() { clear(p.Grad) }

// Layer is anything that owns parameters.
type Layer interface {
	Params() []*Param
}

// CountTrainable sums the sizes of the trainable params of layers.
func CountTrainable(layers ...Layer) int {
	n := 0
	for _, l := range layers {
		for _, p := range l.Params() {
			if p.Trainable {
				n += len(p.Value)
			}
		}
	}
	return n
}
