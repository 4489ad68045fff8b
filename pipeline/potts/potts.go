// Package potts fits a Potts model to a multiple sequence alignment by
// pseudo-likelihood maximisation (plmDCA; Ekeberg, Lövkvist, Lan, Weigt &
// Aurell, Phys. Rev. E 87:012707, 2013), as CCMpred (Seemayer, Gruber &
// Söding, Bioinformatics 30:3128, 2014) and GREMLIN (Balakrishnan,
// Kamisetty, Carbonell, Lee & Langmead, Proteins 79:1061, 2011) do, and
// scores residue pairs by the Frobenius norm of their couplings with the
// average product correction (APC; Dunn, Wahl & Gloor, Bioinformatics
// 24:333, 2008).
//
// The model. Each column i has q = 21 states: the 20 amino acids and the
// gap, in CCMpred's order msa.Alphabet ("ARNDCQEGHILKMFPSTWYV-"); the
// non-standard letters B, J, O, U, X and Z are given the gap state, as
// CCMpred's aatoi does. Parameters are fields h_i(a) and couplings
// J_ij(a,b) = J_ji(b,a), the gap a state like any other. The objective,
// minimised, is the symmetric (all columns) negative log pseudo-likelihood
// with L2 regularisation:
//
//	f = sum_n w_n sum_i [ log Z_i(n) - E_i(x_ni | n) ]
//	    + lambda_h sum_i,a h_i(a)^2 + lambda_J sum_i<j,a,b J_ij(a,b)^2,
//	E_i(a | n) = h_i(a) + sum_j!=i J_ij(a, x_nj),  Z_i(n) = sum_a exp E_i(a | n),
//
// with CCMpred's defaults lambda_h = 0.01 and lambda_J = 0.2 (L-1), and
// CCMpred's sequence weights w_n (msa.Weights: 1 over the number of
// sequences sharing more than ceil(0.8 L) states with sequence n, itself
// included). Identical sequences are merged, their weights summed, which
// leaves f unchanged. The objective is strictly convex: its minimum is
// unique, so any correct optimiser reaches the same couplings.
//
// The optimiser is L-BFGS (Store 5 pairs by default) with the analytic
// gradient and gonum/optimize's More-Thuente line search, the algorithm
// of gonum's optimize.LBFGS with its vector operations on all the
// goroutines (lbfgs.go). It stops at the first of (Options):
//   - MaxIterations major iterations (default 100);
//   - a relative decrease of f over the last K = 5 iterations below
//     Epsilon (default 0.01): (f_{k-5} - f_k) / |f_k| < 0.01 — CCMpred's
//     criterion with its K and its epsilon. On the validation families
//     of experiments/plmdca (eps-validation) it stopped after 2-3x fewer
//     evaluations than 1e-4 (the default before) at no lower long-range
//     precision: the tighter fit overfits the couplings a little, so the
//     early stop also regularises;
//   - the gradient's infinity norm below GradTol (default 1e-4 N_eff-free
//     absolute units of f).
//
// Memory. The couplings are held as float32 in a full L x L x 21 x 21
// array (L^2 * 441 * 4 bytes; Model.J), the optimiser's vectors as float64
// (5 + 2 Store vectors of the parameter count).
// EstimateMemory gives the peak from L, N and the options; Fit refuses up
// front, with a *MemoryError giving the estimate, where it exceeds
// Options.MemoryLimit (pass memavail.Available()).
//
// Work is split over Options.Threads goroutines by column; every sum has a
// fixed order, so the result does not depend on the number of threads.
//
// Subsampling. Options.MaxRows caps the distinct sequences fitted: past
// it, the fit uses the query and MaxRows-1 draws (with replacement, from
// a fixed seed, so a fit is reproducible) of the other distinct
// sequences, each with probability proportional to its weight in the
// whole alignment and each worth the same share of their total weight,
// so that the weights still sum to N_eff. The data term is then an
// unbiased estimate of the whole alignment's, at the same balance
// against the regularisation, with as many effective sequences as
// draws, and a fit costs time in proportion to MaxRows instead of the
// depth. Off by default. (A uniform sample, each row keeping its own
// weight, was tried first and lost precision on deep families: its
// rare high-weight rows make the estimate noisy; experiments/msa-search.)
//
// Redundancy. Options.MaxIdentity fits only the rows a greedy pass keeps
// (msa.NonRedundant: the query, then each row with no row kept before it
// the same in more than that fraction of the columns), as GREMLIN's and
// trRosetta's users run hhfilter -id 90 before the fit, with the weights
// of the rows kept. Off by default (experiments/msa-search measures it).
//
// Filters. Predict can first drop sequences covering less than
// Options.MinCoverage of the columns (hhfilter -cov, as CCMpred's users
// run it) and columns with more than Options.MaxGapColumn gaps (GREMLIN's
// 0.5); both are off by default (see experiments/plmdca for what they
// did on the PSICOV families).
package potts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/optimize"

	"github.com/contactmap/contactmap/pipeline/msa"
)

