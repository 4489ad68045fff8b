package scnn

import (
	"fmt"
	"math/rand/v2"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// MaxKernel is the largest supported (odd) kernel size.
const MaxKernel = 15

func checkKernel(k int) error {
	if k < 1 || k > MaxKernel || k%2 == 0 {
		return fmt.Errorf("scnn: kernel size %d: want odd 1..%d", k, MaxKernel)
	}
	return nil
}

// Conv2D is an ordinary 2D convolution, stride 1, "same" zero padding, with
// bias, on dense channels-last maps (B, H, W, Cin) -> (B, H, W, Cout):
//
//	y[b,i,j,f] = bias[f] + sum_{a,c,k} x[b, i+a-K/2, j+c-K/2, k] * W[a,c,k,f]
//
// computed by im2col and sgemm, in parallel over samples and pixel tiles.
type Conv2D struct {
	K, Cin, Cout int
	W            *Param // (K, K, Cin, Cout)
	B            *Param // (Cout)
}

// NewConv2D returns a Glorot-initialised convolution named name.
func NewConv2D(name string, k, cin, cout int, rng *rand.Rand) (*Conv2D, error) {
	if err := checkKernel(k); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if cin < 1 || cout < 1 {
		return nil, fmt.Errorf("%s: bad channels %d -> %d", name, cin, cout)
	}
	c := &Conv2D{K: k, Cin: cin, Cout: cout,
		W: newParam(name+".W", true, true, k, k, cin, cout),
		B: newParam(name+".b", true, false, cout)}
	glorotUniform(c.W.Value, k*k*cin, k*k*cout, Glorot, rng)
	return c, nil
}

// Params returns W and B.
func (c *Conv2D) Params() []*Param { return []*Param{c.W, c.B} }

func (c *Conv2D) geom(p *Pass, x *Tensor) kern.ConvGeom {
	return kern.ConvGeom{B: x.Shape[0], H: x.Shape[1], W: x.Shape[2], Cin: c.Cin, Cout: c.Cout, K: c.K, Workers: p.workers()}
}

// Apply convolves a dense (B, H, W, Cin) map. Its backward step adds
// dL/dW and dL/dB and passes dL/dx.
func (c *Conv2D) Apply(p *Pass, x *Tensor) (*Tensor, error) {
	y, err := ForwardBranches(p, x, c)
	return y, err
}

func (c *Conv2D) checkInput(x *Tensor) error {
	if x.Layout != RowMajor || len(x.Shape) != 4 || x.Shape[3] != c.Cin {
		return fmt.Errorf("scnn: %s: input %s %v, want row-major (B, H, W, %d)", c.W.Name, x.Layout, x.Shape, c.Cin)
	}
	return nil
}

// OutChannels is Cout.
func (c *Conv2D) OutChannels() int { return c.Cout }
