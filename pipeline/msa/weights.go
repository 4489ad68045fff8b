package msa

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"
)

// Alphabet is the order of the 21 states of Encode, CCMpred's: the 20
// amino acids, then the gap.
const Alphabet = "ARNDCQEGHILKMFPSTWYV-"

// Gap is the gap state, also given to the non-standard letters B, J, O,
// U, X and Z (as CCMpred's aatoi does).
const Gap = 20

// Q is the number of states.
const Q = 21

var stateOf = func() (t [256]uint8) {
	for i := range t {
		t[i] = Gap
	}
	for k := 0; k < 20; k++ {
		t[Alphabet[k]] = uint8(k)
		t[Alphabet[k]-'A'+'a'] = uint8(k)
	}
	return
}()

// State returns the state (0..20, Alphabet order) of an alignment letter.
func State(c byte) uint8 { return stateOf[c] }

// Encode returns the alignment as states, N x L row-major.
func (a *Alignment) Encode() []uint8 {
	n, l := a.N(), a.L()
	x := make([]uint8, n*l)
	for s, r := range a.Rows {
		for i, c := range r {
			x[s*l+i] = stateOf[c]
		}
	}
	return x
}

// Identity is the similarity at which Weights counts two sequences as
// neighbours: the same state, gaps included, in a Fraction of the
// columns. The methods differ in one detail, AtLeast.
type Identity struct {
	Fraction float64
	// AtLeast counts pairs with the same state in at least
	// ceil(Fraction*l) columns, as EVfold-mfDCA and FreeContact do (the
	// mean-field DCA and profile channels of pipeline/features); without
	// it, in more than ceil(Fraction*l) columns, as CCMpred's
	// calculate_weights does (plmDCA, the search stage's Neff/L).
	AtLeast bool
}

// DefaultIdentity is CCMpred's reweighting threshold: more than 80% of
// the columns.
var DefaultIdentity = Identity{Fraction: 0.8}

// Weights returns the sequence weights of an encoded alignment x (n x l)
// and their sum, the effective number of sequences Neff: w_s = 1 / (1 +
// the number of other sequences that are neighbours of s at identity
// id). With DefaultIdentity these are CCMpred's weights
// (calculate_weights). The work is split over up to threads goroutines
// (0: GOMAXPROCS); the result does not depend on it.
func Weights(x []uint8, n, l int, id Identity, threads int) ([]float64, float64) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	maxMis := maxMismatches(id, l)
	counts := make([][]int32, threads)
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		counts[t] = make([]int32, n)
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			c := counts[t]
			if maxMis < 0 {
				return
			}
			// Rows interleaved over workers to balance the triangle.
			for s := t; s < n; s += threads {
				xs := x[s*l : (s+1)*l]
				for u := s + 1; u < n; u++ {
					if withinMismatches(xs, x[u*l:(u+1)*l], maxMis) {
						c[s]++
						c[u]++
					}
				}
			}
		}(t)
	}
	wg.Wait()
	w := make([]float64, n)
	neff := 0.0
	for s := range w {
		k := 0
		for t := range counts {
			k += int(counts[t][s])
		}
		w[s] = 1 / float64(1+k)
		neff += w[s]
	}
	return w, neff
}

// maxMismatches returns the most columns, of l, in which two sequences
// may differ and still be neighbours at id.
func maxMismatches(id Identity, l int) int {
	idthres := int(math.Ceil(id.Fraction * float64(l)))
	if id.AtLeast {
		return l - idthres // same in >= idthres columns
	}
	return l - idthres - 1 // same in > idthres columns <=> mismatches <= l-idthres-1
}

