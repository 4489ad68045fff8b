package fold

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/contactmap/contactmap/rna"
)

// ErrOverflow is wrapped by the error of Partition when the scaled
// Boltzmann weights leave the range of float64 (see Partition).
var ErrOverflow = errors.New("fold: partition function out of floating-point range")

// Partition computes the equilibrium ensemble of seq with the default
// parameters (Turner 2004, RNAfold's defaults) on all available cores;
// see Params.Partition.
func Partition(seq string) (*Ensemble, error) {
	return DefaultParams().Partition(seq, 0)
}

// Partition computes the equilibrium ensemble of the secondary structures
// of seq as RNAfold -p does with the same options (p's temperature,
// dangles -d2 or -d0, --noLP, --maxBPspan): McCaskill's partition
// function over the loop decomposition of MFE (hairpins, stacks, bulges
// and interior loops of at most MaxLoop unpaired bases, multiloops and the
// exterior loop with the dangles of the model), the ensemble free energy
// and the base-pair probabilities by the outside (inside-outside)
// algorithm. It first folds seq into its MFE structure (Fold), whose
// energy sets the scale of the weights and which the Ensemble keeps.
//
// The Boltzmann factors are those of RNAfold -p: rescaled to the
// temperature without truncation to integers, with the dangles and the
// exterior and multiloop mismatches smoothed near 0 (ViennaRNA's
// default pf_smooth), so that at 37 C they equal exp(-E/kT) of the
// energies of Eval except for those few parameters. With --noLP (as
// RNAfold -p --noLP) a pair is excluded when neither of its neighbouring
// pairs (i-1, j+1), (i+1, j-1) can form; unlike the MFE, the ensemble may
// still hold lonely pairs.
//
// Scaling (ViennaRNA's pf_scale): the weight of every subsequence of k
// bases is divided by s^k, with s = exp(-1.07 MFE/(n kT)) (at least 1), so
// that the scaled weights stay near 1; float64 then holds sequences of
// several thousand bases (tested to 3,000 nt). Should the weights still
// leave the float64 range (an ensemble very far from its MFE estimate),
// the error wraps ErrOverflow.
//
// Time is O(n^3) (interior loops O(n^2 MaxLoop^2)), memory O(n^2)
// (PartitionBytes); with a span limit W < n (WithMaxSpan, as RNAfold
// --maxBPspan -p: the ensemble of the structures whose pairs all have
// j - i + 1 <= W), time O(n W^2) and memory O(n W): the tables, the
// probabilities of the Ensemble included, hold the band j - i < W only
// (0.7 GB at n = 50,000, W = 200). The cells of one span are computed on threads
// goroutines (0: runtime.GOMAXPROCS(0)), and the result does not depend
// on their number. The sequence is normalised as rna.NormalizeSequence
// does; N pairs with nothing.
func (p *Params) Partition(seq string, threads int) (*Ensemble, error) {
	return p.partition(context.Background(), seq, threads, pfOptions{})
}

// PartitionContext is Partition stopped by ctx: it looks at ctx between
// the spans of each dynamic programme and returns ctx.Err() once it is
// done.
func (p *Params) PartitionContext(ctx context.Context, seq string, threads int) (*Ensemble, error) {
	return p.partition(ctx, seq, threads, pfOptions{})
}

// PairBonus is a bonus of base pairs in units of kT: the Boltzmann
// weight of a structure is multiplied by exp(PairBonus(i, j)) for each of
// its pairs (i, j), 0-based, i < j. It is a pseudo-energy of
// -kT PairBonus(i, j) per pair, as ViennaRNA's soft constraints of base
// pairs (vrna_sc_add_bp) give, and the way a learned pair score enters a
// thermodynamic model (MXfold2's hybrid of Turner energies and network
// scores).
type PairBonus func(i, j int) float64

// PartitionBonus is PartitionContext with the bonus of every pair that
// may form: the ensemble of the structures weighted by exp(-E/kT) times
// exp(bonus(i, j)) for each pair. Its pair probabilities are then the
// derivatives of ln Z with respect to the bonuses, the gradient of a
// conditional likelihood with the bonuses as parameters. A nil bonus is
// PartitionContext. Of the Ensemble, FreeEnergy is -kT ln Z with the
// bonuses; MFE and MFEEnergy are the Turner 2004 structure and energy
// without them, so that MFEFrequency and StructureProbability, which
// compare the two, do not apply. A bonus must be finite and at most
// MaxPairBonus in magnitude; NaN or more is an error.
func (p *Params) PartitionBonus(ctx context.Context, seq string, bonus PairBonus, threads int) (*Ensemble, error) {
	return p.partition(ctx, seq, threads, pfOptions{bonus: bonus})
}

