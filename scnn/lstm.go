package scnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// BiLSTM is a bidirectional LSTM over a padded batch of sequences
// x (B, L, In) with per-sample lengths. The forward direction reads
// t = 0..len-1, the backward direction t = len-1..0; the output (B, L, 2H)
// holds [h_fwd(t), h_bwd(t)] at t < len and zeros at padding, so padding
// never changes a valid output. Each direction is a standard LSTM
// (gates i, f, g, o in that order in the 4H axis):
//
//	z = x_t Wx + h_prev Wh + b
//	i, f, o = sigmoid(z_i), sigmoid(z_f), sigmoid(z_o);  g = tanh(z_g)
//	c = f*c_prev + i*g;  h = o*tanh(c)
type BiLSTM struct {
	In, Hidden int
	Fwd, Bwd   *LSTMDirection
}

// LSTMDirection is one direction of a BiLSTM.
type LSTMDirection struct {
	Wx, Wh, B *Param // (In, 4H), (H, 4H), (4H)
	reverse   bool
}

// lstmRun is one direction's activations over a batch, which its backward
// step needs.
type lstmRun struct {
	gates []float32 // (B, L, 4H) activations i, f, g, o
	c, h  []float32 // (B, L, H)
}

// NewBiLSTM returns a BiLSTM with Glorot input and recurrent weights and
// forget-gate bias 1.
func NewBiLSTM(name string, in, hidden int, rng *rand.Rand) (*BiLSTM, error) {
	if in < 1 || hidden < 1 {
		return nil, fmt.Errorf("%s: bad sizes in %d hidden %d", name, in, hidden)
	}
	mk := func(dir string, reverse bool) *LSTMDirection {
		d := &LSTMDirection{reverse: reverse,
			Wx: newParam(name+"."+dir+".Wx", true, true, in, 4*hidden),
			Wh: newParam(name+"."+dir+".Wh", true, true, hidden, 4*hidden),
			B:  newParam(name+"."+dir+".b", true, false, 4*hidden)}
		glorotUniform(d.Wx.Value, in, 4*hidden, Glorot, rng)
		glorotUniform(d.Wh.Value, hidden, 4*hidden, Glorot, rng)
		for k := hidden; k < 2*hidden; k++ {
			d.B.Value[k] = 1
		}
		return d
	}
	return &BiLSTM{In: in, Hidden: hidden, Fwd: mk("fwd", false), Bwd: mk("bwd", true)}, nil
}

// Params returns the parameters of both directions.
func (l *BiLSTM) Params() []*Param {
	return []*Param{l.Fwd.Wx, l.Fwd.Wh, l.Fwd.B, l.Bwd.Wx, l.Bwd.Wh, l.Bwd.B}
}

func checkLengths(lengths []int, b, l int) error {
	if len(lengths) != b {
		return fmt.Errorf("%d lengths for a batch of %d", len(lengths), b)
	}
	for s, n := range lengths {
		if n < 0 || n > l {
			return fmt.Errorf("length %d of sample %d outside 0..%d", n, s, l)
		}
	}
	return nil
}

// Apply runs both directions. Its backward step adds the parameter
// gradients and passes dL/dx.
func (l *BiLSTM) Apply(p *Pass, x *Tensor, lengths []int) (*Tensor, error) {
	p.use(l)
	if x.Layout != RowMajor || len(x.Shape) != 3 || x.Shape[2] != l.In {
		return nil, fmt.Errorf("scnn: BiLSTM: input %s %v, want row-major (B, L, %d)", x.Layout, x.Shape, l.In)
	}
	b, n, h := x.Shape[0], x.Shape[1], l.Hidden
	if err := checkLengths(lengths, b, n); err != nil {
		return nil, fmt.Errorf("scnn: BiLSTM: %w", err)
	}
	lengths = append([]int(nil), lengths...)
	y := New(b, n, 2*h)
	// The two directions are independent recurrences: one worker each.
	// Each keeps its own gradients, and dL/dx is the sum of their parts
	// added forward then backward, so the results do not depend on the
	// number of workers.
	dirs := [2]*LSTMDirection{l.Fwd, l.Bwd}
	var runs [2]*lstmRun
	kern.ParallelFor(2, p.workers(), func(_, k int) {
		runs[k] = dirs[k].forward(x, lengths, h)
		for q := 0; q < b*n; q++ {
			copy(y.Data[q*2*h+k*h:q*2*h+(k+1)*h], runs[k].h[q*h:(q+1)*h])
		}
	})
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		// The recurrences backward in parallel, each returning its
		// gates' gradients; then dL/dx, forward's part added first.
		var dxg [2][]float32
		kern.ParallelFor(2, p.workers(), func(_, k int) {
			dh := make([]float32, b*n*h)
			for q := 0; q < b*n; q++ {
				copy(dh[q*h:(q+1)*h], dy.Data[q*2*h+k*h:q*2*h+(k+1)*h])
			}
			dxg[k] = dirs[k].backward(runs[k], x, lengths, dh, h)
		})
		if p.wants(x) {
			dx := p.zerosLike(x)
			for k, d := range dirs {
				kern.Gemm(false, true, b*n, l.In, 4*h, 1, dxg[k], 4*h, d.Wx.Value, 4*h, 1, dx.Data, l.In)
			}
			p.addGrad(x, dx)
		}
		return nil
	})
	return y, nil
}

