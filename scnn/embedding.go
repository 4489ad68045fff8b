package scnn

import (
	"fmt"
	"math/rand/v2"
)

// Embedding is a lookup table W (N, D): id k maps to row W[k]. Its
// gradient is sparse: the backward step of a lookup adds into the rows of
// the ids looked up only,
//
//	dW[ids[q], :] += dy[q, :],
//
// so its cost is that of the batch, not of the table. (The optimiser still
// sees a dense Grad, as PyTorch's Adam does for nn.Embedding: rows not
// looked up get a zero gradient, and their moments decay.)
type Embedding struct {
	N, D int
	W    *Param // (N, D)
}

// NewEmbedding returns an N x D table drawn from a normal distribution
// with standard deviation std (CosRec draws with std 1/D).
func NewEmbedding(name string, n, d int, std float64, rng *rand.Rand) (*Embedding, error) {
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("%s: bad table %d x %d", name, n, d)
	}
	e := &Embedding{N: n, D: d, W: newParam(name+".W", true, true, n, d)}
	for i := range e.W.Value {
		e.W.Value[i] = float32(rng.NormFloat64() * std)
	}
	return e, nil
}

// Params returns W.
func (e *Embedding) Params() []*Param { return []*Param{e.W} }

// Lookup returns the rows of ids as a tensor of shape (shape..., D); the
// product of shape must be len(ids). An id outside [0, N) is an error.
func (e *Embedding) Lookup(p *Pass, ids []int32, shape ...int) (*Tensor, error) {
	p.use(e)
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n != len(ids) || len(shape) == 0 {
		return nil, fmt.Errorf("scnn: %s: %d ids for shape %v", e.W.Name, len(ids), shape)
	}
	for q, id := range ids {
		if id < 0 || int(id) >= e.N {
			return nil, fmt.Errorf("scnn: %s: id %d at position %d outside [0, %d)", e.W.Name, id, q, e.N)
		}
	}
	y, err := p.newTensor(RowMajor, append(append([]int(nil), shape...), e.D))
	if err != nil {
		return nil, err
	}
	d := e.D
	for q, id := range ids {
		copy(y.Data[q*d:(q+1)*d], e.W.Value[int(id)*d:(int(id)+1)*d])
	}
	ids = append([]int32(nil), ids...) // the caller may reuse its slice
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		for q, id := range ids {
			g := e.W.Grad[int(id)*d : (int(id)+1)*d]
			for k, v := range dy.Data[q*d : (q+1)*d] {
				g[k] += v
			}
		}
		return nil
	})
	return y, nil
}
