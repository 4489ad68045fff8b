package scnn

import (
	"fmt"
	"math"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// BatchNorm2D normalises each channel of a batch of L x L maps, dense or
// packed, over the valid (unpadded) pixels only:
//
//	y = gamma * (x - mean) / sqrt(var + Eps) + beta   at valid pixels,
//	y = 0                                              at padding.
//
// In training mode mean and var are the batch statistics (biased variance)
// and the running statistics move towards them by max(Momentum, 1/t) at
// the t-th update (running var takes the unbiased estimate): a cumulative
// average over the first 1/Momentum batches, then an exponential one, so
// the initial values (0 and 1) do not linger. In inference mode the
// running statistics are used. On a packed map every off-diagonal pixel is weighted twice, so
// the statistics equal those of the full symmetric map.
//
// A training pass (Pass.Training) uses and updates the batch statistics
// (unless Pass.RunningStats); an inference pass uses the running ones.
type BatchNorm2D struct {
	C           int
	Gamma, Beta *Param // (C)
	RunMean     *Param // (C), state
	RunVar      *Param // (C), state
	Updates     *Param // (1), state: number of running-statistics updates
	Momentum    float64
	Eps         float64
}

// NewBatchNorm2D returns a batchnorm over c channels with gamma 1, beta 0,
// momentum 0.1 and eps 1e-5.
func NewBatchNorm2D(name string, c int) *BatchNorm2D {
	bn := &BatchNorm2D{C: c, Momentum: 0.1, Eps: 1e-5,
		Gamma:   newParam(name+".gamma", true, false, c),
		Beta:    newParam(name+".beta", true, false, c),
		RunMean: newParam(name+".running_mean", false, false, c),
		RunVar:  newParam(name+".running_var", false, false, c),
		Updates: newParam(name+".updates", false, false, 1)}
	for i := 0; i < c; i++ {
		bn.Gamma.Value[i] = 1
		bn.RunVar.Value[i] = 1
	}
	return bn
}

// Params returns gamma, beta and the running statistics.
func (bn *BatchNorm2D) Params() []*Param {
	return []*Param{bn.Gamma, bn.Beta, bn.RunMean, bn.RunVar, bn.Updates}
}

// Apply normalises x; lengths (nil: all valid) marks the valid region.
// Its backward step adds dL/dgamma and dL/dbeta and passes dL/dx (zero at
// padding).
func (bn *BatchNorm2D) Apply(p *Pass, x *Tensor, lengths []int) (*Tensor, error) {
	y, err := p.newOverwritten(x.Layout, x.Shape) // BNApply writes every pixel, 0 at padding
	if err != nil {
		return nil, err
	}
	return bn.apply(p, x, y, lengths)
}

// ApplyInPlace is Apply writing the result over x, for an inference pass
// whose x has no other use.
func (bn *BatchNorm2D) ApplyInPlace(p *Pass, x *Tensor, lengths []int) (*Tensor, error) {
	if p.Training() {
		return nil, fmt.Errorf("scnn: %s: in-place batch normalisation in a training pass (its backward step needs x)", bn.Gamma.Name)
	}
	return bn.apply(p, x, x, lengths)
}

func (bn *BatchNorm2D) apply(p *Pass, x, y *Tensor, lengths []int) (*Tensor, error) {
	p.use(bn)
	train := p.Training() && !p.RunningStats // batch statistics
	if len(x.Shape) != 4 || x.Shape[3] != bn.C {
		return nil, fmt.Errorf("scnn: %s: input %v, want (B, L, L, %d)", bn.Gamma.Name, x.Shape, bn.C)
	}
	w, err := positionWeights(x, lengths)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bn.Gamma.Name, err)
	}
	c := bn.C
	rows := len(w)
	mean := make([]float64, c)
	vr := make([]float64, c)
	if train {
		// Per-chunk partial sums, combined in chunk order (deterministic).
		nch := (rows + chunkRows - 1) / chunkRows
		part := make([]float64, nch*(c+1))
		forChunks(p, rows, func(ch, lo, hi int) {
			acc := part[ch*(c+1) : (ch+1)*(c+1)]
			acc[c] = weightSum(w[lo:hi])
			// acc[k] += w[q] * x[q, k] over the valid pixels.
			kern.AxpyRowsF64(acc[:c], w[lo:hi], x.Data[lo*c:hi*c], c)
		})
		n := 0.0
		for ch := 0; ch < nch; ch++ {
			acc := part[ch*(c+1) : (ch+1)*(c+1)]
			for k := range mean {
				mean[k] += acc[k]
			}
			n += acc[c]
		}
		if n == 0 {
			return nil, fmt.Errorf("scnn: %s: no valid pixels in the batch", bn.Gamma.Name)
		}
		for k := range mean {
			mean[k] /= n
		}
		clear(part)
		forChunks(p, rows, func(ch, lo, hi int) {
			// acc[k] += w[q] * (x[q, k] - mean[k])^2 over the valid pixels.
			kern.BNVarSums(part[ch*(c+1):ch*(c+1)+c], mean, w[lo:hi], x.Data[lo*c:hi*c], c)
		})
		for ch := 0; ch < nch; ch++ {
			for k := range vr {
				vr[k] += part[ch*(c+1)+k]
			}
		}
		bn.Updates.Value[0]++
		for k := range vr {
			vr[k] /= n
			bn.updateRunning(k, mean[k], vr[k], n)
		}
	} else {
		for k := range mean {
			mean[k] = float64(bn.RunMean.Value[k])
			vr[k] = float64(bn.RunVar.Value[k])
		}
	}
	inv := make([]float64, c)
	mean32, inv32 := make([]float32, c), make([]float32, c)
	for k := range inv {
		inv[k] = 1 / math.Sqrt(vr[k]+bn.Eps)
		mean32[k], inv32[k] = float32(mean[k]), float32(inv[k])
	}
	gamma, beta := bn.Gamma.Value, bn.Beta.Value
	forChunks(p, rows, func(_, lo, hi int) {
		// y = gamma * xhat(x) + beta, 0 at padding.
		kern.BNApply(y.Data[lo*c:hi*c], x.Data[lo*c:hi*c], w[lo:hi], gamma, beta, mean32, inv32, c)
	})
	scale := make([]float64, c)
	for k := range scale {
		scale[k] = float64(gamma[k]) * inv[k]
	}
	st := &bnStep{w: w, mean: mean32, inv: inv32, scale: scale, batchStats: train}
	p.record(y, func() error {
		if dy := p.gradOf(y); dy != nil {
			p.addGrad(x, bn.backward(p, st, x, dy))
		}
		return nil
	})
	return y, nil
}

