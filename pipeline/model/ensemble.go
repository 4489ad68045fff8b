package model

import (
	"math"

	"github.com/contactmap/contactmap/scnn"
)

// EnsembleMean accumulates the contact probabilities of a seed ensemble's
// members for one chain and gives their mean, the ensemble's prediction:
//
//	p[i,j] = (1/M) sum_m p_m[i,j]
//
// summed in float64 in the order the members are added, rounded to
// float32 once. Prediction and evaluation both average through it, so an
// ensemble scores the maps it predicts.
//
// The sum is the only L x L buffer it keeps: members are added one after
// another, each as soon as it is predicted (AddLogits takes a member's
// logits directly, without an L x L map of its own), so its memory does
// not grow with the number of members.
type EnsembleMean struct {
	sum []float64
	n   int
}

// Add adds one member's probabilities. Every member's map must have the
// length of the first (the same chain); Add panics otherwise.
func (e *EnsembleMean) Add(p []float32) {
	e.start(len(p))
	for i, v := range p {
		e.sum[i] += float64(v)
	}
	e.n++
}

// AddLogits adds one member's probabilities given as its logits (B, L, L,
// 1), row-major or packed, for sample k of length l: the same as
// Add(Probabilities(logits, lengths)[k]), bit for bit, without the
// member's L x L map. Every member must give l*l values, as in Add.
func (e *EnsembleMean) AddLogits(logits *scnn.Tensor, k, l int) {
	e.start(l * l)
	bl := logits.Shape[1]
	z := logits.Data[k*logits.SampleLen():]
	packed := logits.Layout == scnn.Packed
	for i := 0; i < l; i++ {
		row := e.sum[i*l : (i+1)*l]
		for j := range row {
			var v float32
			if packed {
				v = z[scnn.PackedIndex(bl, min(i, j), max(i, j))]
			} else {
				v = z[i*bl+j]
			}
			row[j] += float64(probability(v))
		}
	}
	e.n++
}

// probability is a logit's contact probability, as Probabilities rounds
// it.
func probability(v float32) float32 { return float32(1 / (1 + math.Exp(-float64(v)))) }

// start readies the sum for a member's map of n values.
func (e *EnsembleMean) start(n int) {
	if e.n == 0 {
		e.sum = make([]float64, n)
	} else if n != len(e.sum) {
		panic("model: EnsembleMean.Add: map length differs from the first member's")
	}
}

// Members is the number of maps added.
func (e *EnsembleMean) Members() int { return e.n }

// Mean returns the mean of the maps added (nil when none was).
func (e *EnsembleMean) Mean() []float32 {
	if e.n == 0 {
		return nil
	}
	p := make([]float32, len(e.sum))
	for i, v := range e.sum {
		p[i] = float32(v / float64(e.n))
	}
	return p
}
