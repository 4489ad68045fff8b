package features

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/potts"
)

// Co-evolution parameters, as in EVfold-mfDCA (Marks et al., PLoS ONE
// 6:e28766, 2011; Morcos et al., PNAS 108:E1293, 2011) and FreeContact's
// evfold profile (Kaján et al., BMC Bioinformatics 15:85, 2014).
const (
	q           = 21  // 20 amino acids + gap/unknown
	pseudocount = 0.5 // weight of the uniform pseudocount
	profileBeta = 5.0 // pseudocount weight of the BLOSUM62 prior in the MSA profile
)

// coevoIdentity is the sequence weights' identity: sequences at >= 80%
// identity share their weight, w_s = 1 / #{t : identity(s, t) >= 0.8}
// (identity: the fraction of the L columns with the same state, gaps
// included), their sum the effective number of sequences.
var coevoIdentity = msa.Identity{Fraction: 0.8, AtLeast: true}

// refState is the state left out of the covariance matrix (mean-field DCA
// is over-determined with all q): tyrosine, the last letter of the
// alphabet "-ACDEFGHIKLMNPQRSTVWY" of Marks' and Morcos' mfDCA code, with
// the gap kept as a regular state.
var refState = int(aaIndex['Y'])

// states lists the q-1 states other than ref, in order.
func states(ref int) []int {
	var s []int
	for a := 0; a < q; a++ {
		if a != ref {
			s = append(s, a)
		}
	}
	return s
}

// encode returns the alignment as states 0..19 (AminoAcids order) and 20
// (gap or non-standard), row-major M x L.
func encode(a *msa.Alignment) ([]uint8, int, int) {
	m, l := len(a.Rows), len(a.Rows[0])
	x := make([]uint8, m*l)
	for s, r := range a.Rows {
		for i := 0; i < l; i++ {
			st := aaIndex[r[i]]
			if st < 0 {
				st = 20
			}
			x[s*l+i] = uint8(st)
		}
	}
	return x, m, l
}

// Coevolution holds pair scores of an alignment's columns, L x L
// row-major, symmetric, zero on the diagonal.
type Coevolution struct {
	L    int
	Neff float64
	MI   []float64 // mutual information, APC-corrected
	DCA  []float64 // mean-field DCA coupling norm, APC-corrected
	// Profile is the L x 20 position-specific amino-acid distribution.
	Profile []float64
}

// ComputeCoevolution computes weighted frequencies with a uniform
// pseudocount (weight 0.5), then
//   - MI_ij = sum_ab f_ij(a,b) log(f_ij(a,b) / (f_i(a) f_j(b))),
//   - mean-field DCA: e = -C^-1 with C_ij(a,b) = f_ij(a,b) - f_i(a) f_j(b)
//     over the states other than refState, and the score the Frobenius
//     norm of the zero-sum-gauge q x q coupling block e_ij,
//
// both corrected by the average product (APC; Dunn et al., Bioinformatics
// 24:333, 2008): S_ij - mean_i mean_j / mean.
func ComputeCoevolution(a *msa.Alignment) (*Coevolution, error) {
	return computeCoevolution(a, 1, true)
}

