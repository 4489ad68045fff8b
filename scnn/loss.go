package scnn

import (
	"fmt"
	"math"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// WeightedBCE is the binary cross-entropy of contact maps over the pairs
// i < j, with positive-class weight PosWeight, computed from logits z:
//
//	loss = (1/N) sum_{b, i<j, mask=1} PosWeight*y*softplus(-z) + (1-y)*softplus(z)
//
// where N is the number of counted pairs and softplus(z) = log(1+exp(z)) =
// -log(1 - sigmoid(z)), computed as max(z, 0) + log1p(exp(-|z|)). Pairs with mask 0 (padding, residues without
// coordinates) contribute nothing.
//
// For a row-major output (an ordinary CNN, not symmetric) the gradient is
// the derivative at (i, j), i < j, and zero elsewhere. For a packed output
// (an SCNN, symmetric) the gradient is symmetrised: half of it at (i, j)
// and half at (j, i), which leaves every parameter gradient unchanged
// because the output is symmetric, and keeps all backward maps symmetric.
type WeightedBCE struct {
	PosWeight float64
	Workers   int // goroutines over samples; 0 means GOMAXPROCS (results do not depend on it)
}

// Forward returns the mean loss and dL/dz for logits z (B, L, L, 1),
// row-major or packed; labels and mask are row-major B x L x L.
// It returns an error if a logit is NaN or infinite.
func (w WeightedBCE) Forward(z *Tensor, labels, mask []float32) (float64, *Tensor, error) {
	if len(z.Shape) != 4 || z.Shape[1] != z.Shape[2] || z.Shape[3] != 1 {
		return 0, nil, fmt.Errorf("scnn: loss: logits %v, want (B, L, L, 1)", z.Shape)
	}
	b, l := z.Shape[0], z.Shape[1]
	if len(labels) != b*l*l || len(mask) != b*l*l {
		return 0, nil, fmt.Errorf("scnn: loss: %d labels and %d mask values for %d x %d x %d", len(labels), len(mask), b, l, l)
	}
	grad := ZerosLike(z)
	// first(s, i) is the index in z of pair (i, i+1) of sample s; the
	// pairs (i, j > i) follow it one by one in either layout.
	first := func(s, i int) int { return (s*l+i)*l + i + 1 }
	half := 1.0
	if z.Layout == Packed {
		first = func(s, i int) int { return s*l*(l+1)/2 + PackedIndex(l, i, i) + 1 }
		half = 0.5
	}
	// Per-sample sums, combined in sample order: deterministic whatever
	// the number of goroutines.
	ns, sums, errs := make([]int, b), make([]float64, b), make([]error, b)
	kern.ParallelFor(b, kern.Workers(w.Workers), func(_, s int) {
		for i := 0; i < l; i++ {
			row, p0 := (s*l+i)*l, first(s, i)
			for j := i + 1; j < l; j++ {
				m := row + j
				if mask[m] == 0 {
					continue
				}
				p := p0 + j - i - 1
				zz, y := float64(z.Data[p]), float64(labels[m])
				if math.IsNaN(zz) || math.IsInf(zz, 0) {
					errs[s] = fmt.Errorf("scnn: loss: logit of sample %d pair (%d,%d) is %v", s, i, j, zz)
					return
				}
				// softplus(-zz) and softplus(zz) share log1p(exp(-|zz|)):
				// the same bits as calling softplus twice, at half the cost.
				e := math.Exp(-math.Abs(zz))
				lp := math.Log1p(e)
				sums[s] += w.PosWeight*y*(max(-zz, 0)+lp) + (1-y)*(max(zz, 0)+lp)
				// 1/(1+exp(-zz)), whose exp is e where zz >= 0.
				if zz < 0 {
					e = math.Exp(-zz)
				}
				sg := 1 / (1 + e)
				grad.Data[p] = float32(half * (w.PosWeight*y*(sg-1) + (1-y)*sg))
				ns[s]++
			}
		}
	})
	n, sum := 0, 0.0
	for s := 0; s < b; s++ {
		if errs[s] != nil {
			return 0, nil, errs[s]
		}
		n += ns[s]
		sum += sums[s]
	}
	if n == 0 {
		return 0, grad, nil
	}
	for i := range grad.Data {
		grad.Data[i] /= float32(n)
	}
	return sum / float64(n), grad, nil
}
