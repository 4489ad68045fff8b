package pairnet

import (
	"fmt"

	"github.com/contactmap/contactmap/scnn"
)

// Inputs is one padded batch.
type Inputs struct {
	X1 *scnn.Tensor // (B, L, In1D), row-major, zero at padding
	// X2 (B, L, L, In2D) and Fixed (B, L, L, Fixed2D) are in the
	// network's Layout (packed for an SCNN), zero at padding; nil when
	// the Spec has none.
	X2, Fixed *scnn.Tensor
	Lengths   []int // valid length of each sample
	// AfterLayer, when not nil, is called by Forward after each of the
	// Spec's Layers (the blocks, the head blocks, the output
	// convolution), in order, with the work done so far and the pass's
	// total, both in floating-point operations (Spec.LayerWork of the
	// batch's length, times the batch size): done increases from call to
	// call and equals total at the last. It does not change the result.
	// An error it returns stops the pass: Forward returns it as it is
	// (a caller stops a long pass between layers with its context's
	// Err, say).
	AfterLayer func(done, total float64) error
}

// layerHook calls Inputs.AfterLayer after each layer; a nil *layerHook
// (no AfterLayer) does nothing.
type layerHook struct {
	f    func(done, total float64) error
	work []float64 // Spec.LayerWork of the batch, times its size
	next int       // the layer that completes next
}

func newLayerHook(s Spec, in Inputs) *layerHook {
	if in.AfterLayer == nil {
		return nil
	}
	b, l := in.X1.Shape[0], in.X1.Shape[1]
	w := s.LayerWork(l)
	for i := range w {
		w[i] *= float64(b)
	}
	return &layerHook{f: in.AfterLayer, work: w}
}

// done reports the next layer complete.
func (h *layerHook) done() error {
	if h == nil {
		return nil
	}
	if h.next >= len(h.work) {
		panic("pairnet: more layers completed than the Spec has")
	}
	d := h.work[h.next]
	h.next++
	return h.f(d, h.work[len(h.work)-1])
}

func (n *Net) checkInputs(in Inputs) error {
	s := n.Spec
	x1 := in.X1
	if x1 == nil || x1.Layout != scnn.RowMajor || len(x1.Shape) != 3 || x1.Shape[2] != s.In1D {
		return fmt.Errorf("pairnet: 1D input %v, want row-major (B, L, %d)", shapeOf(x1), s.In1D)
	}
	b, l := x1.Shape[0], x1.Shape[1]
	if len(in.Lengths) != b {
		return fmt.Errorf("pairnet: %d lengths for a batch of %d", len(in.Lengths), b)
	}
	for name, c := range map[string]struct {
		t *scnn.Tensor
		n int
	}{"2D input": {in.X2, s.In2D}, "fixed pair channels": {in.Fixed, s.Fixed2D}} {
		switch {
		case c.n == 0 && c.t != nil:
			return fmt.Errorf("pairnet: %s given to a network without one", name)
		case c.n == 0:
		case c.t == nil || c.t.Layout != n.Layout() || len(c.t.Shape) != 4 || c.t.Shape[0] != b || c.t.Shape[1] != l || c.t.Shape[3] != c.n:
			return fmt.Errorf("pairnet: %s %s %v, want %s (%d, %d, %d, %d)", name, layoutOf(c.t), shapeOf(c.t), n.Layout(), b, l, l, c.n)
		}
	}
	return nil
}

func shapeOf(t *scnn.Tensor) []int {
	if t == nil {
		return nil
	}
	return t.Shape
}

func layoutOf(t *scnn.Tensor) string {
	if t == nil {
		return "nil"
	}
	return t.Layout.String()
}