// MaxPairBonus bounds the magnitude of a PairBonus (in kT). The scale of
// the weights (see Partition) counts the bonuses of the MFE structure's
// pairs, and is searched (at most maxRescales more inside passes) while
// the weights overflow or underflow; a bonus of MaxPairBonus on every
// pair of 600 nt stays in float64's range, one on every pair of 1,500 nt
// does not (an error wrapping ErrOverflow).
const MaxPairBonus = 20

// maxRescales bounds the inside passes PartitionBonus repeats to find a
// scale in range.
const maxRescales = 40

// pfOptions are the variants of partition: the Boltzmann factors of the
// MFE energies when mfeLike (see boltz), the scale s multiplied by
// scaleFactor (0: 1), square tables even with a span limit when square,
// and the pair bonus (nil: none).
type pfOptions struct {
	mfeLike     bool
	scaleFactor float64
	square      bool
	bonus       PairBonus
}

// PartitionBytes returns the memory Partition allocates for a sequence
// of n bases: four float64 tables and one byte table of (n+2)^2 cells
// (133 MB at n = 2,000, 298 MB at 3,000), and before them the MFE fold's
// (FoldBytes), which the garbage collector may not have reclaimed yet.
// The Ensemble keeps one of the float64 tables, 8 (n+2)^2 bytes. With a
// span limit W < n: eight float64 tables and two byte tables of
// (n+2) W cells (660 MB at n = 50,000, W = 200), the Ensemble keeping one
// float64 table.
func (p *Params) PartitionBytes(n int) int64 {
	w := int64(n + 2)
	if st := int64(p.stride(n)); st < w {
		return 66*w*st + 128*w + 1<<19
	}
	return 33*w*w + 128*w + 1<<19
}

