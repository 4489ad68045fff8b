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
	Workers      int    // goroutines; 0 means GOMAXPROCS

	x *Tensor
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

func (c *Conv2D) geom(x *Tensor, cin, cout int) kern.ConvGeom {
	return kern.ConvGeom{B: x.Shape[0], H: x.Shape[1], W: x.Shape[2], Cin: cin, Cout: cout, K: c.K, Workers: c.Workers}
}

// Forward applies the convolution to a dense (B, H, W, Cin) map and keeps x
// for Backward.
func (c *Conv2D) Forward(x *Tensor) (*Tensor, error) {
	if err := c.checkInput(x); err != nil {
		return nil, err
	}
	c.x = x
	y := New(x.Shape[0], x.Shape[1], x.Shape[2], c.Cout)
	kern.ConvForward(c.geom(x, c.Cin, c.Cout), y.Data, x.Data, c.W.Value, c.B.Value)
	return y, nil
}

func (c *Conv2D) checkInput(x *Tensor) error {
	if x.Layout != RowMajor || len(x.Shape) != 4 || x.Shape[3] != c.Cin {
		return fmt.Errorf("scnn: %s: input %s %v, want row-major (B, H, W, %d)", c.W.Name, x.Layout, x.Shape, c.Cin)
	}
	return nil
}

// Backward adds dL/dW and dL/dB to the gradients and returns dL/dx.
func (c *Conv2D) Backward(dy *Tensor) (*Tensor, error) {
	if c.x == nil {
		return nil, fmt.Errorf("scnn: %s: Backward before Forward", c.W.Name)
	}
	if dy.Layout != RowMajor || len(dy.Shape) != 4 || dy.Shape[0] != c.x.Shape[0] || dy.Shape[1] != c.x.Shape[1] || dy.Shape[2] != c.x.Shape[2] || dy.Shape[3] != c.Cout {
		return nil, fmt.Errorf("scnn: %s: output gradient %v does not match output of input %v", c.W.Name, dy.Shape, c.x.Shape)
	}
	dx := ZerosLike(c.x)
	kern.ConvBackward(c.geom(c.x, c.Cin, c.Cout), dx.Data, c.W.Grad, c.B.Grad, c.x.Data, dy.Data, c.W.Value)
	return dx, nil
}

// OutChannels is Cout.
func (c *Conv2D) OutChannels() int { return c.Cout }