// Forward runs the network on a batch and returns the logits (B, L, L, 1):
// packed and exactly symmetric for an SCNN, row-major for a CNN (whose
// upper triangle is its prediction). In a training pass, p.Backward from
// the logits gives every parameter gradient.
func (n *Net) Forward(p *scnn.Pass, in Inputs) (*scnn.Tensor, error) {
	if err := n.checkInputs(in); err != nil {
		return nil, err
	}
	hook := newLayerHook(n.Spec, in)
	b, l := in.X1.Shape[0], in.X1.Shape[1]
	pixels := b * l * l
	if n.Spec.Symmetric {
		pixels = b * l * (l + 1) / 2
	}
	seq := in.X1
	if n.lstm != nil {
		h, err := n.lstm.Apply(p, in.X1, in.Lengths)
		if err != nil {
			return nil, err
		}
		hd, err := n.dense.Apply(p, h)
		if err != nil {
			return nil, err
		}
		p.Release(h)
		if hd, err = scnn.MaskSequences(p, hd, in.Lengths); err != nil {
			return nil, err
		}
		if seq, err = scnn.Concat(p, in.X1, hd); err != nil {
			return nil, err
		}
		p.Release(hd)
	}
	var pairInputs []*scnn.Tensor // the 2D and fixed channels, when any
	if in.X2 != nil {
		pairInputs = append(pairInputs, in.X2)
	}
	if in.Fixed != nil {
		pairInputs = append(pairInputs, in.Fixed)
	}
	if n.byHalves(p) {
		return n.forwardCartesian(p, in, seq, pairInputs, hook)
	}
	// In inference, the pair map is made in a buffer with room for the
	// 2D channels, joined in place.
	pairWidth := n.Spec.Pair.width(n.Spec.Symmetric, n.Spec.seqWidth())
	p.Reserve(pixels * (pairWidth + n.Spec.In2D + n.Spec.Fixed2D))
	y, err := n.pair.apply(p, seq, in.Lengths)
	if err != nil {
		return nil, err
	}
	if seq != in.X1 {
		p.Release(seq)
	}
	seq = nil
	if len(pairInputs) > 0 {
		if y, err = scnn.ConcatInPlace(p, 0, append([]*scnn.Tensor{y}, pairInputs...)...); err != nil {
			return nil, err
		}
	}
	for _, b := range n.blocks {
		if y, err = b.apply(p, y, in.Lengths); err != nil {
			return nil, err
		}
		if err := hook.done(); err != nil {
			return nil, err
		}
	}
	if n.reinject != nil {
		reWidth := n.Spec.Reinject.width(n.Spec.Symmetric, n.Spec.In1D)
		p.Reserve(pixels * (y.Shape[3] + reWidth + n.Spec.In2D + n.Spec.Fixed2D))
		re, err := n.reinject.apply(p, in.X1, in.Lengths)
		if err != nil {
			return nil, err
		}
		joined, err := scnn.ConcatInPlace(p, 1, append([]*scnn.Tensor{y, re}, pairInputs...)...)
		if err != nil {
			return nil, err
		}
		p.Release(y)
		y = joined
	}
	return n.headAndLogits(p, y, n.head, in.Lengths, hook)
}

// headAndLogits runs the head blocks on y, then the output convolution,
// and returns the logits (their own copy in an inference pass).
func (n *Net) headAndLogits(p *scnn.Pass, y *scnn.Tensor, head []*block, lengths []int, hook *layerHook) (*scnn.Tensor, error) {
	var err error
	for _, b := range head {
		if y, err = b.apply(p, y, lengths); err != nil {
			return nil, err
		}
		if err := hook.done(); err != nil {
			return nil, err
		}
	}
	out, err := scnn.ForwardBranches(p, y, n.out)
	if err != nil {
		return nil, err
	}
	p.Release(y)
	if err := hook.done(); err != nil {
		return nil, err
	}
	if !p.Training() {
		out = ownLogits(p, out)
	}
	return out, nil
}

// apply builds the pair map of x: the self-Cartesian product or the
// sgConv, padding zeroed, then batchnorm and ReLU when asked for.
func (m *pairMap) apply(p *scnn.Pass, x *scnn.Tensor, lengths []int) (*scnn.Tensor, error) {
	var y *scnn.Tensor
	var err error
	if m.sg != nil {
		y, err = m.sg.Apply(p, x)
	} else {
		y, err = scnn.SelfCartesian(p, x)
	}
	if err != nil {
		return nil, err
	}
	if y, err = scnn.MaskPixels(p, y, lengths); err != nil {
		return nil, err
	}
	if m.bn != nil {
		if y, err = batchNorm(p, m.bn, y, lengths); err != nil {
			return nil, err
		}
	}
	if m.relu {
		y = scnn.ReLUInPlace(p, y) // y is the batchnorm's or the map's own
	}
	return y, nil
}

// batchNorm normalises y, in place in an inference pass (y is always an
// intermediate the caller gives up).
func batchNorm(p *scnn.Pass, bn *scnn.BatchNorm2D, y *scnn.Tensor, lengths []int) (*scnn.Tensor, error) {
	if p.Training() {
		return bn.Apply(p, y, lengths)
	}
	return bn.ApplyInPlace(p, y, lengths)
}

// apply runs the block on x, an intermediate that it consumes (released
// in an inference pass).
func (b *block) apply(p *scnn.Pass, x *scnn.Tensor, lengths []int) (*scnn.Tensor, error) {
	y, err := scnn.ForwardBranches(p, x, b.convs...)
	if err != nil {
		return nil, err
	}
	p.Release(x)
	return b.finish(p, y, lengths)
}

// finish is the block's batchnorm and ReLU on the joined branches y.
func (b *block) finish(p *scnn.Pass, y *scnn.Tensor, lengths []int) (*scnn.Tensor, error) {
	y, err := batchNorm(p, b.bn, y, lengths)
	if err != nil {
		return nil, err
	}
	return scnn.ReLUInPlace(p, y), nil // y is the batchnorm's own output
}