const (
	q  = msa.Q
	qq = q * q
)

// Options configure a fit. The zero value of a field means its default.
type Options struct {
	LambdaH       float64 // L2 weight on fields; default 0.01
	LambdaJFactor float64 // L2 weight on couplings is LambdaJFactor*(L-1); default 0.2
	Identity      float64 // sequence reweighting threshold; default 0.8
	MaxIterations int     // L-BFGS major iterations; default 100, negative: no limit
	Epsilon       float64 // relative decrease of f over K iterations to go on; default 0.01
	K             int     // default 5
	GradTol       float64 // gradient infinity norm to stop at; default 1e-4
	Store         int     // L-BFGS memory pairs; default 5
	Threads       int     // goroutines; default GOMAXPROCS
	// MemoryLimit, bytes: Fit refuses a problem whose EstimateMemory
	// exceeds it. 0: no check.
	MemoryLimit int64
	// MaxGapColumn: Predict fits only the columns whose fraction of gaps
	// (over the sequences kept) is at most this, as GREMLIN does (its
	// 0.5); the pairs of the other columns score below every fitted
	// pair. 0 or >= 1: every column.
	MaxGapColumn float64
	// MinCoverage: Predict drops the sequences (never the query) whose
	// fraction of non-gap columns is below this, as hhfilter -cov does
	// before CCMpred (-cov 75: 0.75). 0: every sequence.
	MinCoverage float64
	// MaxIdentity: where in (0, 1), fit only the rows that
	// msa.NonRedundant keeps at this identity (the query, then each row
	// not a neighbour of a row kept before it: the same state, gaps
	// included, in more than ceil(MaxIdentity*L) columns), as hhfilter
	// -id 90 does before GREMLIN's fit (0.9); the sequence weights are
	// those of the rows kept. 0: every row.
	MaxIdentity float64
	// MaxRows: fit at most this many distinct sequences, the query and
	// MaxRows-1 draws of the others in proportion to their weights, at the
	// same N_eff (see the package doc); at least 2 are fitted. 0: every
	// sequence.
	MaxRows int
}

func (o Options) withDefaults() Options {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.LambdaH, 0.01)
	def(&o.LambdaJFactor, 0.2)
	def(&o.Identity, msa.DefaultIdentity.Fraction)
	def(&o.Epsilon, DefaultEpsilon)
	def(&o.GradTol, 1e-4)
	if o.MaxIterations == 0 {
		o.MaxIterations = 100
	}
	if o.K == 0 {
		o.K = 5
	}
	if o.Store == 0 {
		o.Store = 5
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	return o
}

// DefaultEpsilon is Options.Epsilon's default, CCMpred's.
const DefaultEpsilon = 0.01

// NumParams is the number of free parameters for L columns: L*21 fields
// and L(L-1)/2 coupling blocks of 21 x 21.
func NumParams(l int) int64 { return int64(l)*q + int64(l)*int64(l-1)/2*qq }

