package fold

import (
	"fmt"
	"math"
	"sort"

	"github.com/contactmap/contactmap/rna"
)

// MEA returns the maximum expected accuracy structure of the ensemble and
// its expected accuracy, as RNAfold -p --MEA gamma computes them
// (ViennaRNA's vrna_MEA, default gamma 1): the nested structure S that
// maximises
//
//	sum over (i, j) in S of 2 gamma p_ij  +  sum over i unpaired in S of q_i
//
// with q_i = 1 - sum over j of p_ij the probability that i is unpaired.
// As ViennaRNA, it considers the pairs with p_ij >= 1e-4/(1+gamma) only,
// with p_ij rounded to float32, computes q_i from them, and keeps those
// with 2 gamma p_ij > q_i + q_j; among structures of equal accuracy it
// picks the one ViennaRNA's backtracking picks (except that where
// ViennaRNA would take two tied decompositions at once, this takes the
// first). Larger gamma gives more pairs; gamma must be finite and >= 0.
//
// This differs from rna.DecodeMEA, the gamma-centroid estimator that
// maximises the sum of (gamma+1) p_ij - 1 over the pairs: there a pair's
// weight does not depend on the other pairs of its bases.
func (e *Ensemble) MEA(gamma float64) (*rna.Structure, float64, error) {
	if math.IsNaN(gamma) || math.IsInf(gamma, 0) || gamma < 0 {
		return nil, 0, fmt.Errorf("fold: MEA gamma %v, want a finite value >= 0", gamma)
	}
	n := e.n
	type pairProb struct {
		i, j int
		p    float32
	}
	// vrna_plist_from_probs and prune_plist
	cut := 1e-4 / (1 + gamma)
	var pl []pairProb
	for i := 1; i < n; i++ {
		for j := i + 1; j <= min(n, i+e.dmax); j++ {
			if v := e.prob[i*e.s1+j]; v >= cut {
				pl = append(pl, pairProb{i, j, float32(v)})
			}
		}
	}
	pu := make([]float64, n+1)
	for i := range pu {
		pu[i] = 1
	}
	for _, c := range pl {
		pu[c.i] -= float64(c.p)
		pu[c.j] -= float64(c.p)
	}
	var kept []pairProb
	for _, c := range pl {
		if float64(c.p*2)*gamma > pu[c.i]+pu[c.j] {
			kept = append(kept, c)
		}
	}
	sort.Slice(kept, func(a, b int) bool {
		if kept[a].i != kept[b].i {
			return kept[a].i > kept[b].i
		}
		return kept[a].j < kept[b].j
	})

	// M(i, j) = max(M(i, j-1) + q_j, max over k of M(i, k-1) + C(k, j)),
	// C(i, j) = 2 gamma p_ij + M(i+1, j-1), by rows i from n down; C(k, j)
	// is kept only where it is the optimum of M(k, j). With a span limit
	// the rows but the first stop at the band: a pair (i, j) needs
	// M(i+1, j-1) only, the result M(1, n).
	type item struct {
		i int
		a float64
	}
	cl := make([][]item, n+2)
	mi, mi1 := make([]float64, n+2), make([]float64, n+2)
	k := 0
	for i := n; i > 0; i-- {
		mi[i] = pu[i]
		jmax := min(n, i+e.dmax)
		if i == 1 {
			jmax = n
		}
		for j := i + 1; j <= jmax; j++ {
			v := mi[j-1] + pu[j]
			for _, li := range cl[j] {
				if ea := li.a + mi[li.i-1]; ea > v {
					v = ea
				}
			}
			mi[j] = v
			if k < len(kept) && kept[k].i == i && kept[k].j == j {
				ea := mi1[j-1]
				ea += 2 * gamma * float64(kept[k].p)
				if mi[j] < ea {
					mi[j] = ea
					cl[j] = append(cl[j], item{i, ea})
				}
				k++
			}
		}
		mi, mi1 = mi1, mi
	}
	mea := 0.0
	if n > 0 {
		mea = max(mea, mi1[n])
	}

	// backtracking (mea_backtrack), recomputing the rows of M inside pairs
	m := mi1
	var pairs [][2]int
	var bt func(i, j int, pair bool) error
	bt = func(i, j int, pair bool) error {
		if pair {
			pairs = append(pairs, [2]int{i - 1, j - 1})
			i++
			j--
			m[i-1] = 0
			m[i] = pu[i]
			for k := i + 1; k <= j; k++ {
				v := m[k-1] + pu[k]
				for _, li := range cl[k] {
					if li.i < i {
						break
					}
					if ea := li.a + m[li.i-1]; ea > v {
						v = ea
					}
				}
				m[k] = v
			}
		}
		prec := 0x1p-52 * m[j] // DBL_EPSILON
		for j > i && m[j] <= m[j-1]+pu[j]+prec {
			j--
		}
		for _, li := range cl[j] {
			if li.i < i {
				break
			}
			if m[j] <= li.a+m[li.i-1]+prec {
				if li.i > i+3 {
					if err := bt(i, li.i-1, false); err != nil {
						return err
					}
				}
				return bt(li.i, j, true)
			}
		}
		if j > i {
			return fmt.Errorf("fold: MEA backtracking failed at [%d, %d]", i, j)
		}
		return nil
	}
	if n > 0 {
		if err := bt(1, n, false); err != nil {
			return nil, 0, err
		}
	}
	st, err := rna.New("", e.Seq, pairs)
	if err != nil {
		return nil, 0, fmt.Errorf("fold: MEA: %w", err)
	}
	return st, mea, nil
}
