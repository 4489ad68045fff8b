package metrics

import (
	"github.com/contactmap/contactmap/pdb"
	"math/rand/v2"
	"sort"
)

// Range is a sequence-separation range of the field (CASP,
// RaptorX-Contact), an index of ChainMetrics.TopL.
type Range int

// The separation ranges: short 6-11, medium 12-23, long >= 24.
const (
	Short Range = iota
	Medium
	Long
	NumRanges
)

// RangeSpec is the extent of a Range.
type RangeSpec struct {
	Name     string
	Min, Max int // inclusive; Max 0 means no upper bound
}

// Ranges holds the extent of each Range.
var Ranges = [NumRanges]RangeSpec{Short: {"short", 6, 11}, Medium: {"medium", 12, 23}, Long: {"long", 24, 0}}

func (r Range) String() string { return Ranges[r].Name }

// Fraction is a top-L/k precision, an index of ChainMetrics.TopL.
type Fraction int

// The top-L/k fractions.
const (
	TopL1 Fraction = iota
	TopL2
	TopL5
	TopL10
	NumFractions
)

// TopFractions holds the k of each Fraction.
var TopFractions = [NumFractions]int{TopL1: 1, TopL2: 2, TopL5: 5, TopL10: 10}

// TopL holds precisions by range and fraction: TopL[Long][TopL5] is the
// long-range top-L/5 precision. Every value is in [0, 1].
type TopL [NumRanges][NumFractions]float64

// ChainMetrics are one chain's scores. Threshold metrics use every
// labelled pair i < j; top-L/k precisions use the labelled pairs of a
// separation range.
type ChainMetrics struct {
	ID       string
	L        int
	PPV      float64 // TP / (TP + FP) at p >= 0.5; 0 if nothing is predicted
	Sens     float64 // TP / (TP + FN); 0 if the chain has no contacts
	Accuracy float64 // (PPV + Sens) / 2, the paper's accuracy
	// TopL[r][f]: precision of the top L/TopFractions[f] pairs of range r.
	TopL TopL
	// RangeContacts[r]: labelled contacts in range r. Where it is 0, the
	// chain has nothing to find there and TopL[r] is 0 by definition.
	RangeContacts [NumRanges]int
}

// Evaluate scores predicted probabilities p (L x L row-major; only i < j
// is read) against the true contacts; unknown pairs do not count.
func Evaluate(id string, p []float32, truth *pdb.Contacts) ChainMetrics {
	l := truth.L
	m := ChainMetrics{ID: id, L: l}
	var tp, fp, fn float64
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			pos, known := truth.At(i, j)
			if !known {
				continue
			}
			pred := p[i*l+j] >= 0.5
			switch {
			case pos && pred:
				tp++
			case pred:
				fp++
			case pos:
				fn++
			}
		}
	}
	if tp+fp > 0 {
		m.PPV = tp / (tp + fp)
	}
	if tp+fn > 0 {
		m.Sens = tp / (tp + fn)
	}
	m.Accuracy = (m.PPV + m.Sens) / 2
	type pair struct {
		s   float32
		pos bool
	}
	for r, rg := range Ranges {
		var ps []pair
		for i := 0; i < l; i++ {
			for j := i + rg.Min; j < l; j++ {
				if rg.Max > 0 && j-i > rg.Max {
					break
				}
				if pos, known := truth.At(i, j); known {
					ps = append(ps, pair{p[i*l+j], pos})
				}
			}
		}
		// Stable order for equal scores: pair order (i, then j).
		sort.SliceStable(ps, func(a, b int) bool { return ps[a].s > ps[b].s })
		for _, q := range ps {
			if q.pos {
				m.RangeContacts[r]++
			}
		}
		for f, k := range TopFractions {
			n := max(1, l/k)
			n = min(n, len(ps))
			if n == 0 {
				continue
			}
			hit := 0
			for _, q := range ps[:n] {
				if q.pos {
					hit++
				}
			}
			m.TopL[r][f] = float64(hit) / float64(n)
		}
	}
	return m
}

// Summary averages chain metrics.
type Summary struct {
	Chains   int
	PPV      float64
	Sens     float64
	Accuracy float64
	TopL     TopL
}

// Summarize averages per chain.
func Summarize(ms []ChainMetrics) Summary {
	s := Summary{Chains: len(ms)}
	if len(ms) == 0 {
		return s
	}
	n := float64(len(ms))
	for _, m := range ms {
		s.PPV += m.PPV / n
		s.Sens += m.Sens / n
		s.Accuracy += m.Accuracy / n
		for r := range m.TopL {
			for f := range m.TopL[r] {
				s.TopL[r][f] += m.TopL[r][f] / n
			}
		}
	}
	return s
}

// NearDiagonalBaseline predicts every pair with |i-j| <= 2 as a contact
// (probability 1) and every other pair as not (0): with C-alpha labels it
// shows how much of the threshold metrics needs no model at all.
func NearDiagonalBaseline(l int) []float32 {
	p := make([]float32, l*l)
	for i := 0; i < l; i++ {
		for j := max(0, i-2); j <= min(l-1, i+2); j++ {
			p[i*l+j] = 1
		}
	}
	return p
}

// RandomBaseline gives every pair a uniform random score (symmetric).
func RandomBaseline(l int, rng *rand.Rand) []float32 {
	p := make([]float32, l*l)
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			v := rng.Float32()
			p[i*l+j], p[j*l+i] = v, v
		}
	}
	return p
}