// EstimateMemory returns the peak bytes of a fit of n sequences of l
// columns: the optimiser's float64 vectors (the point and its gradient,
// the line search's point and its gradient, the direction and 2*Store
// history vectors; 5 + 2*Store in all), the float32 couplings
// (l^2 * 504 * 4, rows of 21 states padded to 24 lanes) and the Model's
// copy of them (l^2 * 441 * 4), the gradient of every ordered pair of
// columns in float64 (l^2 * 504 * 8),
// the encoded alignment (twice: read and deduplicated), the weights
// (3 float64 a sequence), and for the sequences fitted (all n, or at most
// opt.MaxRows when it caps them): their rows, row offsets and sequences
// sorted by state, column by column (4 bytes a residue each), their
// states by column (1 byte), and each goroutine's energies of every
// fitted sequence (26 float64 a sequence).
func EstimateMemory(l, n int, opt Options) int64 {
	opt = opt.withDefaults()
	p := NumParams(l)
	vecs := int64(5 + 2*opt.Store)
	ll := int64(l) * int64(l)
	fitted := int64(n)
	if opt.MaxRows > 0 {
		fitted = min(fitted, int64(max(opt.MaxRows, 2)))
	}
	return vecs*p*8 + ll*(qp*4+qp*8+qq*4) + 2*int64(n)*int64(l) + 9*fitted*int64(l) + 3*int64(n)*8 + int64(opt.Threads)*fitted*(lanes+2)*8 + 16<<20
}

// ErrTooBig is wrapped by MemoryError.
var ErrTooBig = errors.New("potts: the fit does not fit in memory")

// MemoryError is Fit's refusal: the estimated peak exceeds the limit.
type MemoryError struct {
	L, N        int
	Need, Limit int64
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("potts: a pseudo-likelihood fit of %d sequences x %d columns needs about %d MiB (%d parameters), more than the %d MiB available; use a shorter region or fewer sequences", e.N, e.L, e.Need>>20, NumParams(e.L), e.Limit>>20)
}

func (e *MemoryError) Unwrap() error { return ErrTooBig }

// Model is a fitted Potts model.
type Model struct {
	L int
	// H[i*21+a] = h_i(a).
	H []float32
	// J[((i*L+j)*21+b)*21+a] = J_ij(a,b): for column i, the couplings to
	// state b at column j, contiguous over i's state a. Zero for i == j.
	// J_ij(a,b) == J_ji(b,a).
	J []float32

	N, Unique int     // sequences, distinct sequences
	Kept      int     // sequences kept by Options.MaxIdentity (N without it)
	Fitted    int     // distinct sequences fitted (of those kept, at most Options.MaxRows)
	Neff      float64 // sum of the sequence weights
	LambdaH   float64
	LambdaJ   float64

	F           float64 // objective at the end
	Iterations  int     // L-BFGS major iterations
	Evaluations int     // objective and gradient evaluations
	Status      string  // why the optimiser stopped
}

// Coupling returns J_ij(a,b).
func (m *Model) Coupling(i, j int, a, b int) float32 {
	return m.J[((i*m.L+j)*q+b)*q+a]
}

// problem is an encoded, deduplicated alignment with its weights.
type problem struct {
	l, n int
	x    []uint8 // n x l
	// offT[j*n+s] = j*qp + x[s*l+j]*lanes: the row of the state of
	// sequence s at column j, by column (the kernels' tiles).
	offT []int32
	xT   []uint8 // l x n: xT[j*n+s] = x[s*l+j]
	// cols[j] lists the sequences sorted stably by their state at
	// column j within each chunk of scatterChunk (scatterColumn's
	// layout); every column has the same chunks.
	cols    []column
	w       []float64
	lh, lj  float64
	threads int
	// jt holds the couplings as float32 in rows of 24 lanes (21 states,
	// 3 zeros): jt[(i*l+j)*qp+b*lanes+a] = J_ij(a, b).
	jt []float32
	// gt holds the gradient of every ordered pair in the same layout:
	// gt[(i*l+j)*qp+b*lanes+a] is the derivative through column i's
	// conditionals by J_ij(a, b); lanes 21-23 are scratch. 64-byte
	// aligned, so that no row's vector crosses a cache line.
	gt   []float64
	fcol []float64 // per column objective terms
	// ebuf[w] holds worker w's energies, then residuals, of every
	// sequence for the column at hand: n rows of 24 lanes; zbuf[w] their
	// normalisers and observed energies (softmaxColumn's zd).
	ebuf, zbuf [][]float64
	evals      int
}

