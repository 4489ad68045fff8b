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
	for _, b := range n.head {
		if y, err = b.apply(p, y, in.Lengths); err != nil {
			return nil, err
		}
	}
	out, err := scnn.ForwardBranches(p, y, n.out)
	if err != nil {
		return nil, err
	}
	p.Release(y)
	if !p.Training() {
		// The logits may sit in a recycled buffer of a wider map: hand
		// back a copy of their own size, and the buffer with the pass.
		logits := out.Clone()
		p.Release(out)
		out = logits
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
	if y, err = batchNorm(p, b.bn, y, lengths); err != nil {
		return nil, err
	}
	return scnn.ReLUInPlace(p, y), nil // y is the batchnorm's own output
}