// partition is PartitionContext with the variants of o.
func (p *Params) partition(ctx context.Context, seq string, threads int, o pfOptions) (*Ensemble, error) {
	s, norm, err := encode(seq)
	if err != nil {
		return nil, err
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	mfe, emfe, err := p.fold(ctx, norm, threads, o.square)
	if err != nil {
		return nil, err
	}
	n := len(norm)
	b := newBoltz(p, o.mfeLike)
	// ViennaRNA's vrna_exp_params_rescale with the MFE; with a bonus, the
	// MFE structure's energy with the bonus of its pairs
	estimate := emfe * 1000 // cal/mol
	if o.bonus != nil {
		for _, q := range mfe.Pairs() {
			estimate -= o.bonus(q[0], q[1]) * b.kT
		}
	}
	scale := 1.0
	if n > 0 {
		scale = math.Exp(-(sfact * estimate / float64(n)) / b.kT)
	}
	scale = max(scale, 1)
	if o.scaleFactor > 0 {
		scale *= o.scaleFactor
	}
	var bonus []float64
	maxBonus := 0.0 // the largest bonus of a pair that may form
	if o.bonus != nil {
		if bonus, maxBonus, err = bonusTable(p, s, n, o.square, o.bonus); err != nil {
			return nil, err
		}
	}
	// With a bonus, the MFE structure's estimate may fall short of the
	// ensemble (or overshoot it): the log of the scale per base is then
	// moved up while the weights overflow (by half the largest bonus at
	// first, the step doubling), down while they underflow, and bisected
	// once both are known.
	var m *pf
	ls := math.Log(scale)
	over, under := math.Inf(-1), math.Inf(1) // log-scales known to overflow, to underflow
	step := max(maxBonus/2, 1)
	for attempt := 0; ; attempt++ {
		m = newPF(p, b, s, norm, math.Exp(ls), o.square)
		m.bonus = bonus
		if err := m.inside(ctx, threads); err != nil {
			return nil, err
		}
		z := m.z5[n]
		if z > 0 && !math.IsInf(z, 0) {
			break
		}
		if bonus == nil || attempt == maxRescales {
			return nil, fmt.Errorf("%w: scaled Z = %g for %d nt", ErrOverflow, z, n)
		}
		if z == 0 {
			under = ls
		} else {
			over = ls // infinite, or NaN from an infinite weight
		}
		switch {
		case !math.IsInf(over, 0) && !math.IsInf(under, 0):
			ls = (over + under) / 2
		case math.IsInf(under, 1):
			ls = over + step
			step *= 2
		default:
			ls = under - step
			step *= 2
		}
	}
	scale = math.Exp(ls)
	z := m.z5[n]
	if err := m.outside(ctx, threads); err != nil {
		return nil, err
	}
	if err := m.probabilities(); err != nil {
		return nil, err
	}
	kT := b.kT / 1000
	return &Ensemble{
		Seq:         norm,
		FreeEnergy:  (-math.Log(z) - float64(n)*math.Log(scale)) * kT,
		MFE:         mfe,
		MFEEnergy:   emfe,
		Temperature: p.temperature,
		kT:          kT,
		n:           n,
		s1:          m.s1,
		dmax:        m.dmax,
		prob:        m.qb,
	}, nil
}

// pf holds the tables of the partition function, 1-based, each of a cell
// (i, j), i < j, at up(i, j) and of its transposed twin at dn(i, j) (see
// matrices for the layout: with square tables the twins are in the same
// table, below the diagonal; with a span limit, in a table of their own,
// the T tables):
//
//	qb:  QB(i,j), the weight of [i, j] closed by the pair (i, j); twin
//	     (qbo): QBo(i,j), the outside weight of the pair, then the probabilities
//	qm:  QM(i,j), [i, j] as a part of a multiloop with at least one stem;
//	     twin: the same values transposed
//	qm1: QM1(i,j), [i, j] in a multiloop with exactly one stem, which
//	     starts at i; twin: transposed
//	r:   R(i,j) (outside): the outside weight of [i, j] as the 5' part
//	     QM of a multiloop split (QMo(i,j) + the closing pair (i-1, j+1));
//	     twin: transposed
//
// All weights of a subsequence of k bases are divided by scale^k.
type pf struct {
	b      *boltz
	s      []int8
	seq    string
	n, w   int
	s1     int    // stride - 1
	dmax   int    // the largest span j - i of a cell
	ptype  []int8 // pair type of (i, j) where it may form; ptT: twin
	ptT    []int8
	qb, qm []float64
	qm1, r []float64
	qbo    []float64 // twins: qb's, qm's, qm1's, r's (the same tables when square)
	qmT    []float64
	qm1T   []float64
	rT     []float64
	// bonus is exp(PairBonus) of the pair (i, j) at up(i, j), nil without
	// a bonus: it multiplies QB(i, j), and QBo(i, j) is stored times it,
	// the factor every structure enclosed by the pair carries
	bonus  []float64
	sc     []float64 // sc[k] = scale^-k
	b1     float64   // expMLbase / scale: an unpaired base of a multiloop
	z5, z3 []float64 // exterior loop: prefix [1, j] and suffix [i, n]
	// gen[u1][u2] is the length and asymmetry factor of a generic interior
	// loop of u1 and u2 unpaired bases, with the scale of its u1+u2+2 bases
	gen [MaxLoop + 1][MaxLoop + 1]float64
}

func newPF(p *Params, b *boltz, s []int8, seq string, scale float64, square bool) *pf {
	n := len(seq)
	w := n + 2
	st := p.stride(n)
	if square {
		st = w
	}
	size := w * st
	m := &pf{b: b, s: s, seq: seq, n: n, w: w, s1: st - 1, dmax: min(n-1, st-1),
		ptype: make([]int8, size),
		qb:    make([]float64, size), qm: make([]float64, size),
		qm1: make([]float64, size), r: make([]float64, size),
		sc: make([]float64, max(w, MaxLoop+2)+1),
		z5: make([]float64, w), z3: make([]float64, w+1)}
	if st == w {
		m.ptT, m.qbo, m.qmT, m.qm1T, m.rT = m.ptype, m.qb, m.qm, m.qm1, m.r
	} else {
		m.ptT = make([]int8, size)
		m.qbo, m.qmT = make([]float64, size), make([]float64, size)
		m.qm1T, m.rT = make([]float64, size), make([]float64, size)
	}
	s1 := m.s1
	for k := range m.sc {
		m.sc[k] = math.Pow(scale, -float64(k))
	}
	m.b1 = b.mlBase * m.sc[1]
	for u1 := 0; u1 <= MaxLoop; u1++ {
		for u2 := 0; u1+u2 <= MaxLoop; u2++ {
			m.gen[u1][u2] = b.internal[u1+u2] * b.ninio[max(u1-u2, u2-u1)] * m.sc[u1+u2+2]
		}
	}
	// the pairs that may form, as ViennaRNA's hard constraints
	for i := 1; i <= n; i++ {
		for j := i + minHairpin + 1; j <= min(n, i+m.dmax); j++ {
			t := pairType[s[i]][s[j]]
			if t == 0 || p.maxSpan > 0 && j-i+1 > p.maxSpan || p.noLP && !canStack(p, s, n, i, j) {
				continue
			}
			m.ptype[i*s1+j], m.ptT[(j+1)*s1+i] = int8(t), int8(t)
		}
	}
	return m
}

// bonusTable returns exp(bonus(i, j)) of the pairs that may form in the
// layout of the pf tables of s under p (at i*s1 + j, 1-based; square as
// newPF's), and the largest bonus, at least 0.
func bonusTable(p *Params, s []int8, n int, square bool, bonus PairBonus) ([]float64, float64, error) {
	st := p.stride(n)
	if square {
		st = n + 2
	}
	s1, dmax := st-1, min(n-1, st-1)
	t := make([]float64, (n+2)*st)
	top := 0.0
	for i := 1; i <= n; i++ {
		for j := i + minHairpin + 1; j <= min(n, i+dmax); j++ {
			if pairType[s[i]][s[j]] == 0 {
				continue
			}
			v := bonus(i-1, j-1)
			if !(math.Abs(v) <= MaxPairBonus) {
				return nil, 0, fmt.Errorf("fold: pair bonus of (%d, %d) is %g (want at most %d in magnitude)", i-1, j-1, v, MaxPairBonus)
			}
			t[i*s1+j] = math.Exp(v)
			top = max(top, v)
		}
	}
	return t, top, nil
}

// canStack reports whether (i, j) may pair under --noLP: (i-1, j+1) or
// (i+1, j-1) can pair, as ViennaRNA's hard constraints.
func canStack(p *Params, s []int8, n, i, j int) bool {
	if i > 1 && j < n && (p.maxSpan == 0 || j-i+3 <= p.maxSpan) && pairType[s[i-1]][s[j+1]] != 0 {
		return true
	}
	return i+2 < j && j-i-2 > minHairpin && pairType[s[i+1]][s[j-1]] != 0
}

// extAt is the Boltzmann factor of the exterior-loop stem (i, j).
func (m *pf) extAt(i, j int) float64 {
	n5, n3 := int8(-1), int8(-1)
	if i > 1 {
		n5 = m.s[i-1]
	}
	if j < m.n {
		n3 = m.s[j+1]
	}
	return m.b.extStem(int(m.ptype[i*m.s1+j]), n5, n3)
}

// mlStemAt is the Boltzmann factor of the multiloop branch (i, j).
func (m *pf) mlStemAt(i, j int) float64 {
	return m.b.mlStem(int(m.ptype[i*m.s1+j]), m.s[i-1], m.s[j+1])
}

// mlCloseAt is the Boltzmann factor of the pair (i, j) closing a
// multiloop, with the scale of its two bases.
func (m *pf) mlCloseAt(i, j int) float64 {
	return m.b.mlClosing * m.b.mlStem(rtype[m.ptype[i*m.s1+j]], m.s[j-1], m.s[i+1]) * m.sc[2]
}

// minParallelWork is the least work (cells times span plus 500) of a span
// worth spreading over goroutines (tests lower it).
var minParallelWork = 200000

// diagonals calls cell(i, i+d) for every cell of every span d from lo
// to hi in order (increasing, or decreasing when down), the cells of one
// span on up to workers goroutines, and after each span done(d). It
// returns ctx.Err() as soon as it sees ctx done, before a span.
func diagonals(ctx context.Context, n, lo, hi, workers int, down bool, cell func(i, j int), done func(d int)) error {
	run := func(d int) {
		cells := n - d
		k := workers
		if work := cells * (d + 500); work < minParallelWork || k < 2 {
			k = 1
		}
		k = min(k, cells)
		if k <= 1 {
			for i := 1; i+d <= n; i++ {
				cell(i, i+d)
			}
		} else {
			var wg sync.WaitGroup
			for t := 0; t < k; t++ {
				a, b := 1+cells*t/k, 1+cells*(t+1)/k
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := a; i < b; i++ {
						cell(i, i+d)
					}
				}()
			}
			wg.Wait()
		}
		done(d)
	}
	if down {
		for d := hi; d >= lo; d-- {
			if err := ctx.Err(); err != nil {
				return err
			}
			run(d)
		}
	} else {
		for d := lo; d <= hi; d++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			run(d)
		}
	}
	return ctx.Err()
}

