package scnn

import "fmt"

// Module collects the parameters of a model's layers as the model builds
// them: each layer is added once it is made, and the model's parameter
// list is the module's, in the order added. A model built so does not
// write its parameter list out again beside its layers, where a layer
// could be forgotten; a layer made and never added is caught by the
// training loop, which checks the parameters a training pass uses
// (Pass.Used) against the model's list (package scnn/loop).
//
//	var m scnn.Module
//	conv, err := scnn.NewConv2D("conv1", 3, 8, 8, rng)
//	...
//	m.Add(conv)
//	opt := scnn.NewAdam(m.Params(), 1e-3, 0)
type Module struct {
	params []*Param
	names  map[string]bool
	err    error
}

// Add adds the parameters of layers, in order. A parameter name that is
// already in the module is an error (Err): model files and checkpoints
// key parameters by name.
func (m *Module) Add(layers ...Layer) {
	if m.names == nil {
		m.names = map[string]bool{}
	}
	for _, l := range layers {
		for _, p := range l.Params() {
			if m.names[p.Name] {
				if m.err == nil {
					m.err = fmt.Errorf("scnn: two parameters named %q in one model", p.Name)
				}
				continue
			}
			m.names[p.Name] = true
			m.params = append(m.params, p)
		}
	}
}

// Params lists the parameters added, trainable and state.
func (m *Module) Params() []*Param { return m.params }

// Err is the first error of Add (nil: none).
func (m *Module) Err() error { return m.err }

// Trainable counts the trainable parameter values.
func (m *Module) Trainable() int {
	n := 0
	for _, p := range m.params {
		if p.Trainable {
			n += len(p.Value)
		}
	}
	return n
}

// CheckGradients reports what one training step left wrong in a model's
// parameters, after the pass p's Backward: a trainable parameter whose
// gradient is zero everywhere (a layer cut off from the loss), a
// parameter p used that is not in params (a layer left out of the
// model's list), and a parameter of params that p did not use. Nil: none.
func CheckGradients(params []*Param, p *Pass) []string {
	var out []string
	listed := make(map[*Param]bool, len(params))
	for _, q := range params {
		listed[q] = true
		if !q.Trainable {
			continue
		}
		nonzero := false
		for _, v := range q.Grad {
			if v != 0 {
				nonzero = true
				break
			}
		}
		if !nonzero {
			out = append(out, q.Name+": zero gradient")
		}
	}
	used := map[*Param]bool{}
	for _, q := range p.Used() {
		used[q] = true
		if !listed[q] {
			out = append(out, q.Name+": used by the pass, not among the model's parameters")
		}
	}
	for _, q := range params {
		if !used[q] {
			out = append(out, q.Name+": not used by the pass")
		}
	}
	return out
}