// NonRedundant returns the rows of an encoded alignment x (n x l) that a
// greedy pass keeps, in their order: row 0 (the query) always, then each
// row unless a row kept before it is its neighbour at id (the
// neighbours of Weights: the same state, gaps included, in more than
// ceil(Fraction*l) columns, or at least that many under AtLeast). It is
// the redundancy filter of hhfilter -id (HH-suite) with CCMpred's
// measure of identity and the alignment's order, which are not
// hhfilter's:
//
//	kept := []int{0}
//	for s := 1; s < n; s++ {
//		if no k in kept is a neighbour of s {
//			kept = append(kept, s)
//		}
//	}
//
// The work is split over up to threads goroutines (0: GOMAXPROCS); the
// rows kept do not depend on it. The candidates come in blocks of
// nonRedundantBlock rows: the rows of a block are compared with every
// row kept before the block in parallel, and those with no neighbour
// there are then compared in order with the rows of the block kept
// before them, which is the loop above.
func NonRedundant(x []uint8, n, l int, id Identity, threads int) []int {
	if n == 0 {
		return nil
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	maxMis := maxMismatches(id, l)
	row := func(s int) []uint8 { return x[s*l : (s+1)*l] }
	near := func(s int, kept []int) bool {
		for _, k := range kept {
			if withinMismatches(row(s), row(k), maxMis) {
				return true
			}
		}
		return false
	}
	kept := []int{0}
	seen := make([]bool, nonRedundantBlock)
	for lo := 1; lo < n; lo += nonRedundantBlock {
		hi := min(n, lo+nonRedundantBlock)
		before := kept // the rows kept before the block, read by every worker
		var wg sync.WaitGroup
		for t := range threads {
			wg.Add(1)
			go func(t int) {
				defer wg.Done()
				for s := lo + t; s < hi; s += threads {
					seen[s-lo] = near(s, before)
				}
			}(t)
		}
		wg.Wait()
		first := len(kept)
		for s := lo; s < hi; s++ {
			if !seen[s-lo] && !near(s, kept[first:]) {
				kept = append(kept, s)
			}
		}
	}
	return kept
}

// nonRedundantBlock is NonRedundant's block of candidate rows; a
// variable for the tests.
var nonRedundantBlock = 256

// Neff is the effective number of sequences of a at DefaultIdentity
// (Weights' sum), computed by up to threads goroutines.
func (a *Alignment) Neff(threads int) float64 {
	_, neff := Weights(a.Encode(), a.N(), a.L(), DefaultIdentity, threads)
	return neff
}

// Warning is a remark on an alignment that does not stop its use.
type Warning struct {
	Path string
	N, L int
	Neff float64
}

func (w *Warning) String() string {
	path := w.Path
	if path == "" {
		path = "<input>"
	}
	return fmt.Sprintf("msa: %s: few effective sequences: Neff = %.1f for L = %d columns (Neff/L = %.2f < 1, %d sequences at 80%% identity); coevolution scores will be noisy", path, w.Neff, w.L, w.Neff/float64(w.L), w.N)
}

// LowDepth returns a warning where Neff/L is below 1, nil otherwise.
func (a *Alignment) LowDepth(neff float64) *Warning {
	if neff >= float64(a.L()) {
		return nil
	}
	return &Warning{Path: a.Path, N: a.N(), L: a.L(), Neff: neff}
}

// withinMismatchesGo reports whether a and b (of one length) differ in at
// most maxMis places:
//
//	mis := 0
//	for i := range a {
//		if a[i] != b[i] {
//			mis++
//		}
//	}
//	return mis <= maxMis
//
// eight bytes at a time: in t = a ^ b, a byte is non-zero exactly when
// ((t & 0x7f) + 0x7f) | t has its top bit set, so the popcount of the
// top bits counts the differing bytes of the word. It stops as soon as
// the count passes maxMis, which most pairs of an alignment do within
// their first few words.
func withinMismatchesGo(a, b []byte, maxMis int) bool {
	const low7, high = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	b = b[:len(a)]
	mis := 0
	i := 0
	for ; i+8 <= len(a); i += 8 {
		t := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
		mis += bits.OnesCount64((((t & low7) + low7) | t) & high)
		if mis > maxMis {
			return false
		}
	}
	for ; i < len(a); i++ {
		if a[i] != b[i] {
			mis++
		}
	}
	return mis <= maxMis
}