// inside fills qb, qm1, qm by increasing span, then the exterior loop.
func (m *pf) inside(ctx context.Context, workers int) error {
	n, w, s1 := m.n, m.w, m.s1
	// qmp[d%3][i] = sum over u of QM(i, u-1) QM1(u, j), j = i+d: the
	// split part of QM(i, j), which QB(i-1, j+1) needs
	var qmp [3][]float64
	for k := range qmp {
		qmp[k] = make([]float64, w)
	}
	// unp[d%2][i] = sum over u of expMLbase^(u-i) QM1(u, j), j = i+d: the
	// part of QM(i, j) with an unpaired 5' end
	var unp [2][]float64
	for k := range unp {
		unp[k] = make([]float64, w+1)
	}
	err := diagonals(ctx, n, minHairpin+1, m.dmax, workers, false, func(i, j int) {
		d := j - i
		m.insideCell(i, j, qmp[(d+1)%3], qmp[d%3], unp[(d+1)%2], unp[d%2])
	}, func(int) {})
	if err != nil {
		return err
	}
	// exterior loop
	z5, z3 := m.z5, m.z3
	z5[0] = 1
	for j := 1; j <= n; j++ {
		q := z5[j-1] * m.sc[1]
		for k := j - minHairpin - 1; k >= max(1, j-m.dmax); k-- {
			if v := m.qb[k*s1+j]; v != 0 {
				q += z5[k-1] * v * m.extAt(k, j)
			}
		}
		z5[j] = q
	}
	z3[n+1] = 1
	for i := n; i >= 1; i-- {
		q := z3[i+1] * m.sc[1]
		row := m.qb[i*s1:] // QB(i, l) at l
		for l := i + minHairpin + 1; l <= min(n, i+m.dmax); l++ {
			if v := row[l]; v != 0 {
				q += v * m.extAt(i, l) * z3[l+1]
			}
		}
		z3[i] = q
	}
	return nil
}