func newProblem(a *msa.Alignment, opt Options) (*problem, *Model) {
	n, l := a.N(), a.L()
	x := a.Encode()
	all := n
	if opt.MaxIdentity > 0 && opt.MaxIdentity < 1 {
		keep := msa.NonRedundant(x, n, l, msa.Identity{Fraction: opt.MaxIdentity}, opt.Threads)
		for k, s := range keep {
			copy(x[k*l:(k+1)*l], x[s*l:(s+1)*l]) // s >= k: in place, in order
		}
		n, x = len(keep), x[:len(keep)*l]
	}
	w, neff := msa.Weights(x, n, l, msa.Identity{Fraction: opt.Identity}, opt.Threads)
	// Merge identical sequences, in order of first appearance.
	idx := map[string]int{}
	var ux []uint8
	var uw []float64
	for s := 0; s < n; s++ {
		row := x[s*l : (s+1)*l]
		k, ok := idx[string(row)]
		if !ok {
			k = len(uw)
			idx[string(row)] = k
			ux = append(ux, row...)
			uw = append(uw, 0)
		}
		uw[k] += w[s]
	}
	if k := max(opt.MaxRows, 2); opt.MaxRows > 0 && len(uw) > k {
		ux, uw = subsample(ux, uw, l, k)
	}
	nu := len(uw)
	offT := make([]int32, len(ux))
	xT := make([]uint8, len(ux))
	for k, b := range ux {
		s, j := k/l, k%l
		offT[j*nu+s] = int32(j*qp + int(b)*lanes)
		xT[j*nu+s] = b
	}
	perm := make([]int32, len(ux))
	cols := make([]column, l)
	for j := range cols {
		cols[j] = newColumn(func(s int) uint8 { return ux[s*l+j] }, nu, perm[j*nu:], scatterChunk)
	}
	p := &problem{
		l: l, n: nu, x: ux, offT: offT, xT: xT, cols: cols, w: uw,
		lh: opt.LambdaH, lj: opt.LambdaJFactor * float64(l-1),
		threads: opt.Threads,
		jt:      alignedFloat32(l * l * qp),
		fcol:    make([]float64, l),
	}
	return p, &Model{L: l, N: all, Kept: n, Unique: len(idx), Fitted: p.n, Neff: neff, LambdaH: p.lh, LambdaJ: p.lj}
}

// subsample returns the first of the distinct sequences x (l columns
// each, weights w) with its own weight, and the others drawn k-1 times
// with replacement, each draw with probability proportional to its
// weight and worth sum(others' w) / (k-1): an unbiased estimate of the
// weighted sum over the other sequences whose every draw carries the
// same weight, so the sample's effective size is its number of draws. A
// sequence drawn c times is fitted once with c draws' weight; at most k
// sequences are fitted, in their order in x.
func subsample(x []uint8, w []float64, l, k int) ([]uint8, []float64) {
	n := len(w)
	r := rand.New(rand.NewPCG(0x706c6d, uint64(n)))
	cum := make([]float64, n) // cum[s]: the weight of rows 1..s
	for s := 1; s < n; s++ {
		cum[s] = cum[s-1] + w[s]
	}
	rest := cum[n-1]
	draws := make([]int, n)
	for d := 0; d < k-1; d++ {
		u := r.Float64() * rest
		// The first row s >= 1 with cum[s] > u.
		s := 1 + sort.Search(n-1, func(t int) bool { return cum[1+t] > u })
		draws[min(s, n-1)]++ // (min: u at rest by rounding finds no row)
	}
	sx := append(make([]uint8, 0, k*l), x[:l]...)
	sw := append(make([]float64, 0, k), w[0])
	for s := 1; s < n; s++ {
		if draws[s] > 0 {
			sx = append(sx, x[s*l:(s+1)*l]...)
			sw = append(sw, float64(draws[s])*rest/float64(k-1))
		}
	}
	return sx, sw
}

