package scnn

import (
	"fmt"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// A BranchConv is a convolution that ForwardBranches can run: *Conv2D or
// *SymPresConv.
type BranchConv interface {
	Forward(*Tensor) (*Tensor, error)
	// branch checks x, keeps it for Backward as Forward does, and returns
	// the geometry of the convolution on x.
	branch(x *Tensor) (kern.ConvGeom, error)
	// weights returns the kernel matrix and the bias.
	weights() (w, bias []float32)
}

func (c *Conv2D) branch(x *Tensor) (kern.ConvGeom, error) {
	if err := c.checkInput(x); err != nil {
		return kern.ConvGeom{}, err
	}
	c.x = x
	return c.geom(x, c.Cin, c.Cout), nil
}

func (c *Conv2D) weights() ([]float32, []float32) { return c.W.Value, c.B.Value }

func (c *SymPresConv) branch(x *Tensor) (kern.ConvGeom, error) {
	if err := c.checkInput(x); err != nil {
		return kern.ConvGeom{}, err
	}
	c.x = x
	return c.geom(x, c.Cin, c.Cout), nil
}

func (c *SymPresConv) weights() ([]float32, []float32) { return c.Kernel(), c.B.Value }

// ForwardBranches applies convolutions of one kind to the same input x and
// returns their outputs side by side along the channels, in order: what
// Concat of their Forward results gives (up to float32 rounding), with
// each convolution ready for its Backward. Convolutions that take the
// im2col path share one im2col of x (see kern.ConvForwardBranches) and
// write straight into the joined output; SplitChannels splits its
// gradient.
func ForwardBranches(x *Tensor, convs ...BranchConv) (*Tensor, error) {
	if len(convs) == 0 {
		return nil, fmt.Errorf("scnn: ForwardBranches of no convolution")
	}
	geoms := make([]kern.ConvGeom, len(convs))
	shared := true
	for i, c := range convs {
		g, err := c.branch(x)
		if err != nil {
			return nil, err
		}
		geoms[i] = g
		// Output-side convolutions read x without copying it: nothing to share.
		shared = shared && !g.UseOutputSide() && g.Workers == geoms[0].Workers
	}
	if !shared || len(convs) == 1 {
		outs := make([]*Tensor, len(convs))
		for i, c := range convs {
			y, err := c.Forward(x)
			if err != nil {
				return nil, err
			}
			outs[i] = y
		}
		if len(outs) == 1 {
			return outs[0], nil
		}
		var cat Concat
		return cat.Forward(outs...)
	}
	ks, couts := make([]int, len(convs)), make([]int, len(convs))
	ws, bs := make([][]float32, len(convs)), make([][]float32, len(convs))
	total := 0
	for i, g := range geoms {
		ks[i], couts[i] = g.K, g.Cout
		ws[i], bs[i] = convs[i].weights()
		total += g.Cout
	}
	y, err := newTensor(nil, x.Layout, append(append([]int(nil), x.Shape[:3]...), total))
	if err != nil {
		return nil, err
	}
	kern.ConvForwardBranches(geoms[0], ks, couts, y.Data, x.Data, ws, bs)
	return y, nil
}

// SplitChannels splits t along its last (channel) axis into tensors of
// the given widths, which must add up to t's channels.
func SplitChannels(t *Tensor, widths ...int) ([]*Tensor, error) {
	r := len(t.Shape)
	total := 0
	for _, w := range widths {
		if w < 1 {
			return nil, fmt.Errorf("scnn: SplitChannels: width %d", w)
		}
		total += w
	}
	if r == 0 || t.Shape[r-1] != total {
		return nil, fmt.Errorf("scnn: SplitChannels: %v into widths %v", t.Shape, widths)
	}
	rows := t.Len() / total
	out := make([]*Tensor, len(widths))
	off := 0
	for i, w := range widths {
		part, err := newTensor(nil, t.Layout, append(append([]int(nil), t.Shape[:r-1]...), w))
		if err != nil {
			return nil, err
		}
		forChunks(rows, func(_, lo, hi int) {
			for p := lo; p < hi; p++ {
				copy(part.Data[p*w:(p+1)*w], t.Data[p*total+off:p*total+off+w])
			}
		})
		out[i] = part
		off += w
	}
	return out, nil
}
