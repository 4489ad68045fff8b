package rna

import (
	"errors"
	"fmt"
	"math"
)

// ErrProbabilities is wrapped by the errors of DecodeMEA on a bad
// pair-probability map or bad options.
var ErrProbabilities = errors.New("invalid pair probabilities")

// KnotMinProb is the probability a pair of the second (pseudoknot) layer
// of DecodeMEA must exceed: the greedy decoder's 0.5, so a pseudoknotted
// pair is never predicted on weaker evidence than greedy decoding needs.
const KnotMinProb = 0.5

// DecodeOptions are the settings of DecodeMEA. The zero value is the
// pseudoknot-free gamma-centroid estimator with gamma 1.
type DecodeOptions struct {
	// Gamma weighs pairs against unpaired bases: a pair (i, j) scores
	// (Gamma+1) p_ij - 1, so only pairs with p_ij > 1/(Gamma+1) can help
	// (Gamma 1: p > 0.5; larger Gamma predicts more pairs). 0 means 1;
	// negative, NaN or infinite is an error.
	Gamma float64
	// Pseudoknots adds a second layer of pairs (see DecodeMEA); false
	// gives a nested, pseudoknot-free structure.
	Pseudoknots bool
	// MinProb drops candidate pairs with p_ij < MinProb before the
	// dynamic programme (a speed-up for large Gamma, where many weak pairs
	// have positive weight; the optimum is then over the pairs kept). It
	// must be in [0, 1).
	MinProb float32
}

// DecodeMEA decodes a symmetric L x L pair-probability map p (row-major,
// p[i*L+j] the probability that bases i and j pair; L = len(seq); every
// value finite, in [0, 1] and equal to its mirror p[j*L+i]) into a
// structure of canonical and wobble pairs (AU, CG, GU) with hairpin loops
// of at least MinHairpin bases: the maximum expected accuracy structure
// of the gamma-centroid estimator (Hamada et al., Bioinformatics 25:465,
// 2009; the MEA objective of CONTRAfold and ViennaRNA's centroid in the
// same family), which maximises over nested structures S
//
//	sum over (i, j) in S of  w_ij = (gamma+1) p_ij - 1.
//
// With gamma = 1 a pair adds 2p - 1: pairs with p > 0.5 help, as in the
// greedy decoder, but the chosen pairs are nested and canonical. Only
// candidate pairs with w_ij > 0 (and p_ij >= o.MinProb) enter the
// programme; leaving out pairs with w_ij <= 0 is exact, since removing a
// pair from a nested structure leaves it nested and does not lower the
// sum. The Nussinov-style recurrence over the candidates, in O(L^2 c)
// time for at most c candidates per base (O(L^3) when every pair is one)
// and (L+1)^2 float32 of memory:
//
//	N(i,j) = 0                                            for j <= i
//	N(i,j) = max( N(i+1,j),                               i unpaired
//	              max_k w_ik + N(i+1,k-1) + N(k+1,j) )     i pairs k, k <= j
//
// With o.Pseudoknots the result has a second layer, in the way of
// IPknot's and SPOT-RNA's layered decoding: the same programme is run
// again over the bases the first layer left unpaired, with only the
// candidates with p_ij > KnotMinProb; its pairs may cross the first
// layer's. Every base has at most one partner in every mode. The error,
// naming the molecule, wraps ErrProbabilities.
func DecodeMEA(name, seq string, p []float32, o DecodeOptions) (*Structure, error) {
	l := len(seq)
	fail := func(format string, a ...any) error {
		return fmt.Errorf("rna: %s: %w: "+format, append([]any{name, ErrProbabilities}, a...)...)
	}
	gamma := o.Gamma
	if gamma == 0 {
		gamma = 1
	}
	switch {
	case math.IsNaN(gamma) || math.IsInf(gamma, 0) || gamma < 0:
		return nil, fail("gamma %v, want a finite value >= 0", o.Gamma)
	case !(o.MinProb >= 0 && o.MinProb < 1):
		return nil, fail("minimum probability %v, want [0, 1)", o.MinProb)
	case len(p) != l*l:
		return nil, fail("%d values for %d bases, want %d x %d = %d", len(p), l, l, l, l*l)
	}
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			v := p[i*l+j]
			if !(v >= 0 && v <= 1) {
				return nil, fail("p(%d,%d) = %v, want a value in [0, 1]", i+1, j+1, v)
			}
			if v != p[j*l+i] {
				return nil, fail("p(%d,%d) = %v but p(%d,%d) = %v: not symmetric", i+1, j+1, v, j+1, i+1, p[j*l+i])
			}
		}
	}
	free := make([]bool, l)
	for i := range free {
		free[i] = true
	}
	t := newMEATables(l)
	c := candidates(seq, p, free, gamma, o.MinProb)
	pairs := t.nested(c)
	if o.Pseudoknots {
		for _, q := range pairs {
			free[q[0]], free[q[1]] = false, false
		}
		c = candidates(seq, p, free, gamma, max(o.MinProb, math.Nextafter32(KnotMinProb, 1)))
		// nested rewrites every cell i < j; the others stay 0.
		pairs = append(pairs, t.nested(c)...)
	}
	sortPairs(pairs)
	s, err := New(name, seq, pairs)
	if err != nil {
		return nil, fmt.Errorf("rna: %s: %w", name, err)
	}
	return s, nil
}