// pairOffset is the offset of block (i, j), i < j, in the parameter
// vector: fields first, then the upper triangle row by row.
func (p *problem) pairOffset(i, j int) int {
	l := p.l
	return l*q + (i*(2*l-i-1)/2+(j-i-1))*qq
}

// parallel runs f(i) for i in [0, n) on p.threads goroutines, handing out
// indices dynamically.
func (p *problem) parallel(n int, f func(i int)) {
	p.parallelWorkers(n, func(_, i int) { f(i) })
}

// parallelWorkers is parallel that also passes f the number of the
// goroutine calling it, in [0, p.threads).
func (p *problem) parallelWorkers(n int, f func(w, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	t := min(p.threads, n)
	for k := 0; k < t; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(k, i)
			}
		}()
	}
	wg.Wait()
}

// unpack fills jt (float32, both orientations) from the parameter
// vector.
func (p *problem) unpack(x []float64) {
	l := p.l
	p.parallel(l, func(i int) {
		for j := 0; j < l; j++ {
			dst := p.jt[(i*l+j)*qp : (i*l+j+1)*qp]
			switch {
			case i == j:
				clear(dst)
			case i < j: // block (i,j)[a*q+b] = J_ij(a,b); dst[b*lanes+a]
				src := x[p.pairOffset(i, j):][:qq]
				for a := 0; a < q; a++ {
					for b := 0; b < q; b++ {
						dst[b*lanes+a] = float32(src[a*q+b])
					}
				}
			default: // block (j,i)[b*q+a] = J_ji(b,a) = J_ij(a,b); dst[b*lanes+a]
				src := x[p.pairOffset(j, i):][:qq]
				for b := 0; b < q; b++ {
					roundTo32(dst[b*lanes:b*lanes+q], src[b*q:b*q+q])
				}
			}
		}
	})
}

// roundTo32 sets dst to src rounded to float32.
func roundTo32(dst []float32, src []float64) {
	for k, v := range src {
		dst[k] = float32(v)
	}
}

