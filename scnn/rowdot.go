package scnn

import "fmt"

// RowDot scores T candidate rows per sample against one vector per
// sample: with w (B, T, D), x (B, D) and bias (B, T, 1) or nil,
//
//	y[b, t] = bias[b, t] + sum_k w[b, t, k] * x[b, k].
//
// Recommenders use it with w and bias looked up from Embedding tables for
// the candidate items only (CosRec's W2 and b2), so a step costs B T D,
// not B N D for N items. Its backward step passes dw[b,t,:] = dy[b,t]
// x[b,:], dx[b,:] = sum_t dy[b,t] w[b,t,:] and dbias = dy.
func RowDot(p *Pass, w, x, bias *Tensor) (*Tensor, error) {
	if len(w.Shape) != 3 || len(x.Shape) != 2 || w.Shape[0] != x.Shape[0] || w.Shape[2] != x.Shape[1] {
		return nil, fmt.Errorf("scnn: RowDot: rows %v and vectors %v, want (B, T, D) and (B, D)", w.Shape, x.Shape)
	}
	b, t, d := w.Shape[0], w.Shape[1], w.Shape[2]
	if bias != nil && (bias.Len() != b*t || bias.Shape[0] != b) {
		return nil, fmt.Errorf("scnn: RowDot: bias %v for rows %v", bias.Shape, w.Shape)
	}
	y, err := p.newTensor(RowMajor, []int{b, t})
	if err != nil {
		return nil, err
	}
	for s := 0; s < b; s++ {
		xs := x.Data[s*d : (s+1)*d]
		for q := 0; q < t; q++ {
			ws := w.Data[(s*t+q)*d : (s*t+q+1)*d]
			acc := float32(0)
			for k, v := range ws {
				acc += v * xs[k]
			}
			if bias != nil {
				acc += bias.Data[s*t+q]
			}
			y.Data[s*t+q] = acc
		}
	}
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		if p.wants(w) {
			dw := p.zerosLike(w)
			for s := 0; s < b; s++ {
				xs := x.Data[s*d : (s+1)*d]
				for q := 0; q < t; q++ {
					g := dy.Data[s*t+q]
					o := dw.Data[(s*t+q)*d : (s*t+q+1)*d]
					for k, v := range xs {
						o[k] = g * v
					}
				}
			}
			p.addGrad(w, dw)
		}
		if p.wants(x) {
			dx := p.zerosLike(x)
			for s := 0; s < b; s++ {
				o := dx.Data[s*d : (s+1)*d]
				for q := 0; q < t; q++ {
					g := dy.Data[s*t+q]
					for k, v := range w.Data[(s*t+q)*d : (s*t+q+1)*d] {
						o[k] += g * v
					}
				}
			}
			p.addGrad(x, dx)
		}
		if bias != nil && p.wants(bias) {
			db := p.zerosLike(bias)
			copy(db.Data, dy.Data)
			p.addGrad(bias, db)
		}
		return nil
	})
	return y, nil
}