// insideCell computes QB, QM1 and QM at (i, j); qmp2 holds the split
// parts of QM of span j-i-2, qmpOut receives that of (i, j); unp1 holds
// the unpaired-5'-end parts of QM of span j-i-1, unpOut receives that of
// (i, j).
func (m *pf) insideCell(i, j int, qmp2, qmpOut, unp1, unpOut []float64) {
	b, s, s1 := m.b, m.s, m.s1
	qb := m.qb
	d := j - i
	var qbv float64
	if typ := int(m.ptype[i*s1+j]); typ != 0 {
		qbv = b.hairpinAt(s, m.seq, i, j) * m.sc[d+1]
		// stacks, bulges, interior loops; the generic interior loop
		// (both sides at least 2, at least 6 unpaired) inline
		si1, sj1 := s[i+1], s[j-1]
		mmI := &b.mismatchI
		mmij := mmI[typ][si1][sj1]
		kmax := min(i+MaxLoop+1, j-minHairpin-2)
		for k := i + 1; k <= kmax; k++ {
			u1 := k - i - 1
			lmin := max(k+minHairpin+1, j-1-(MaxLoop-u1))
			row := qb[k*s1:] // QB(k, l) at l
			sk, sp1 := s[k], s[k-1]
			gen := &m.gen[u1]
			for l := j - 1; l >= lmin; l-- {
				v := row[l]
				if v == 0 {
					continue
				}
				t2 := pairType[s[l]][sk]
				u2 := j - l - 1
				if u1 >= 2 && u2 >= 2 && u1+u2 >= 6 {
					qbv += v * gen[u2] * mmij * mmI[t2][s[l+1]][sp1]
				} else {
					qbv += v * b.interior(u1, u2, typ, t2, si1, sj1, sp1, s[l+1]) * m.sc[u1+u2+2]
				}
			}
		}
		// multiloops: sum over u of QM(i+1, u-1) QM1(u, j-1)
		if v := qmp2[i+1]; v != 0 {
			qbv += v * m.mlCloseAt(i, j)
		}
		if m.bonus != nil {
			qbv *= m.bonus[i*s1+j]
		}
	}
	qb[i*s1+j] = qbv
	// QM1(i, j) = QM1(i, j-1) expMLbase + QB(i, j) mlstem
	q1 := m.qm1[i*s1+j-1] * m.b1
	if qbv != 0 {
		q1 += qbv * m.mlStemAt(i, j)
	}
	m.qm1[i*s1+j], m.qm1T[(j+1)*s1+i] = q1, q1
	// QM(i, j) = sum over u of (expMLbase^(u-i) + QM(i, u-1)) QM1(u, j);
	// the first part is QM1(i, j) + expMLbase (the same for (i+1, j))
	var prod float64
	if lo, hi := i+minHairpin+2, j-minHairpin-1; lo <= hi {
		col := m.qm1T[(j+1)*s1:] // QM1(u, j) at u
		prod = dot(m.qm[i*s1+lo-1:i*s1+hi], col[lo:hi+1])
	}
	qmpOut[i] = prod
	u := q1 + m.b1*unp1[i+1]
	unpOut[i] = u
	qm := prod + u
	m.qm[i*s1+j], m.qmT[(j+1)*s1+i] = qm, qm
}