// computeCoevolution is ComputeCoevolution with the sequence weights on
// threads goroutines (the same weights for any number), and the
// mean-field DCA scores only where dca is set (DCA nil otherwise: the
// plmDCA channel replaces them, and the covariance inversion is the
// costliest step at large L, O((20L)^3)).
func computeCoevolution(a *msa.Alignment, threads int, dca bool) (*Coevolution, error) {
	x, m, l := encode(a)
	w, neff := msa.Weights(x, m, l, coevoIdentity, max(threads, 1))
	fi := make([]float64, l*q)
	for s := 0; s < m; s++ {
		for i := 0; i < l; i++ {
			fi[i*q+int(x[s*l+i])] += w[s]
		}
	}
	for k := range fi {
		fi[k] = pseudocount/q + (1-pseudocount)*fi[k]/neff
	}
	// Pair frequencies, i < j, packed by pair.
	pair := func(i, j int) int { return (i*l + j) * q * q }
	fij := make([]float64, l*l*q*q)
	for s := 0; s < m; s++ {
		xs := x[s*l : (s+1)*l]
		ws := w[s]
		for i := 0; i < l; i++ {
			base := pair(i, 0)
			ai := int(xs[i]) * q
			for j := i + 1; j < l; j++ {
				fij[base+j*q*q+ai+int(xs[j])] += ws
			}
		}
	}
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			b := fij[pair(i, j) : pair(i, j)+q*q]
			for k := range b {
				b[k] = pseudocount/(q*q) + (1-pseudocount)*b[k]/neff
			}
		}
	}
	c := &Coevolution{L: l, Neff: neff, MI: make([]float64, l*l), Profile: make([]float64, l*20)}
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			b := fij[pair(i, j) : pair(i, j)+q*q]
			mi := 0.0
			for aa := 0; aa < q; aa++ {
				for bb := 0; bb < q; bb++ {
					p := b[aa*q+bb]
					mi += p * math.Log(p/(fi[i*q+aa]*fi[j*q+bb]))
				}
			}
			c.MI[i*l+j], c.MI[j*l+i] = mi, mi
		}
	}
	if dca {
		c.DCA = make([]float64, l*l)
		if err := meanFieldDCA(c, fi, fij); err != nil {
			return nil, err
		}
	}
	potts.APC(c.MI, l)
	// Profile: weighted residue counts with a BLOSUM62 prior around the
	// query residue.
	query := a.Query()
	for i := 0; i < l; i++ {
		counts := make([]float64, 20)
		tot := 0.0
		for s := 0; s < m; s++ {
			if st := x[s*l+i]; st < 20 {
				counts[st] += w[s]
				tot += w[s]
			}
		}
		prior := blosumProfile[20]
		if qa := aaIndex[query[i]]; qa >= 0 {
			prior = blosumProfile[qa]
		}
		for aa := 0; aa < 20; aa++ {
			c.Profile[i*20+aa] = (counts[aa] + profileBeta*prior[aa]) / (tot + profileBeta)
		}
	}
	return c, nil
}

// meanFieldDCA sets c.DCA (allocated, L x L) from the pseudocounted
// single (fi) and pair (fij, i < j packed by pair) frequencies: e = -C^-1
// over the states other than refState, each pair's zero-sum-gauge
// Frobenius norm, APC-corrected.
func meanFieldDCA(c *Coevolution, fi, fij []float64) error {
	l := c.L
	pair := func(i, j int) int { return (i*l + j) * q * q }
	// Covariance over (i, a) for the q-1 states other than the reference.
	st := states(refState)
	n := l * (q - 1)
	cov := mat.NewSymDense(n, nil)
	for i := 0; i < l; i++ {
		for ka, aa := range st {
			for j := i; j < l; j++ {
				for kb, bb := range st {
					if j == i && kb < ka {
						continue
					}
					var v float64
					if i == j {
						v = -fi[i*q+aa] * fi[i*q+bb]
						if aa == bb {
							v += fi[i*q+aa]
						}
					} else {
						v = fij[pair(i, j)+aa*q+bb] - fi[i*q+aa]*fi[j*q+bb]
					}
					cov.SetSym(i*(q-1)+ka, j*(q-1)+kb, v)
				}
			}
		}
	}
	var chol mat.Cholesky
	if ok := chol.Factorize(cov); !ok {
		return fmt.Errorf("%w: covariance matrix not positive definite", ErrMSA)
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return fmt.Errorf("%w: inverting covariance: %w", ErrMSA, err)
	}
	// Couplings e_ij(a,b) = -inv, 0 for the reference state; zero-sum
	// gauge and Frobenius norm over all q states, gap included (as
	// FreeContact's evfold profile: rank correlation 0.996 with it on its
	// demo alignment, see coevo_test.go).
	blk := make([]float64, q*q)
	rowMean := make([]float64, q)
	colMean := make([]float64, q)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			clear(blk)
			for ka, aa := range st {
				for kb, bb := range st {
					blk[aa*q+bb] = -inv.At(i*(q-1)+ka, j*(q-1)+kb)
				}
			}
			clear(rowMean)
			clear(colMean)
			all := 0.0
			for aa := 0; aa < q; aa++ {
				for bb := 0; bb < q; bb++ {
					e := blk[aa*q+bb]
					rowMean[aa] += e / q
					colMean[bb] += e / q
					all += e / (q * q)
				}
			}
			fro := 0.0
			for aa := 0; aa < q; aa++ {
				for bb := 0; bb < q; bb++ {
					e := blk[aa*q+bb] - rowMean[aa] - colMean[bb] + all
					fro += e * e
				}
			}
			fro = math.Sqrt(fro)
			c.DCA[i*l+j], c.DCA[j*l+i] = fro, fro
		}
	}
	potts.APC(c.DCA, l)
	return nil
}