// eval returns f(x) and, where g is not nil, writes the gradient.
//
// By column i (in parallel), three kernels over all the sequences s:
// gatherTile sums the energies E_i(a | s) over the column tiles;
// softmaxColumn turns them into the conditionals P_i(a | s), the terms
// of f and the residuals r(a) = w_s (P_i(a | s) - [a == x_si]), the
// derivatives by h_i(a); scatterColumn sums the residuals into the rows
// of the other columns' states, the derivatives by J_ij(a, x_sj). Then
// by pair (i < j): the derivative by J_ij(a, b) is the sum of the two
// conditionals' parts, gt_i(j, b, a) + gt_j(i, a, b). Every sum runs in
// a fixed order (an energy over the columns in order, a gradient row
// over the sequences in order), so f and the gradient depend neither on
// the threads nor on the kernel set or the tiles.
func (p *problem) eval(x, g []float64) float64 {
	p.evals++
	l, n := p.l, p.n
	p.unpack(x)
	// Every row of gt but the diagonal blocks' is set by scatterColumn,
	// and every element of g below, so neither is cleared first.
	if g != nil && p.gt == nil {
		p.gt = alignedFloat64(l * l * qp)
	}
	if len(p.ebuf) < p.threads {
		p.ebuf = make([][]float64, p.threads)
		p.zbuf = make([][]float64, p.threads)
	}
	p.parallelWorkers(l, func(w, i int) {
		if p.ebuf[w] == nil {
			p.ebuf[w] = alignedFloat64(n * lanes)
			p.zbuf[w] = make([]float64, 2*n)
		}
		eb, zd := p.ebuf[w], p.zbuf[w]
		var h [lanes]float64
		for a := 0; a < q; a++ {
			h[a] = float64(float32(x[i*q+a]))
		}
		for s := 0; s < n; s++ {
			*(*[lanes]float64)(eb[s*lanes:]) = h
		}
		jti := p.jt[i*l*qp : (i+1)*l*qp]
		for j0 := 0; j0 < l; j0 += gatherTileCols {
			gatherTile(eb, jti, p.offT[j0*n:], n, min(gatherTileCols, l-j0))
		}
		var gh [lanes]float64
		softmaxColumn(eb, p.xT[i*n:(i+1)*n], p.w, zd, &gh)
		fsum := 0.0
		for s, ws := range p.w {
			// -log P_i(x_si | s) = log Z - (E_i(x_si | s) - mx).
			fsum += ws * (math.Log(zd[2*s]) - zd[2*s+1])
		}
		p.fcol[i] = fsum
		if g == nil {
			return
		}
		copy(g[i*q:(i+1)*q], gh[:q])
		gti := p.gt[i*l*qp : (i+1)*l*qp]
		for c := range p.cols[0].chunks() { // a chunk's residuals stay in the L2 cache over the columns
			for j := 0; j < l; j++ {
				if j != i { // the diagonal block is no parameter
					scatterColumn(gti[j*qp:], &p.cols[j], c, eb)
				}
			}
		}
	})
	if g != nil {
		p.parallel(l, func(i int) {
			for j := i + 1; j < l; j++ {
				blk := g[p.pairOffset(i, j):][:qq]
				gij := p.gt[(i*l+j)*qp:][:qp] // J_ij(a, b) at b*lanes+a
				gji := p.gt[(j*l+i)*qp:][:qp] // J_ji(b, a) at a*lanes+b
				for a := 0; a < q; a++ {
					for b := 0; b < q; b++ {
						blk[a*q+b] = gij[b*lanes+a] + gji[a*lanes+b]
					}
				}
			}
		})
	}
	f := 0.0
	for _, v := range p.fcol {
		f += v
	}
	// Regularisation, on the float32 values as the data term, so that f
	// and its gradient are those of one point.
	nh := l * q
	reg := 0.0
	for k, v := range x[:nh] {
		v = float64(float32(v))
		reg += p.lh * v * v
		if g != nil {
			g[k] += 2 * p.lh * v
		}
	}
	regJ := 0.0
	for k, v := range x[nh:] {
		v = float64(float32(v))
		regJ += v * v
		if g != nil {
			g[nh+k] += 2 * p.lj * v
		}
	}
	return f + reg + p.lj*regJ
}

// initial returns the starting point: fields the centred logarithms of
// the weighted column frequencies with a pseudocount (10% of the weight,
// spread evenly over the states), couplings 0.
func (p *problem) initial() []float64 {
	l := p.l
	x := make([]float64, NumParams(l))
	tot := 0.0
	for _, w := range p.w {
		tot += w
	}
	const pc = 0.1
	for i := 0; i < l; i++ {
		var c [q]float64
		for s := 0; s < p.n; s++ {
			c[p.x[s*l+i]] += p.w[s]
		}
		mean := 0.0
		for a := range c {
			c[a] = math.Log((c[a] + pc*tot/q) / (tot * (1 + pc)))
			mean += c[a] / q
		}
		for a := range c {
			x[i*q+a] = c[a] - mean
		}
	}
	return x
}

// converger stops at the gradient threshold (the infinity norm of the
// gradient below gradTol) or at CCMpred's criterion: f decreased by less
// than eps*|f| over the last k iterations.
type converger struct {
	gradTol float64
	eps     float64
	k       int
	hist    []float64
}

