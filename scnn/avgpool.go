package scnn

import "fmt"

// GlobalAvgPool averages each channel of a batch of H x W maps, row-major
// or packed, into (B, C):
//
//	y[b, c] = (1 / (H W)) sum_{i,j} x[b, i, j, c]
//
// over the full map: on a packed symmetric map the off-diagonal pixels
// count twice. Its backward step spreads dy/(H W) over every pixel (for a
// packed input, the gradient of each entry of the full map).
func GlobalAvgPool(p *Pass, x *Tensor) (*Tensor, error) {
	if len(x.Shape) != 4 {
		return nil, fmt.Errorf("scnn: average pooling: input %s %v, want (B, H, W, C)", x.Layout, x.Shape)
	}
	b, h, w, c := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	y, err := p.newTensor(RowMajor, []int{b, c})
	if err != nil {
		return nil, err
	}
	pix := x.SampleLen() / c
	weights := make([]float32, pix) // how many entries of the full map a stored pixel stands for
	for q := range weights {
		weights[q] = 1
	}
	if x.Layout == Packed {
		for i, q := 0, 0; i < h; i++ {
			for j := i; j < w; j++ {
				if i != j {
					weights[q] = 2
				}
				q++
			}
		}
	}
	inv := 1 / float64(h*w)
	acc := make([]float64, c)
	for s := 0; s < b; s++ {
		clear(acc)
		xs := x.Data[s*pix*c : (s+1)*pix*c]
		for q, wt := range weights {
			for k, v := range xs[q*c : (q+1)*c] {
				acc[k] += float64(wt * v)
			}
		}
		for k, v := range acc {
			y.Data[s*c+k] = float32(v * inv)
		}
	}
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil || !p.wants(x) {
			return nil
		}
		dx := p.zerosLike(x)
		for s := 0; s < b; s++ {
			g := dy.Data[s*c : (s+1)*c]
			for q := 0; q < pix; q++ {
				d := dx.Data[(s*pix+q)*c : (s*pix+q+1)*c]
				for k, v := range g {
					d[k] = float32(float64(v) * inv)
				}
			}
		}
		p.addGrad(x, dx)
		return nil
	})
	return y, nil
}
