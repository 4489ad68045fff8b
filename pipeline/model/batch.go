package model

import (
	"math"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/scnn"
)

// Sample is one chain's features and labels.
type Sample struct {
	ID    string
	Split string
	*features.Chain
}

// Batch is a padded batch: B chains padded to the longest, L.
type Batch struct {
	IDs     []string
	Lengths []int
	L       int
	X1      *scnn.Tensor // (B, L, 25), zero at padding
	X2      *scnn.Tensor // (B, L, L, 3), packed or row-major, zero at padding
	Labels  []float32    // B x L x L row-major; nil when no chain has labels
	Mask    []float32    // B x L x L: 1 for labelled pairs of valid residues; nil likewise
}

// NewBatch pads samples into a batch; packed selects the layout of X2.
func NewBatch(samples []*Sample, packed bool) *Batch {
	b := &Batch{}
	for _, s := range samples {
		b.IDs = append(b.IDs, s.ID)
		b.Lengths = append(b.Lengths, s.L())
		b.L = max(b.L, s.L())
	}
	n, l := len(samples), b.L
	b.X1 = scnn.New(n, l, features.N1D)
	if packed {
		b.X2 = scnn.NewPacked(n, l, features.N2D)
	} else {
		b.X2 = scnn.New(n, l, l, features.N2D)
	}
	for _, s := range samples {
		if s.Labels != nil {
			b.Labels = make([]float32, n*l*l)
			b.Mask = make([]float32, n*l*l)
			break
		}
	}
	const c2 = features.N2D
	x2 := b.X2.Data
	stride := b.X2.SampleLen()
	for k, s := range samples {
		ls := s.L()
		copy(b.X1.Data[k*l*features.N1D:], s.OneD)
		p := 0
		for i := 0; i < ls; i++ {
			for j := i; j < ls; j++ {
				v := s.TwoD[p*c2 : (p+1)*c2]
				if packed { // pixel (i, j) of the padded triangle
					copy(x2[k*stride+scnn.PackedIndex(l, i, j)*c2:], v)
				} else {
					copy(x2[k*stride+(i*l+j)*c2:], v)
					copy(x2[k*stride+(j*l+i)*c2:], v)
				}
				if s.Labels != nil && s.Labels.Known[p] {
					var y float32
					if s.Labels.Contact[p] {
						y = 1
					}
					for _, ij := range [][2]int{{i, j}, {j, i}} {
						o := (k*l+ij[0])*l + ij[1]
						b.Mask[o] = 1
						b.Labels[o] = y
					}
				}
				p++
			}
		}
	}
	return b
}

// Probabilities turns logits (B, L, L, 1), row-major or packed, into each
// chain's L x L probability matrix (row-major). A CNN's map is not
// symmetric; its upper triangle is its prediction.
func Probabilities(logits *scnn.Tensor, lengths []int) [][]float32 {
	out := make([][]float32, len(lengths))
	bl := logits.Shape[1]
	packed := logits.Layout == scnn.Packed
	for k, l := range lengths {
		p := make([]float32, l*l)
		z := logits.Data[k*logits.SampleLen():]
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				var v float32
				if packed {
					a, c := min(i, j), max(i, j)
					v = z[scnn.PackedIndex(bl, a, c)]
				} else {
					v = z[i*bl+j]
				}
				p[i*l+j] = float32(1 / (1 + math.Exp(-float64(v))))
			}
		}
		out[k] = p
	}
	return out
}