// pairCands are the candidate pairs of the dynamic programme in
// compressed rows: base i may pair with k[start[i]:start[i+1]] (by
// increasing k, each k > i+MinHairpin) with weight w at the same index.
type pairCands struct {
	start []int32
	k     []int32
	w     []float32
}

// candidates lists the pairs (i, k), i < k, of two free bases that are
// canonical, enclose at least MinHairpin bases, have p >= minProb and a
// weight (gamma+1) p - 1 above 0.
func candidates(seq string, p []float32, free []bool, gamma float64, minProb float32) pairCands {
	l := len(seq)
	c := pairCands{start: make([]int32, l+1)}
	for i := 0; i < l; i++ {
		c.start[i] = int32(len(c.k))
		if !free[i] {
			continue
		}
		for k := i + MinHairpin + 1; k < l; k++ {
			v := p[i*l+k]
			if !free[k] || v < minProb || !canonical(seq[i], seq[k]) {
				continue
			}
			if w := float32((gamma+1)*float64(v) - 1); w > 0 {
				c.k = append(c.k, int32(k))
				c.w = append(c.w, w)
			}
		}
	}
	c.start[l] = int32(len(c.k))
	return c
}

// meaTables holds N of DecodeMEA's recurrence at stride s = L+1:
// n[i*s+j] = N(i, j), 0 where i >= j (row L too).
type meaTables struct {
	l, s int
	n    []float32
}

func newMEATables(l int) *meaTables {
	s := l + 1
	return &meaTables{l: l, s: s, n: make([]float32, s*s)}
}

// nested fills the table for the candidates c and returns the pairs of
// an optimal nested structure (ties: i unpaired, then the smallest k).
// Row i is filled from the rows below it, a candidate at a time: it
// starts as row i+1 (i unpaired), and candidate (i, k) with a = w_ik +
// N(i+1,k-1) raises N(i,j) to a + N(k+1,j) for every j >= k, so the
// inner loop runs along rows i and k+1 (contiguous, whatever L is).
func (t *meaTables) nested(c pairCands) [][2]int {
	l, s := t.l, t.s
	for i := l - 1; i >= 0; i-- {
		row := t.n[i*s : i*s+l]
		below := t.n[(i+1)*s : (i+1)*s+l]
		copy(row[i+1:], below[i+1:])
		for m := c.start[i]; m < c.start[i+1]; m++ {
			k := int(c.k[m])
			a := c.w[m] + below[k-1]
			src := t.n[(k+1)*s+k : (k+1)*s+l] // N(k+1, j), j = k..L-1
			dst := row[k:l]
			dst = dst[:len(src)]
			for x, v := range src {
				if v := a + v; v > dst[x] {
					dst[x] = v
				}
			}
		}
	}
	var pairs [][2]int
	stack := [][2]int{{0, l - 1}}
	for len(stack) > 0 {
		i, j := stack[len(stack)-1][0], stack[len(stack)-1][1]
		stack = stack[:len(stack)-1]
		for i < j {
			k := t.partner(&c, i, j)
			if k < 0 {
				i++
				continue
			}
			pairs = append(pairs, [2]int{i, k})
			stack = append(stack, [2]int{i + 1, k - 1})
			i = k + 1
		}
	}
	return pairs
}

// partner is the traceback of cell (i, j), i < j: the partner k of i in
// the optimum, -1 when i is unpaired. It evaluates the recurrence with
// the same float32 operations and tie rule as the fill (strictly better
// than unpaired, then than each smaller k), so it finds the same k.
func (t *meaTables) partner(c *pairCands, i, j int) int {
	s := t.s
	best, arg := t.n[(i+1)*s+j], -1
	for m := c.start[i]; m < c.start[i+1]; m++ {
		k := int(c.k[m])
		if k > j {
			break
		}
		if v := (c.w[m] + t.n[(i+1)*s+k-1]) + t.n[(k+1)*s+j]; v > best {
			best, arg = v, k
		}
	}
	return arg
}