// dot returns the sum of a[k] b[k] (b at least as long as a).
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(a); k += 4 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
		s2 += a[k+2] * b[k+2]
		s3 += a[k+3] * b[k+3]
	}
	for ; k < len(a); k++ {
		s0 += a[k] * b[k]
	}
	return (s0 + s1) + (s2 + s3)
}

// outside fills QBo (below the diagonal of qb) and R by decreasing span.
// For a cell (i, j):
//
//	QMo(i,j)  = sum over m > j of R(i,m) QM1(j+1,m)
//	B(i,j)    = QMo(i,j) + expMLbase B(i-1,j)         (unpaired 5' part)
//	R(i,j)    = QMo(i,j) + QBo(i-1,j+1) closing(i-1,j+1)
//	QM1o(i,j) = sum over a < i of R(a,j) QM(a,i-1) + B(i,j)
//	A(i,j)    = QM1o(i,j) + expMLbase A(i,j+1)        (unpaired 3' part)
//	QBo(i,j)  = Z5(i-1) ext(i,j) Z3(j+1) + A(i,j) mlstem(i,j)
//	            + sum over enclosing (p,q) of QBo(p,q) interior(p,q,i,j)
//
// A and B need only the previous span.
func (m *pf) outside(ctx context.Context, workers int) error {
	n, w := m.n, m.w
	aPrev, aCur := make([]float64, w+1), make([]float64, w+1)
	bPrev, bCur := make([]float64, w+1), make([]float64, w+1)
	// A, B, R and QBo vanish at spans beyond the band (no pair encloses
	// them): the first span computed, dmax, starts from zeros.
	return diagonals(ctx, n, minHairpin+1, m.dmax, workers, true, func(i, j int) {
		m.outsideCell(i, j, aPrev, bPrev, aCur, bCur)
	}, func(int) {
		aPrev, aCur = aCur, aPrev
		bPrev, bCur = bCur, bPrev
	})
}

// outsideCell computes R and QBo at (i, j) (see outside); aPrev and bPrev
// hold A and B of the previous (larger) span, aCur and bCur receive
// those of (i, j), all indexed by i.
func (m *pf) outsideCell(i, j int, aPrev, bPrev, aCur, bCur []float64) {
	n, b, s, s1 := m.n, m.b, m.s, m.s1
	qbo, r := m.qbo, m.r
	var qmo float64
	if i > 1 && j < n {
		// R(i, x) QM1(j+1, x) for x in [j+5, n-1] within the band
		if lo, hi := j+minHairpin+2, min(n-1, i+m.dmax); lo <= hi {
			qmo = dot(r[i*s1+lo:i*s1+hi+1], m.qm1[(j+1)*s1+lo:(j+1)*s1+hi+1])
		}
	}
	bv := qmo + m.b1*bPrev[i-1]
	bCur[i] = bv
	rv := qmo
	if i > 1 && j < n && j-i+2 <= m.dmax && m.ptype[(i-1)*s1+j+1] != 0 {
		rv += qbo[(j+2)*s1+i-1] * m.mlCloseAt(i-1, j+1)
	}
	r[i*s1+j], m.rT[(j+1)*s1+i] = rv, rv
	qm1o := bv
	if lo, hi := max(2, j-m.dmax), i-minHairpin-2; lo <= hi {
		// R(a, j) QM(a, i-1) for a in [2, i-5] within the band
		qm1o += dot(m.rT[(j+1)*s1+lo:(j+1)*s1+hi+1], m.qmT[i*s1+lo:i*s1+hi+1])
	}
	av := qm1o + m.b1*aPrev[i]
	aCur[i] = av
	typ := int(m.ptype[i*s1+j])
	if typ == 0 {
		qbo[(j+1)*s1+i] = 0
		return
	}
	v := m.z5[i-1] * m.extAt(i, j) * m.z3[j+1]
	if av != 0 {
		v += av * m.mlStemAt(i, j)
	}
	// enclosing pairs (p, q), p < i, q > j, of interior loops
	t2 := rtype[typ]
	sp1, sq1 := s[i-1], s[j+1]
	mmI := &b.mismatchI
	mmIn := mmI[t2][sq1][sp1]
	for q := j + 1; q <= min(n, j+MaxLoop+1); q++ {
		u2 := q - j - 1
		pmin := max(1, i-1-(MaxLoop-u2), q-m.dmax)
		rowT := qbo[(q+1)*s1:]  // QBo(p, q) at p
		ptT := m.ptT[(q+1)*s1:] // type of (p, q) at p
		sj1 := s[q-1]
		for p := i - 1; p >= pmin; p-- {
			to := int(ptT[p])
			if to == 0 {
				continue
			}
			o := rowT[p]
			if o == 0 {
				continue
			}
			u1 := i - p - 1
			if u1 >= 2 && u2 >= 2 && u1+u2 >= 6 {
				v += o * m.gen[u1][u2] * mmI[to][s[p+1]][sj1] * mmIn
			} else {
				v += o * b.interior(u1, u2, to, t2, s[p+1], sj1, sp1, sq1) * m.sc[u1+u2+2]
			}
		}
	}
	if m.bonus != nil {
		v *= m.bonus[i*s1+j]
	}
	qbo[(j+1)*s1+i] = v
}