// bnStep is what a training pass keeps of one batchnorm application.
type bnStep struct {
	w     []float32 // position weights of the input
	mean  []float32 // per channel: xhat = (x - mean) * inv
	inv   []float32
	scale []float64 // gamma / sqrt(var+eps) per channel
	// batchStats: mean and inv are the batch's, so they depend on x.
	batchStats bool
}

// weightSum is the sum of position weights in order, in float64 (the
// valid pixels' count, fractional on a packed map's diagonal).
func weightSum(w []float32) float64 {
	n := 0.0
	for _, v := range w {
		n += float64(v)
	}
	return n
}

// xhat is the normalised input, computed the same way in Forward and
// Backward (which recomputes it from the kept input instead of storing it).
func xhat(x, mean, inv float32) float32 { return (x - mean) * inv }

// backward adds dL/dgamma and dL/dbeta and returns dL/dx (zero at
// padding) for the training-mode application st of input x.
func (bn *BatchNorm2D) backward(p *Pass, st *bnStep, x, dy *Tensor) *Tensor {
	c, rows := bn.C, len(st.w)
	nch := (rows + chunkRows - 1) / chunkRows
	part := make([]float64, nch*(2*c+1)) // per chunk: sum w dy, sum w dy xhat, sum w
	forChunks(p, rows, func(ch, lo, hi int) {
		acc := part[ch*(2*c+1) : (ch+1)*(2*c+1)]
		acc[2*c] = weightSum(st.w[lo:hi])
		// acc[k] += w dy, acc[c+k] += w dy xhat(x) over the valid pixels.
		kern.BNBackSums(acc[:c], acc[c:2*c], st.w[lo:hi], dy.Data[lo*c:hi*c], x.Data[lo*c:hi*c], st.mean, st.inv, c)
	})
	sdy := make([]float64, c)   // sum w dy
	sdyxh := make([]float64, c) // sum w dy xhat
	n := 0.0
	for ch := 0; ch < nch; ch++ {
		acc := part[ch*(2*c+1) : (ch+1)*(2*c+1)]
		for k := 0; k < c; k++ {
			sdy[k] += acc[k]
			sdyxh[k] += acc[c+k]
		}
		n += acc[2*c]
	}
	for k := 0; k < c; k++ {
		bn.Gamma.Grad[k] += float32(sdyxh[k])
		bn.Beta.Grad[k] += float32(sdy[k])
	}
	// dx = g * (dy - (sdy + xhat sdyxh)/n) with batch statistics (they
	// depend on x), g * dy with running ones.
	scale, a, b := make([]float32, c), make([]float32, c), make([]float32, c)
	for k := 0; k < c; k++ {
		scale[k] = float32(st.scale[k])
		if st.batchStats {
			a[k], b[k] = float32(sdy[k]/n), float32(sdyxh[k]/n)
		}
	}
	dx := p.overwrittenLike(x) // BNBackOut writes every pixel, 0 at padding
	forChunks(p, rows, func(_, lo, hi int) {
		// dx = scale * (dy - a - xhat(x) b), 0 at padding.
		kern.BNBackOut(dx.Data[lo*c:hi*c], dy.Data[lo*c:hi*c], x.Data[lo*c:hi*c], st.w[lo:hi], scale, a, b, st.mean, st.inv, c)
	})
	return dx
}

// inferenceStats are the float32 mean and inverse deviation of an
// inference pass's normalisation, from the running statistics, as apply
// computes them.
func (bn *BatchNorm2D) inferenceStats() (mean32, inv32 []float32) {
	mean32, inv32 = make([]float32, bn.C), make([]float32, bn.C)
	for k := range mean32 {
		mean32[k] = float32(float64(bn.RunMean.Value[k]))
		inv32[k] = float32(1 / math.Sqrt(float64(bn.RunVar.Value[k])+bn.Eps))
	}
	return mean32, inv32
}
