package scnn

import (
	"fmt"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// Valid (unpadded) convolutions, as in CosRec's 3x3 layers: an L x L map
// becomes an (L-K+1) x (L-K+1) one,
//
//	y[b,i,j,f] = bias[f] + sum_{a,c,k} x[b, i+a, j+c, k] * W[a,c,k,f].
//
// The same layers (Conv2D, SymPresConv) and parameters serve "same" and
// valid convolutions; at K = 1 the two are equal. On a packed symmetric
// map, SymPresConv.ApplyValid computes the output pixels i <= j only,
// forward and backward: the output of a spatially symmetric kernel on a
// symmetric map is symmetric, shifted or not.

func validInput(name string, x *Tensor, layout Layout, cin, k int) error {
	if x.Layout != layout || len(x.Shape) != 4 || x.Shape[1] != x.Shape[2] || x.Shape[3] != cin {
		return fmt.Errorf("scnn: %s: valid convolution input %s %v, want %s (B, L, L, %d)", name, x.Layout, x.Shape, layout, cin)
	}
	if x.Shape[1] < k {
		return fmt.Errorf("scnn: %s: valid %dx%d convolution of a %dx%d map", name, k, k, x.Shape[1], x.Shape[1])
	}
	return nil
}

// applyValid runs the valid convolution of geometry g with kernel w and
// bias, recording a backward step that hands the kernel and bias
// gradients to grads.
func applyValid(p *Pass, g kern.ValidGeom, x *Tensor, w, bias []float32, grads func(dw, db []float32)) (*Tensor, error) {
	layout := RowMajor
	if g.Packed {
		layout = Packed
	}
	y, err := p.newTensor(layout, []int{g.B, g.Lo(), g.Lo(), g.Cout})
	if err != nil {
		return nil, err
	}
	kern.ValidConvForward(g, y.Data, x.Data, w, bias)
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		dw := make([]float32, len(w))
		db := make([]float32, g.Cout)
		var dx *Tensor
		var dxData []float32
		if p.wants(x) {
			dx = p.zerosLike(x)
			dxData = dx.Data
		}
		kern.ValidConvBackward(g, dxData, dw, db, x.Data, dy.Data, w)
		grads(dw, db)
		if dx != nil {
			p.addGrad(x, dx)
		}
		return nil
	})
	return y, nil
}

// ApplyValid convolves a dense (B, L, L, Cin) map without padding into a
// dense (B, L-K+1, L-K+1, Cout) one. Its backward step adds dL/dW and
// dL/dB and passes dL/dx.
func (c *Conv2D) ApplyValid(p *Pass, x *Tensor) (*Tensor, error) {
	p.use(c)
	if err := validInput(c.W.Name, x, RowMajor, c.Cin, c.K); err != nil {
		return nil, err
	}
	g := kern.ValidGeom{B: x.Shape[0], L: x.Shape[1], Cin: c.Cin, Cout: c.Cout, K: c.K, Workers: p.workers()}
	return applyValid(p, g, x, c.W.Value, c.B.Value, func(dw, db []float32) {
		for i, v := range dw {
			c.W.Grad[i] += v
		}
		for i, v := range db {
			c.B.Grad[i] += v
		}
	})
}

// ApplyValid convolves a packed symmetric (B, L, L, Cin) map without
// padding into a packed (B, L-K+1, L-K+1, Cout) one, computing only the
// output pixels i <= j. Its backward step takes the packed gradient of the
// symmetric output and adds dL/dR (the paper's rule, dL/dR[a,b] =
// dL/dQ[a,b] + dL/dQ[b,a] off the diagonal) and dL/dB, and passes the
// packed dL/dx.
func (c *SymPresConv) ApplyValid(p *Pass, x *Tensor) (*Tensor, error) {
	p.use(c)
	if err := validInput(c.R.Name, x, Packed, c.Cin, c.K); err != nil {
		return nil, err
	}
	g := kern.ValidGeom{Packed: true, B: x.Shape[0], L: x.Shape[1], Cin: c.Cin, Cout: c.Cout, K: c.K, Workers: p.workers()}
	return applyValid(p, g, x, c.Kernel(), c.B.Value, func(u, du []float32) { c.addTiedGrads(u, du) })
}

// addTiedGrads adds dL/dR and dL/dB from U, the kernel gradient summed
// over the upper-triangle output pixels with the diagonal halved, and du,
// the bias gradient summed the same way: the full map's dL/dQ is U + U^T
// and its dL/dB is 2 du, so dL/dR[a>b] = dQ[a,b] + dQ[b,a] = 2(U[a,b] +
// U[b,a]) and dL/dR[a,a] = dQ[a,a] = 2 U[a,a].
func (c *SymPresConv) addTiedGrads(u, du []float32) {
	c.foldGrads(u, du, 2)
}
