package model

// EnsembleMean accumulates the contact probabilities of a seed ensemble's
// members for one chain and gives their mean, the ensemble's prediction:
//
//	p[i,j] = (1/M) sum_m p_m[i,j]
//
// summed in float64 in the order the members are added, rounded to
// float32 once. Prediction and evaluation both average through it, so an
// ensemble scores the maps it predicts.
type EnsembleMean struct {
	sum []float64
	n   int
}

// Add adds one member's probabilities. Every member's map must have the
// length of the first (the same chain); Add panics otherwise.
func (e *EnsembleMean) Add(p []float32) {
	if e.n == 0 {
		e.sum = make([]float64, len(p))
	} else if len(p) != len(e.sum) {
		panic("model: EnsembleMean.Add: map length differs from the first member's")
	}
	for i, v := range p {
		e.sum[i] += float64(v)
	}
	e.n++
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