// checkNorm is called at every major iteration, the starting point the
// first, with f and the infinity norm of the gradient.
func (c *converger) checkNorm(f, gnorm float64) optimize.Status {
	if math.IsInf(f, -1) {
		return optimize.FunctionNegativeInfinity
	}
	if gnorm < c.gradTol {
		return optimize.GradientThreshold
	}
	c.hist = append(c.hist, f)
	if n := len(c.hist); n > c.k {
		old := c.hist[n-1-c.k]
		if (old-f)/math.Abs(f) < c.eps {
			return optimize.FunctionConvergence
		}
	}
	return optimize.NotTerminated
}

// Fit fits the model to an alignment (at least 2 sequences, L >= 2).
func Fit(a *msa.Alignment, opt Options) (*Model, error) {
	return FitContext(context.Background(), a, opt)
}

// FitContext is Fit stopped by ctx: before each evaluation of the
// pseudo-likelihood (one pass over the alignment) it returns ctx's error
// if ctx is done, and no model.
func FitContext(ctx context.Context, a *msa.Alignment, opt Options) (*Model, error) {
	opt = opt.withDefaults()
	if a.N() < 2 || a.L() < 2 {
		return nil, fmt.Errorf("potts: need at least 2 sequences and 2 columns, have %d x %d", a.N(), a.L())
	}
	if opt.MemoryLimit > 0 {
		if need := EstimateMemory(a.L(), a.N(), opt); need > opt.MemoryLimit {
			return nil, &MemoryError{L: a.L(), N: a.N(), Need: need, Limit: opt.MemoryLimit}
		}
	}
	p, m := newProblem(a, opt)
	res := p.minimize(ctx, p.initial(), opt)
	err := res.Err
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil, fmt.Errorf("potts: the fit of %d sequences x %d columns stopped after %d evaluations: %w", a.N(), a.L(), p.evals, err)
	}
	// A line search that cannot improve further (the couplings are
	// float32) ends the fit at the best point found: not a failure.
	p.gt, p.ebuf, p.zbuf = nil, nil, nil
	m.F = res.F
	m.Iterations = res.Iterations
	m.Evaluations = p.evals
	m.Status = res.Status.String()
	switch {
	case errors.Is(err, optimize.ErrLinesearcherFailure):
		m.Status = "no further decrease at float32 precision (line search)"
	case err != nil:
		m.Status += " (" + err.Error() + ")"
	}
	x := res.X
	l := p.l
	m.H = make([]float32, l*q)
	for k := range m.H {
		m.H[k] = float32(x[k])
	}
	p.unpack(x)
	m.J = make([]float32, l*l*qq)
	for k := 0; k < l*l*q; k++ { // row (i, j, b)
		for a, v := range p.jt[k*lanes : k*lanes+q] {
			m.J[k*q+a] = float32(v)
		}
	}
	return m, nil
}

// FrobeniusScores returns the L x L matrix of the Frobenius norms of the
// coupling blocks over the 20 amino acids (the gap state left out), zero
// on the diagonal, before APC.
func (m *Model) FrobeniusScores() []float64 {
	l := m.L
	s := make([]float64, l*l)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			blk := m.J[(i*l+j)*qq : (i*l+j+1)*qq]
			sum := 0.0
			for b := 0; b < msa.Gap; b++ {
				for a := 0; a < msa.Gap; a++ {
					v := float64(blk[b*q+a])
					sum += v * v
				}
			}
			s[i*l+j] = math.Sqrt(sum)
			s[j*l+i] = s[i*l+j]
		}
	}
	return s
}

// Scores returns the APC-corrected Frobenius scores, L x L row-major,
// symmetric, zero on the diagonal: higher is a more likely contact.
func (m *Model) Scores() []float64 {
	s := m.FrobeniusScores()
	APC(s, m.L)
	return s
}