// probabilities turns qb into the symmetric matrix of the pair
// probabilities QB QBo / Z.
func (m *pf) probabilities() error {
	n, s1 := m.n, m.s1
	z := m.z5[n]
	for i := 1; i <= n; i++ {
		for j := i + 1; j <= min(n, i+m.dmax); j++ {
			var pr float64
			if m.ptype[i*s1+j] != 0 {
				pr = m.qb[i*s1+j] * m.qbo[(j+1)*s1+i] / z
				if m.bonus != nil {
					pr /= m.bonus[i*s1+j] // QBo was stored times it
					if math.IsInf(pr, 0) || math.IsNaN(pr) {
						// QB QBo out of range where the ratios are not (large bonuses)
						pr = (m.qb[i*s1+j] / m.bonus[i*s1+j]) * (m.qbo[(j+1)*s1+i] / z)
					}
				}
				if math.IsNaN(pr) || math.IsInf(pr, 0) {
					return fmt.Errorf("%w: probability of (%d, %d) is %g", ErrOverflow, i, j, pr)
				}
			}
			m.qb[i*s1+j], m.qbo[(j+1)*s1+i] = pr, pr
		}
	}
	return nil
}

// Ensemble is the equilibrium ensemble of the secondary structures of a
// sequence under an energy model, as Partition computes it.
type Ensemble struct {
	Seq string // the normalised sequence
	// FreeEnergy is the ensemble free energy -kT ln Z in kcal/mol.
	FreeEnergy float64
	// MFE is the minimum free energy structure, of energy MFEEnergy
	// (kcal/mol).
	MFE         *rna.Structure
	MFEEnergy   float64
	Temperature float64 // degrees Celsius

	kT   float64 // kcal/mol
	n    int
	s1   int       // the layout of prob (see matrices): stride - 1
	dmax int       // the largest j - i of a pair in prob
	prob []float64 // 1-based, the pair (i, j) at i*s1 + j
}

// Len returns the length of the sequence.
func (e *Ensemble) Len() int { return e.n }

// LogZ returns ln Z, the natural logarithm of the partition function
// (-FreeEnergy/kT).
func (e *Ensemble) LogZ() float64 { return -e.FreeEnergy / e.kT }

// MaxSpan returns the span limit of the ensemble: the largest j - i + 1
// of a pair (i, j) it holds (the sequence length without a limit).
func (e *Ensemble) MaxSpan() int { return e.dmax + 1 }

// at is the probability of the pair (i, j), 1-based, i < j.
func (e *Ensemble) at(i, j int) float64 {
	if j-i > e.dmax {
		return 0
	}
	return e.prob[i*e.s1+j]
}

// Prob returns the probability that bases i and j (0-based) pair.
func (e *Ensemble) Prob(i, j int) float64 {
	if i < 0 || j < 0 || i >= e.n || j >= e.n || i == j {
		return 0
	}
	return e.at(min(i, j)+1, max(i, j)+1)
}

// Pair is a base pair (0-based, I < J) and its probability.
type Pair struct {
	I, J int
	P    float64
}

// Pairs returns the pairs of probability at least cut (and above 0), by
// I then J: the sparse form of the probabilities, O(L MaxSpan) to make,
// where Probabilities' L x L map is too large.
func (e *Ensemble) Pairs(cut float64) []Pair {
	var out []Pair
	for i := 1; i <= e.n; i++ {
		for j := i + 1; j <= e.n && j-i <= e.dmax; j++ {
			if v := e.prob[i*e.s1+j]; v >= cut && v > 0 {
				out = append(out, Pair{i - 1, j - 1, v})
			}
		}
	}
	return out
}