func sig64(z float32) float32 { return float32(1 / (1 + math.Exp(-float64(z)))) }

func (d *LSTMDirection) forward(x *Tensor, lengths []int, h int) *lstmRun {
	b, n, in := x.Shape[0], x.Shape[1], x.Shape[2]
	r := &lstmRun{gates: make([]float32, b*n*4*h), c: make([]float32, b*n*h), h: make([]float32, b*n*h)}
	xg := make([]float32, b*n*4*h)
	for p := 0; p < b*n; p++ {
		copy(xg[p*4*h:(p+1)*4*h], d.B.Value)
	}
	kern.Gemm(false, false, b*n, 4*h, in, 1, x.Data, in, d.Wx.Value, 4*h, 1, xg, 4*h)
	z := make([]float32, 4*h)
	zeros := make([]float32, h)
	for s := 0; s < b; s++ {
		hprev, cprev := zeros, zeros
		for step := 0; step < lengths[s]; step++ {
			t := step
			if d.reverse {
				t = lengths[s] - 1 - step
			}
			p := s*n + t
			copy(z, xg[p*4*h:(p+1)*4*h])
			// z += hprev Wh, the rows in order, zero values skipped.
			kern.GemvRowsF32(z, hprev, d.Wh.Value, 4*h, true)
			g := r.gates[p*4*h : (p+1)*4*h]
			c, hh := r.c[p*h:(p+1)*h], r.h[p*h:(p+1)*h]
			for k := 0; k < h; k++ {
				ig, fg := sig64(z[k]), sig64(z[h+k])
				gg := float32(math.Tanh(float64(z[2*h+k])))
				og := sig64(z[3*h+k])
				g[k], g[h+k], g[2*h+k], g[3*h+k] = ig, fg, gg, og
				c[k] = fg*cprev[k] + ig*gg
				hh[k] = og * float32(math.Tanh(float64(c[k])))
			}
			hprev, cprev = hh, c
		}
	}
	return r
}

// backward adds this direction's parameter gradients for the output
// gradient dhOut (B*n x h) of run r, and returns the gates' gradients
// (B*n x 4h), from which the caller forms dL/dx.
func (d *LSTMDirection) backward(r *lstmRun, x *Tensor, lengths []int, dhOut []float32, h int) []float32 {
	b, n, in := x.Shape[0], x.Shape[1], x.Shape[2]
	dxg := make([]float32, b*n*4*h)
	dhn := make([]float32, h)
	dcn := make([]float32, h)
	// Wh transposed (4h rows of h), for dhn = dz Wh^T by rows.
	whT := make([]float32, 4*h*h)
	for k := 0; k < h; k++ {
		for q, v := range d.Wh.Value[k*4*h : (k+1)*4*h] {
			whT[q*h+k] = v
		}
	}
	for s := 0; s < b; s++ {
		clear(dhn)
		clear(dcn)
		ln := lengths[s]
		for step := ln - 1; step >= 0; step-- {
			t, tp := step, step-1
			if d.reverse {
				t, tp = ln-1-step, ln-step
			}
			p := s*n + t
			g := r.gates[p*4*h : (p+1)*4*h]
			c := r.c[p*h : (p+1)*h]
			dz := dxg[p*4*h : (p+1)*4*h]
			var cprev, hprev []float32
			if step > 0 {
				cprev, hprev = r.c[(s*n+tp)*h:(s*n+tp+1)*h], r.h[(s*n+tp)*h:(s*n+tp+1)*h]
			}
			for k := 0; k < h; k++ {
				ig, fg, gg, og := g[k], g[h+k], g[2*h+k], g[3*h+k]
				dh := dhOut[p*h+k] + dhn[k]
				tc := float32(math.Tanh(float64(c[k])))
				dc := dh*og*(1-tc*tc) + dcn[k]
				cp := float32(0)
				if cprev != nil {
					cp = cprev[k]
				}
				dz[k] = dc * gg * ig * (1 - ig)
				dz[h+k] = dc * cp * fg * (1 - fg)
				dz[2*h+k] = dc * ig * (1 - gg*gg)
				dz[3*h+k] = dh * tc * og * (1 - og)
				dcn[k] = dc * fg
			}
			// dWh += hprev^T dz;  dhn = dz Wh^T, each sum in q order
			// from +0 (so a zero term changes nothing and none is
			// skipped), every product rounded first.
			if hprev != nil {
				kern.GerF32(d.Wh.Grad, 4*h, hprev, dz)
			}
			clear(dhn)
			kern.GemvRowsF32(dhn, dz, whT, h, false)
		}
	}
	kern.Gemm(true, false, in, 4*h, b*n, 1, x.Data, in, dxg, 4*h, 1, d.Wx.Grad, 4*h)
	for p := 0; p < b*n; p++ {
		for q, v := range dxg[p*4*h : (p+1)*4*h] {
			d.B.Grad[q] += v
		}
	}
	return dxg
}
