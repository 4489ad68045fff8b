package scnn

import (
	"fmt"
	"math/rand/v2"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// lowerIndex numbers the kernel positions (a, b) with a >= b row by row:
// a(a+1)/2 + b. There are K(K+1)/2 of them.
func lowerIndex(a, b int) int {
	if a < b {
		a, b = b, a
	}
	return a*(a+1)/2 + b
}

// SymPresConv is the symmetry-preserving convolution (spConv) of Maduranga,
// Zadorozhnyy and Ye: a convolution whose K x K x Cin x Cout kernel Q is
// spatially symmetric, Q[a,b] = Q[b,a], generated from the free parameters
// R[a >= b] (K(K+1)/2 * Cin * Cout of them). On a symmetric input its output
// is symmetric, so input and output are packed upper triangles and only the
// output pixels i <= j are computed: about half the memory and FLOPs of an
// ordinary convolution of the same size.
//
// Gradients follow the paper's update rule: dL/dR[a,b] = dL/dQ[a,b] +
// dL/dQ[b,a] for a > b and dL/dR[a,a] = dL/dQ[a,a]. With a symmetric output
// gradient, dL/dQ = U + U^T (spatial transpose), where U is the kernel
// gradient summed over the upper-triangle pixels with the diagonal halved,
// so dL/dR too is computed from the triangle alone.
type SymPresConv struct {
	K, Cin, Cout int
	R            *Param // (K(K+1)/2, Cin, Cout): R[lowerIndex(a,b), c, f]
	B            *Param // (Cout)
}

// NewSymPresConv returns an spConv named name with half-Glorot R.
func NewSymPresConv(name string, k, cin, cout int, rng *rand.Rand) (*SymPresConv, error) {
	if err := checkKernel(k); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if cin < 1 || cout < 1 {
		return nil, fmt.Errorf("%s: bad channels %d -> %d", name, cin, cout)
	}
	c := &SymPresConv{K: k, Cin: cin, Cout: cout,
		R: newParam(name+".R", true, true, k*(k+1)/2, cin, cout),
		B: newParam(name+".b", true, false, cout)}
	glorotUniform(c.R.Value, k*k*cin, k*k*cout, HalfGlorot, rng)
	return c, nil
}

// Params returns R and B.
func (c *SymPresConv) Params() []*Param { return []*Param{c.R, c.B} }

// Kernel returns the tied kernel Q (K, K, Cin, Cout), Q[a,b] = Q[b,a] = R[a>=b].
func (c *SymPresConv) Kernel() []float32 {
	m := c.Cin * c.Cout
	q := make([]float32, c.K*c.K*m)
	for a := 0; a < c.K; a++ {
		for b := 0; b < c.K; b++ {
			copy(q[(a*c.K+b)*m:(a*c.K+b+1)*m], c.R.Value[lowerIndex(a, b)*m:])
		}
	}
	return q
}

func (c *SymPresConv) geom(p *Pass, x *Tensor) kern.ConvGeom {
	return kern.ConvGeom{Packed: true, B: x.Shape[0], H: x.Shape[1], W: x.Shape[1], Cin: c.Cin, Cout: c.Cout, K: c.K, Workers: p.workers(), SymKernel: true}
}

// Apply convolves a packed symmetric (B, L, L, Cin) map into a packed
// (B, L, L, Cout) one. Its backward step takes the packed gradient of the
// (symmetric) output, adds dL/dR and dL/dB and passes the packed dL/dx.
func (c *SymPresConv) Apply(p *Pass, x *Tensor) (*Tensor, error) {
	return ForwardBranches(p, x, c)
}

func (c *SymPresConv) checkInput(x *Tensor) error {
	if x.Layout != Packed || x.Shape[3] != c.Cin {
		return fmt.Errorf("scnn: %s: input %s %v, want packed (B, L, L, %d)", c.R.Name, x.Layout, x.Shape, c.Cin)
	}
	return nil
}

// OutChannels is Cout.
func (c *SymPresConv) OutChannels() int { return c.Cout }