// APC replaces s (l x l, symmetric, diagonal ignored) by
// s_ij - s_i. s_.j / s_.. with the means over off-diagonal entries, and
// zeroes the diagonal (Dunn et al. 2008).
func APC(s []float64, l int) {
	if l < 3 {
		clear(s)
		return
	}
	row := make([]float64, l)
	all := 0.0
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			if i != j {
				row[i] += s[i*l+j]
			}
		}
		all += row[i]
		row[i] /= float64(l - 1)
	}
	all /= float64(l * (l - 1))
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			switch {
			case i == j:
				s[i*l+j] = 0
			case all != 0:
				s[i*l+j] -= row[i] * row[j] / all
			}
		}
	}
}

// Result is what Predict returns.
type Result struct {
	Model *Model // over Columns
	// Scores are APC-corrected, L x L over all the alignment's columns;
	// pairs with a column left out of the fit score below every fitted
	// pair.
	Scores  []float64
	Columns []int        // the columns fitted (MaxGapColumn), increasing
	Kept    int          // the sequences Filter keeps (MinCoverage); of those, Model.Kept pass MaxIdentity
	Warn    *msa.Warning // Neff/L below 1, else nil
}

// Filter returns the alignment Predict fits under opt's MinCoverage and
// MaxGapColumn: the sequences kept (the query always), then the columns
// kept, as indices into a's columns. It returns a itself when nothing is
// dropped.
func Filter(a *msa.Alignment, opt Options) (*msa.Alignment, []int) {
	l := a.L()
	rows := a.Rows
	if opt.MinCoverage > 0 {
		rows = nil
		for k, r := range a.Rows {
			res := 0
			for _, c := range r {
				if c != '-' && c != '.' {
					res++
				}
			}
			if k == 0 || float64(res) >= opt.MinCoverage*float64(l) {
				rows = append(rows, r)
			}
		}
	}
	cols := make([]int, 0, l)
	for i := 0; i < l; i++ {
		gaps := 0
		for _, r := range rows {
			if r[i] == '-' || r[i] == '.' {
				gaps++
			}
		}
		if opt.MaxGapColumn <= 0 || opt.MaxGapColumn >= 1 || float64(gaps) <= opt.MaxGapColumn*float64(len(rows)) {
			cols = append(cols, i)
		}
	}
	if len(rows) == len(a.Rows) && len(cols) == l {
		return a, cols
	}
	b := &msa.Alignment{Path: a.Path, Format: a.Format, Rows: make([][]byte, len(rows))}
	for k, r := range rows {
		s := make([]byte, len(cols))
		for j, i := range cols {
			s[j] = r[i]
		}
		b.Rows[k] = s
	}
	return b, cols
}

// Predict fits the model to the alignment (after Filter) and scores the
// pairs of all its columns.
func Predict(a *msa.Alignment, opt Options) (*Result, error) {
	return PredictContext(context.Background(), a, opt)
}

// PredictContext is Predict with the fit stopped by ctx (FitContext).
func PredictContext(ctx context.Context, a *msa.Alignment, opt Options) (*Result, error) {
	f, cols := Filter(a, opt)
	if len(cols) < 2 {
		return nil, fmt.Errorf("potts: %d of %d columns have at most %.0f%% gaps: nothing to fit", len(cols), a.L(), 100*opt.MaxGapColumn)
	}
	m, err := FitContext(ctx, f, opt)
	if err != nil {
		return nil, err
	}
	s := m.Scores()
	l, lf := a.L(), f.L()
	if lf < l {
		lo := math.Inf(1)
		for i := 0; i < lf; i++ {
			for j := i + 1; j < lf; j++ {
				lo = min(lo, s[i*lf+j])
			}
		}
		full := make([]float64, l*l)
		for k := range full {
			if k/l != k%l {
				full[k] = lo - 1
			}
		}
		for i, ci := range cols {
			for j, cj := range cols {
				full[ci*l+cj] = s[i*lf+j]
			}
		}
		s = full
	}
	// Neff/L over the columns fitted.
	return &Result{Model: m, Scores: s, Columns: cols, Kept: f.N(), Warn: f.LowDepth(m.Neff)}, nil
}
