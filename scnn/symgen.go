package scnn

import (
	"fmt"
	"math/rand/v2"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// SymGenConv is the symmetry-generating convolution (sgConv) of Maduranga,
// Zadorozhnyy and Ye, applied to the self-Cartesian product of a batch of
// sequences x (B, L, n). Its kernel W (K, K, 2n, F) is tied twice,
//
//	W[a,b] = W[b,a]   and   W[a,b,k] = W[a,b,n+k]  (k < n),
//
// and generated from the free parameters S[a >= b, k < n, f], so the output
// on a self-Cartesian input is a symmetric map, returned packed
// (B, L, L, F). dL/dS follows the paper's Theorem 2: the sum of the four
// tied dL/dW entries W[a,b,k], W[b,a,k], W[a,b,n+k], W[b,a,n+k] (two when
// a == b).
//
// S holds K(K+1)/2 * n * F values: with C = K this is C(C+1)nF/2. (The
// count C(C+1)nF quoted for the paper's parameterisation counts each
// position pair (a, b) twice; the tying above leaves half of that free.)
//
// For K = 1 the layer is an outer sum: with A = x S (an L x F matrix),
// y[i,j] = A[i] + A[j] + bias, computed in O(L n F + L² F) without building
// the L x L x 2n product. For K > 1 the product is built and convolved in
// full, then packed.
type SymGenConv struct {
	K, N, F int
	S       *Param // (K(K+1)/2, N, F): S[lowerIndex(a,b), k, f]
	B       *Param // (F)
}

// NewSymGenConv returns an sgConv named name with half-Glorot S.
func NewSymGenConv(name string, k, n, f int, rng *rand.Rand) (*SymGenConv, error) {
	if err := checkKernel(k); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if n < 1 || f < 1 {
		return nil, fmt.Errorf("%s: bad channels %d -> %d", name, n, f)
	}
	c := &SymGenConv{K: k, N: n, F: f,
		S: newParam(name+".S", true, true, k*(k+1)/2, n, f),
		B: newParam(name+".b", true, false, f)}
	glorotUniform(c.S.Value, k*k*2*n, k*k*f, HalfGlorot, rng)
	return c, nil
}

// Params returns S and B.
func (c *SymGenConv) Params() []*Param { return []*Param{c.S, c.B} }

// Kernel returns the tied kernel W (K, K, 2n, F).
func (c *SymGenConv) Kernel() []float32 {
	m := c.N * c.F
	w := make([]float32, c.K*c.K*2*m)
	for a := 0; a < c.K; a++ {
		for b := 0; b < c.K; b++ {
			s := c.S.Value[lowerIndex(a, b)*m : (lowerIndex(a, b)+1)*m]
			o := (a*c.K + b) * 2 * m
			copy(w[o:o+m], s)
			copy(w[o+m:o+2*m], s)
		}
	}
	return w
}

// Apply maps sequences (B, L, n) to the packed symmetric (B, L, L, F).
// Its backward step takes the packed gradient of the symmetric output,
// adds dL/dS and dL/dB and passes dL/dx (B, L, n).
func (c *SymGenConv) Apply(p *Pass, x *Tensor) (*Tensor, error) {
	p.use(c)
	if x.Layout != RowMajor || len(x.Shape) != 3 || x.Shape[2] != c.N {
		return nil, fmt.Errorf("scnn: %s: input %s %v, want row-major (B, L, %d)", c.S.Name, x.Layout, x.Shape, c.N)
	}
	b, l := x.Shape[0], x.Shape[1]
	if c.K == 1 {
		a := make([]float32, b*l*c.F)
		kern.Gemm(false, false, b*l, c.F, c.N, 1, x.Data, c.N, c.S.Value, c.F, 0, a, c.F)
		y, err := p.newTensor(Packed, []int{b, l, l, c.F})
		if err != nil {
			return nil, err
		}
		kern.OuterSum(y.Data, a, c.B.Value, b, l, c.F, p.workers())
		p.record(y, func() error {
			if dy := p.gradOf(y); dy != nil {
				if dx := c.backwardOuterSum(p, x, dy); dx != nil {
					p.addGrad(x, dx)
				}
			}
			return nil
		})
		return y, nil
	}
	sc, err := SelfCartesian(nil, x)
	if err != nil {
		return nil, err
	}
	full := New(b, l, l, c.F)
	g := kern.ConvGeom{B: b, H: l, W: l, Cin: 2 * c.N, Cout: c.F, K: c.K, Workers: p.workers()}
	kern.ConvForward(g, full.Data, sc.Data, c.Kernel(), c.B.Value)
	y, err := Pack(full)
	if err != nil {
		return nil, err
	}
	p.record(y, func() error {
		if dy := p.gradOf(y); dy != nil {
			p.addGrad(x, c.backwardFull(g, sc, dy))
		}
		return nil
	})
	return y, nil
}

// backwardFull is the backward step for K > 1 (sc: the self-Cartesian
// product of the input).
func (c *SymGenConv) backwardFull(g kern.ConvGeom, sc, dy *Tensor) *Tensor {
	full, err := Unpack(dy)
	if err != nil {
		panic(err) // dy is the packed gradient of this layer's output
	}
	n2, k := 2*c.N, c.K
	dw := make([]float32, k*k*n2*c.F)
	kern.ConvWeightGrad(g, dw, c.B.Grad, sc.Data, full.Data)
	// Theorem 2: dS[a>=b,k] sums dW over the tied entries.
	m := c.N * c.F
	for a := 0; a < k; a++ {
		for bb := 0; bb <= a; bb++ {
			ds := c.S.Grad[lowerIndex(a, bb)*m : (lowerIndex(a, bb)+1)*m]
			tied := [][]float32{dw[(a*k+bb)*n2*c.F:], dw[(a*k+bb)*n2*c.F+m:]}
			if a != bb {
				tied = append(tied, dw[(bb*k+a)*n2*c.F:], dw[(bb*k+a)*n2*c.F+m:])
			}
			for _, t := range tied {
				for i := range ds {
					ds[i] += t[i]
				}
			}
		}
	}
	flip := make([]float32, len(dw))
	kern.FlipKernel(flip, c.Kernel(), k, n2, c.F)
	dsc := New(g.B, g.H, g.W, n2)
	g.Cin, g.Cout = c.F, n2
	kern.ConvForward(g, dsc.Data, full.Data, flip, nil)
	return selfCartesianGrad(dsc)
}

// backwardOuterSum: with r[i] = sum_j dy[i,j] (row sums of the full
// symmetric gradient), dS = 2 x^T r, dB = sum_i r[i], dx = 2 r S^T (nil
// when nobody wants it).
func (c *SymGenConv) backwardOuterSum(p *Pass, x, dy *Tensor) *Tensor {
	b, l := x.Shape[0], x.Shape[1]
	r := make([]float32, b*l*c.F)
	kern.RowSums(r, dy.Data, b, l, c.F, p.workers())
	kern.Gemm(true, false, c.N, c.F, b*l, 2, x.Data, c.N, r, c.F, 1, c.S.Grad, c.F)
	for q := 0; q < b*l; q++ {
		for f, v := range r[q*c.F : (q+1)*c.F] {
			c.B.Grad[f] += v
		}
	}
	if !p.wants(x) {
		return nil
	}
	dx := New(b, l, c.N)
	kern.Gemm(false, true, b*l, c.N, c.F, 2, r, c.F, c.S.Value, c.F, 0, dx.Data, c.N)
	return dx
}
