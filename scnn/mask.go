package scnn

import "fmt"

// positionWeights returns, for each stored pixel of a batch of L x L maps
// (dense (B, L, L, C) or packed), how many entries of the full map it counts
// for among the valid ones: a pixel (i, j) of sample b is valid when i and j
// are below lengths[b] (the chain length; the rest is padding). Row-major pixels
// count 1; packed off-diagonal pixels count 2 and diagonal ones 1, so sums
// over a packed triangle equal sums over the full map. nil lengths means
// every pixel is valid.
func positionWeights(x *Tensor, lengths []int) ([]float32, error) {
	if len(x.Shape) != 4 || x.Shape[1] != x.Shape[2] {
		return nil, fmt.Errorf("scnn: want a (B, L, L, C) map, got %v", x.Shape)
	}
	b, l := x.Shape[0], x.Shape[1]
	if lengths != nil && len(lengths) != b {
		return nil, fmt.Errorf("scnn: %d lengths for a batch of %d", len(lengths), b)
	}
	n := x.Len() / x.Shape[3]
	w := make([]float32, n)
	p := 0
	for s := 0; s < b; s++ {
		ls := l
		if lengths != nil {
			ls = lengths[s]
			if ls < 0 || ls > l {
				return nil, fmt.Errorf("scnn: length %d of sample %d outside 0..%d", ls, s, l)
			}
		}
		for i := 0; i < l; i++ {
			j0 := 0
			if x.Layout == Packed {
				j0 = i
			}
			for j := j0; j < l; j++ {
				switch {
				case i >= ls || j >= ls:
				case x.Layout == Packed && i != j:
					w[p] = 2
				default:
					w[p] = 1
				}
				p++
			}
		}
	}
	return w, nil
}

// MaskSequences zeroes the positions t >= lengths[b] of a dense (B, L, C)
// batch of sequences in place and returns x. It is linear, so its
// backward step masks the gradient the same way.
func MaskSequences(p *Pass, x *Tensor, lengths []int) (*Tensor, error) {
	if x.Layout != RowMajor || len(x.Shape) != 3 || len(lengths) != x.Shape[0] {
		return nil, fmt.Errorf("scnn: MaskSequences: %s %v with %d lengths", x.Layout, x.Shape, len(lengths))
	}
	l := x.Shape[1]
	for b, n := range lengths {
		if n < 0 || n > l {
			return nil, fmt.Errorf("scnn: length %d of sample %d outside 0..%d", n, b, l)
		}
	}
	maskSequences(x, lengths)
	p.record(x, func() error {
		if dy := p.gradOf(x); dy != nil {
			maskSequences(dy, lengths)
			p.addGrad(x, dy)
		}
		return nil
	})
	return x, nil
}

func maskSequences(x *Tensor, lengths []int) {
	l, c := x.Shape[1], x.Shape[2]
	for b, n := range lengths {
		clear(x.Data[(b*l+n)*c : (b+1)*l*c])
	}
}

// MaskPixels zeroes, in place, the pixels (i, j) of a batch of L x L maps
// (row-major or packed) with i or j >= lengths[b], and returns x. It is
// linear, so its backward step masks the gradient the same way. Models
// apply it where a layer writes nonzero values into the padding (the
// self-Cartesian product, an outer-sum sgConv), so that padding never
// reaches valid pixels through a convolution.
func MaskPixels(p *Pass, x *Tensor, lengths []int) (*Tensor, error) {
	w, err := positionWeights(x, lengths)
	if err != nil {
		return nil, err
	}
	maskPixels(x, w)
	p.record(x, func() error {
		if dy := p.gradOf(x); dy != nil {
			maskPixels(dy, w)
			p.addGrad(x, dy)
		}
		return nil
	})
	return x, nil
}

func maskPixels(x *Tensor, w []float32) {
	c := x.Shape[3]
	for q, wq := range w {
		if wq == 0 {
			clear(x.Data[q*c : (q+1)*c])
		}
	}
}
