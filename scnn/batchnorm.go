package scnn

import (
	"fmt"
	"math"
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
type BatchNorm2D struct {
	C           int
	Gamma, Beta *Param // (C)
	RunMean     *Param // (C), state
	RunVar      *Param // (C), state
	Updates     *Param // (1), state: number of running-statistics updates
	Momentum    float64
	Eps         float64

	train bool
	w     []float32 // position weights of the last input
	xhat  []float32
	inv   []float64 // 1/sqrt(var+eps) per channel
	x     *Tensor
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

// Forward normalises x; lengths (nil: all valid) marks the valid region.
func (bn *BatchNorm2D) Forward(x *Tensor, lengths []int, train bool) (*Tensor, error) {
	if len(x.Shape) != 4 || x.Shape[3] != bn.C {
		return nil, fmt.Errorf("scnn: %s: input %v, want (B, L, L, %d)", bn.Gamma.Name, x.Shape, bn.C)
	}
	w, err := positionWeights(x, lengths)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bn.Gamma.Name, err)
	}
	c := bn.C
	mean := make([]float64, c)
	vr := make([]float64, c)
	if train {
		sum := make([]float64, c)
		n := 0.0
		for p, wp := range w {
			if wp == 0 {
				continue
			}
			n += float64(wp)
			for k, v := range x.Data[p*c : (p+1)*c] {
				sum[k] += float64(wp) * float64(v)
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("scnn: %s: no valid pixels in the batch", bn.Gamma.Name)
		}
		for k := range mean {
			mean[k] = sum[k] / n
		}
		for p, wp := range w {
			if wp == 0 {
				continue
			}
			for k, v := range x.Data[p*c : (p+1)*c] {
				d := float64(v) - mean[k]
				vr[k] += float64(wp) * d * d
			}
		}
		bn.Updates.Value[0]++
		m := max(bn.Momentum, 1/float64(bn.Updates.Value[0]))
		for k := range vr {
			vr[k] /= n
			unbiased := vr[k]
			if n > 1 {
				unbiased *= n / (n - 1)
			}
			bn.RunMean.Value[k] = float32((1-m)*float64(bn.RunMean.Value[k]) + m*mean[k])
			bn.RunVar.Value[k] = float32((1-m)*float64(bn.RunVar.Value[k]) + m*unbiased)
		}
	} else {
		for k := range mean {
			mean[k] = float64(bn.RunMean.Value[k])
			vr[k] = float64(bn.RunVar.Value[k])
		}
	}
	inv := make([]float64, c)
	for k := range inv {
		inv[k] = 1 / math.Sqrt(vr[k]+bn.Eps)
	}
	y := ZerosLike(x)
	xhat := make([]float32, len(x.Data))
	for p, wp := range w {
		if wp == 0 {
			continue
		}
		for k := 0; k < c; k++ {
			h := float32((float64(x.Data[p*c+k]) - mean[k]) * inv[k])
			xhat[p*c+k] = h
			y.Data[p*c+k] = bn.Gamma.Value[k]*h + bn.Beta.Value[k]
		}
	}
	bn.train, bn.w, bn.xhat, bn.inv, bn.x = train, w, xhat, inv, x
	return y, nil
}

// Backward adds dL/dgamma and dL/dbeta and returns dL/dx (zero at padding).
func (bn *BatchNorm2D) Backward(dy *Tensor) (*Tensor, error) {
	if bn.x == nil {
		return nil, fmt.Errorf("scnn: %s: Backward before Forward", bn.Gamma.Name)
	}
	if !SameShape(dy, bn.x) {
		return nil, fmt.Errorf("scnn: %s: gradient %s %v, input was %s %v", bn.Gamma.Name, dy.Layout, dy.Shape, bn.x.Layout, bn.x.Shape)
	}
	c := bn.C
	sdy := make([]float64, c)   // sum w dy
	sdyxh := make([]float64, c) // sum w dy xhat
	n := 0.0
	for p, wp := range bn.w {
		if wp == 0 {
			continue
		}
		n += float64(wp)
		for k := 0; k < c; k++ {
			g := float64(wp) * float64(dy.Data[p*c+k])
			sdy[k] += g
			sdyxh[k] += g * float64(bn.xhat[p*c+k])
		}
	}
	for k := 0; k < c; k++ {
		bn.Gamma.Grad[k] += float32(sdyxh[k])
		bn.Beta.Grad[k] += float32(sdy[k])
	}
	dx := ZerosLike(bn.x)
	for p, wp := range bn.w {
		if wp == 0 {
			continue
		}
		for k := 0; k < c; k++ {
			g := float64(bn.Gamma.Value[k]) * bn.inv[k]
			d := float64(dy.Data[p*c+k])
			if bn.train {
				d -= (sdy[k] + float64(bn.xhat[p*c+k])*sdyxh[k]) / n
			}
			dx.Data[p*c+k] = float32(g * d)
		}
	}
	return dx, nil
}
