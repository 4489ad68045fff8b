package scnn

import (
	"fmt"
	"math/rand/v2"
)

// Dropout zeroes each element of x with probability Rate in a training
// pass and scales the others by 1/(1-Rate) ("inverted" dropout, as
// PyTorch's nn.Dropout), so an inference pass is the identity. The mask
// is drawn from rng, so a seeded generator makes training reproducible.
// Its backward step passes dy through the same mask and scale.
func Dropout(p *Pass, x *Tensor, rate float64, rng *rand.Rand) (*Tensor, error) {
	if rate < 0 || rate >= 1 {
		return nil, fmt.Errorf("scnn: dropout rate %v outside [0, 1)", rate)
	}
	if !p.Training() || rate == 0 {
		return x, nil
	}
	scale := float32(1 / (1 - rate))
	keep := make([]float32, len(x.Data))
	y := p.zerosLike(x)
	for i, v := range x.Data {
		if rng.Float64() >= rate {
			keep[i] = scale
			y.Data[i] = v * scale
		}
	}
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		for i, k := range keep {
			dy.Data[i] *= k
		}
		p.addGrad(x, dy)
		return nil
	})
	return y, nil
}
