package scnn

import (
	"fmt"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// A BranchConv is a convolution that ForwardBranches can run: *Conv2D or
// *SymPresConv.
type BranchConv interface {
	Layer
	OutChannels() int
	checkInput(x *Tensor) error
	geom(p *Pass, x *Tensor) kern.ConvGeom
	// weights returns the kernel matrix and the bias.
	weights() (w, bias []float32)
	// gradTargets returns where kern's backward adds the kernel-matrix
	// and bias gradients, and what to call after (nil: nothing).
	gradTargets() (dw, db []float32, finish func())
}

func (c *Conv2D) gradTargets() ([]float32, []float32, func()) { return c.W.Grad, c.B.Grad, nil }

func (c *SymPresConv) gradTargets() ([]float32, []float32, func()) {
	u, du := make([]float32, c.K*c.K*c.Cin*c.Cout), make([]float32, c.Cout)
	return u, du, func() { c.addTiedGrads(u, du) }
}

func (c *Conv2D) weights() ([]float32, []float32)      { return c.W.Value, c.B.Value }
func (c *SymPresConv) weights() ([]float32, []float32) { return c.Kernel(), c.B.Value }

// ForwardBranches applies convolutions of one kind to the same input x and
// returns their outputs side by side along the channels, in order: what
// Concat of their Apply results gives (up to float32 rounding).
// Convolutions that take the im2col path share one im2col of x (see
// kern.ConvForwardBranches) and write straight into the joined output. Its
// backward step splits the gradient between the branches and computes
// their gradients tile by tile in one pass (kern.ConvBackwardBranches),
// the input gradients summed in branch order.
func ForwardBranches(p *Pass, x *Tensor, convs ...BranchConv) (*Tensor, error) {
	if len(convs) == 0 {
		return nil, fmt.Errorf("scnn: ForwardBranches of no convolution")
	}
	geoms := make([]kern.ConvGeom, len(convs))
	shared, direct := len(convs) > 1, len(convs) > 1
	total := 0
	for i, c := range convs {
		if err := c.checkInput(x); err != nil {
			return nil, err
		}
		p.use(c)
		geoms[i] = c.geom(p, x)
		total += geoms[i].Cout
		// Output-side convolutions read x without an im2col: nothing to share.
		shared = shared && !geoms[i].UseOutputSide() && !geoms[i].UseDirect()
		// Direct convolutions share their row buffers when all are direct.
		direct = direct && geoms[i].UseDirect()
	}
	// The convolutions write every channel of every pixel.
	y, err := p.newOverwritten(x.Layout, append(append([]int(nil), x.Shape[:3]...), total))
	if err != nil {
		return nil, err
	}
	ks, couts := make([]int, len(convs)), make([]int, len(convs))
	ws, bs := make([][]float32, len(convs)), make([][]float32, len(convs))
	for i, g := range geoms {
		ks[i], couts[i] = g.K, g.Cout
		ws[i], bs[i] = convs[i].weights()
	}
	if shared || direct {
		g := geoms[0]
		for _, gi := range geoms {
			g.SymKernel = g.SymKernel && gi.SymKernel // every kernel symmetric, or none folds
		}
		kern.ConvForwardBranches(g, ks, couts, y.Data, x.Data, ws, bs)
	} else { // one branch at a time, each into its channels of y
		off := 0
		for i, g := range geoms {
			kern.ConvForwardStrided(g, y.Data, total, off, x.Data, ws[i], bs[i])
			off += couts[i]
		}
	}
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		parts := []*Tensor{dy}
		if len(convs) > 1 {
			var err error
			if parts, err = splitChannels(p, dy, couts...); err != nil {
				return err
			}
		}
		// One pass over the tiles for every branch
		// (kern.ConvBackwardBranches): the input gradients summed in
		// branch order, bit for bit what adding each branch's gradient
		// gives where x has no other gradient yet (a block's input); a
		// gradient x already has is added to their sum, which may round
		// differently.
		dx := p.overwrittenLike(x) // every element written
		dws, dbs, dys, kws := make([][]float32, len(convs)), make([][]float32, len(convs)), make([][]float32, len(convs)), make([][]float32, len(convs))
		finish := make([]func(), len(convs))
		for i, c := range convs {
			dws[i], dbs[i], finish[i] = c.gradTargets()
			dys[i] = parts[i].Data
			kws[i], _ = c.weights()
		}
		kern.ConvBackwardBranches(geoms, dx.Data, dws, dbs, x.Data, dys, kws)
		for _, f := range finish {
			if f != nil {
				f()
			}
		}
		p.addGrad(x, dx)
		return nil
	})
	return y, nil
}
