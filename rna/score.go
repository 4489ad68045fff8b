package rna

import (
	"math"
	"sort"
)

// Decode turns a symmetric L x L pair-probability matrix (row-major) into
// a structure as the paper's authors do: repeatedly take the
// highest-scoring pair i < j with probability above threshold (0.5 in the
// paper) whose bases are both still unpaired. Ties go to the smaller i,
// then j. The result has no base with two partners; it may have
// pseudoknots and non-canonical pairs.
func Decode(name, seq string, p []float32, threshold float32) (*Structure, error) {
	l := len(seq)
	type cand struct {
		i, j int
		p    float32
	}
	var cs []cand
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			if v := p[i*l+j]; v > threshold {
				cs = append(cs, cand{i, j, v})
			}
		}
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].p > cs[b].p })
	used := make([]bool, l)
	var pairs [][2]int
	for _, c := range cs {
		if !used[c.i] && !used[c.j] {
			used[c.i], used[c.j] = true, true
			pairs = append(pairs, [2]int{c.i, c.j})
		}
	}
	return New(name, seq, pairs)
}

// Score compares a predicted structure with the true one (same sequence
// length) over base pairs i < j.
type Score struct {
	TP, FP, FN int
	PPV        float64 // TP / (TP + FP); 0 when nothing is predicted
	Sens       float64 // TP / (TP + FN); 0 when there is nothing to find
	Accuracy   float64 // (PPV + Sens) / 2, the paper's "accuracy"
	F1         float64 // 2 PPV Sens / (PPV + Sens)
	// MCC is the Matthews correlation over all L(L-1)/2 pairs i < j.
	MCC float64
}

// Compare scores pred against truth exactly, or, with shift, counting a
// predicted pair (i, j) as right when (i, j), (i±1, j) or (i, j±1) is a
// true pair (and a true pair as found when such a predicted pair exists):
// the one-position slip of Mathews et al. (PNAS 101:7287, 2004).
func Compare(pred, truth *Structure, shift bool) Score {
	l := len(truth.Partner)
	isTrue := func(i, j int) bool { return i >= 0 && j < l && i < j && truth.Partner[i] == j }
	isPred := func(i, j int) bool { return i >= 0 && j < l && i < j && pred.Partner[i] == j }
	near := func(has func(i, j int) bool, i, j int) bool {
		if has(i, j) {
			return true
		}
		return shift && (has(i-1, j) || has(i+1, j) || has(i, j-1) || has(i, j+1))
	}
	var s Score
	for _, p := range pred.Pairs() {
		if near(isTrue, p[0], p[1]) {
			s.TP++
		} else {
			s.FP++
		}
	}
	found := 0
	for _, p := range truth.Pairs() {
		if near(isPred, p[0], p[1]) {
			found++
		} else {
			s.FN++
		}
	}
	if s.TP+s.FP > 0 {
		s.PPV = float64(s.TP) / float64(s.TP+s.FP)
	}
	if found+s.FN > 0 {
		s.Sens = float64(found) / float64(found+s.FN)
	}
	s.Accuracy = (s.PPV + s.Sens) / 2
	if s.PPV+s.Sens > 0 {
		s.F1 = 2 * s.PPV * s.Sens / (s.PPV + s.Sens)
	}
	n := float64(l) * float64(l-1) / 2
	tp, fp, fn := float64(s.TP), float64(s.FP), float64(s.FN)
	tn := n - tp - fp - fn
	if d := (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn); d > 0 {
		s.MCC = (tp*tn - fp*fn) / math.Sqrt(d)
	}
	return s
}