// Probabilities returns the pair probabilities as a symmetric L x L
// matrix (row-major, p[i*L+j] for the 0-based bases i and j; 0 on the
// diagonal), the layout of the networks' pair maps and of
// rna.DecodeMEA. It takes 4 L^2 bytes whatever the span limit (see
// Pairs).
func (e *Ensemble) Probabilities() []float32 {
	n := e.n
	out := make([]float32, n*n)
	for i := 1; i <= n; i++ {
		for j := i + 1; j <= min(n, i+e.dmax); j++ {
			v := float32(e.prob[i*e.s1+j])
			out[(i-1)*n+j-1], out[(j-1)*n+i-1] = v, v
		}
	}
	return out
}

// Unpaired returns the probability of every base to be unpaired.
func (e *Ensemble) Unpaired() []float64 {
	out := make([]float64, e.n)
	for i := 1; i <= e.n; i++ {
		q := 1.0
		for j := max(1, i-e.dmax); j < i; j++ {
			q -= e.prob[j*e.s1+i]
		}
		for j := i + 1; j <= min(e.n, i+e.dmax); j++ {
			q -= e.prob[i*e.s1+j]
		}
		out[i-1] = q
	}
	return out
}

// MFEFrequency returns the probability of the MFE structure in the
// ensemble, exp(-(MFEEnergy - FreeEnergy)/kT), as RNAfold -p reports it.
func (e *Ensemble) MFEFrequency() float64 {
	return math.Exp((e.FreeEnergy - e.MFEEnergy) / e.kT)
}

// StructureProbability returns the probability of a structure of
// energy energy (kcal/mol, as Params.Eval gives it) in the ensemble.
// (Where the ensemble uses smoothed dangles, see Partition, this is
// the probability RNAfold's vrna_pr_energy reports.)
func (e *Ensemble) StructureProbability(energy float64) float64 {
	return math.Exp((e.FreeEnergy - energy) / e.kT)
}

// Diversity returns the ensemble diversity, the mean base-pair distance
// between two structures of the ensemble, 2 sum over i < j of
// p_ij (1 - p_ij), as RNAfold -p reports it.
func (e *Ensemble) Diversity() float64 {
	var d float64
	for i := 1; i <= e.n; i++ {
		for _, v := range e.prob[i*e.s1+i+1 : i*e.s1+min(e.n, i+e.dmax)+1] {
			d += v * (1 - v)
		}
	}
	return 2 * d
}

// Centroid returns the centroid structure, the pairs of probability
// above 0.5 (always nested), and its expected base-pair distance to the
// ensemble, sum over i < j of 1 - p_ij for its pairs and p_ij for the
// others, as RNAfold -p reports them (vrna_centroid).
func (e *Ensemble) Centroid() (*rna.Structure, float64) {
	var pairs [][2]int
	var dist float64
	for i := 1; i <= e.n; i++ {
		for j := i + 1; j <= min(e.n, i+e.dmax); j++ {
			if v := e.prob[i*e.s1+j]; v > 0.5 {
				pairs = append(pairs, [2]int{i - 1, j - 1})
				dist += 1 - v
			} else {
				dist += v
			}
		}
	}
	st, err := rna.New("", e.Seq, pairs)
	if err != nil {
		panic("fold: centroid: " + err.Error()) // cannot happen: p > 0.5 pairs are nested
	}
	return st, dist
}

// PairingTendency returns RNAfold -p's string of the pairing tendency of
// every base (vrna_pairing_tendency): with q, u, d its probabilities to
// be unpaired, paired upstream (with a later base) and downstream (summed
// in float32 as ViennaRNA does), '.' if q > 0.667, '(' if u > 0.667, ')'
// if d > 0.667, otherwise if u + d > q '{', '}' or '|' as u/(u+d) or
// d/(u+d) exceeds 0.667 or neither, otherwise ',' if q > u + d, else ':'.
func (e *Ensemble) PairingTendency() string {
	out := make([]byte, e.n)
	for j := 1; j <= e.n; j++ {
		q, up, down := float32(1), float32(0), float32(0)
		for i := max(1, j-e.dmax); i < j; i++ {
			v := float32(e.prob[i*e.s1+j])
			down += v
			q -= v
		}
		for i := j + 1; i <= min(e.n, j+e.dmax); i++ {
			v := float32(e.prob[j*e.s1+i])
			up += v
			q -= v
		}
		var c byte
		switch {
		case q > 0.667:
			c = '.'
		case up > 0.667:
			c = '('
		case down > 0.667:
			c = ')'
		case up+down > q:
			switch {
			case up/(up+down) > 0.667:
				c = '{'
			case down/(up+down) > 0.667:
				c = '}'
			default:
				c = '|'
			}
		case q > up+down:
			c = ','
		default:
			c = ':'
		}
		out[j-1] = c
	}
	return string(out)
}