// byHalves reports whether Forward takes forwardCartesian: a block after
// the pair map, where every pair map is a self-Cartesian product (CNN,
// ordinary convolutions) or an sgConv of kernel 1 without ReLU (SCNN,
// spConvs): maps of two 1D halves. Inference and training passes alike,
// unless the net is set to materialise its maps (tests compare the two).
func (n *Net) byHalves(p *scnn.Pass) bool {
	if n.materialize || len(n.blocks) == 0 || !n.pair.halves() || n.reinject != nil && !n.reinject.halves() {
		return false
	}
	for _, b := range append(append([]*block{}, n.blocks...), n.head...) {
		for _, c := range b.convs {
			if !convOfKind(c, n.Spec.Symmetric) {
				return false
			}
		}
	}
	return convOfKind(n.out, n.Spec.Symmetric)
}

// halves reports whether the map is made of two 1D halves.
func (m *pairMap) halves() bool { return m.sg == nil || m.sg.K == 1 && !m.relu }

func convOfKind(c scnn.BranchConv, symmetric bool) bool {
	if symmetric {
		_, ok := c.(*scnn.SymPresConv)
		return ok
	}
	_, ok := c.(*scnn.Conv2D)
	return ok
}

// halvesOf builds the halves of the map of x, and whether they sum.
func (m *pairMap) halvesOf(p *scnn.Pass, x *scnn.Tensor, lengths []int) (row, col *scnn.Tensor, sum bool, err error) {
	if m.sg == nil {
		row, col, err = scnn.CartesianHalves(p, x, lengths, m.bn, m.relu)
		return row, col, false, err
	}
	row, col, err = scnn.OuterSumHalves(p, x, lengths, m.sg, m.bn)
	return row, col, true, err
}

// branchesOf convolves the map m by parts with the branches cs.
func branchesOf(p *scnn.Pass, m scnn.CartesianMap, cs []scnn.BranchConv) (*scnn.Tensor, error) {
	if m.Sum {
		sp := make([]*scnn.SymPresConv, len(cs))
		for i, c := range cs {
			sp[i] = c.(*scnn.SymPresConv)
		}
		return scnn.ForwardBranchesSymCartesian(p, m, sp...)
	}
	cv := make([]*scnn.Conv2D, len(cs))
	for i, c := range cs {
		cv[i] = c.(*scnn.Conv2D)
	}
	return scnn.ForwardBranchesCartesian(p, m, cv...)
}

// forwardCartesian is Forward without the pair maps (byHalves), in an
// inference or a training pass: the convolutions that read them (the first
// block's, and the first head block's or the output's after the
// re-injection) are computed from the maps' row and column halves
// (scnn.ForwardBranchesCartesian, ForwardBranchesSymCartesian), which
// leaves out the widest buffers of the pass and most of its
// multiply-adds, forward and backward. Its outputs and gradients agree
// with the materialised maps' to float32 rounding. seq is the 1D input of the pair map (in.X1 or an
// intermediate, released here).
func (n *Net) forwardCartesian(p *scnn.Pass, in Inputs, seq *scnn.Tensor, pairInputs []*scnn.Tensor, hook *layerHook) (*scnn.Tensor, error) {
	row, col, sum, err := n.pair.halvesOf(p, seq, in.Lengths)
	if err != nil {
		return nil, err
	}
	if seq != in.X1 {
		p.Release(seq)
	}
	y, err := branchesOf(p, scnn.CartesianMap{Row: row, Col: col, Sum: sum, After: pairInputs, Lengths: in.Lengths}, n.blocks[0].convs)
	if err != nil {
		return nil, err
	}
	p.Release(row, col)
	if y, err = n.blocks[0].finish(p, y, in.Lengths); err != nil {
		return nil, err
	}
	if err := hook.done(); err != nil {
		return nil, err
	}
	for _, b := range n.blocks[1:] {
		if y, err = b.apply(p, y, in.Lengths); err != nil {
			return nil, err
		}
		if err := hook.done(); err != nil {
			return nil, err
		}
	}
	head := n.head
	if n.reinject != nil {
		row, col, sum, err := n.reinject.halvesOf(p, in.X1, in.Lengths)
		if err != nil {
			return nil, err
		}
		m := scnn.CartesianMap{Before: y, Row: row, Col: col, Sum: sum, After: pairInputs, Lengths: in.Lengths}
		convs := []scnn.BranchConv{n.out}
		if len(head) > 0 {
			convs = head[0].convs
		}
		z, err := branchesOf(p, m, convs)
		if err != nil {
			return nil, err
		}
		p.Release(y, row, col)
		if len(head) == 0 {
			if err := hook.done(); err != nil {
				return nil, err
			}
			if p.Training() {
				return z, nil
			}
			return ownLogits(p, z), nil
		}
		if y, err = head[0].finish(p, z, in.Lengths); err != nil {
			return nil, err
		}
		if err := hook.done(); err != nil {
			return nil, err
		}
		head = head[1:]
	}
	return n.headAndLogits(p, y, head, in.Lengths, hook)
}

// ownLogits hands back a copy of the logits of their own size (they may
// sit in a recycled buffer of a wider map) and their buffer to the pass.
func ownLogits(p *scnn.Pass, out *scnn.Tensor) *scnn.Tensor {
	logits := out.Clone()
	p.Release(out)
	return logits
}
