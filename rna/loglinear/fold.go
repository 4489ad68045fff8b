package loglinear

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/contactmap/contactmap/rna"
)

// ErrRange is wrapped when a sequence's tables leave float64's range
// under every scaling tried.
var ErrRange = errors.New("partition function out of floating-point range")

// weights are the exponentiated weights of a model, e(f) = exp(theta_f),
// in the shapes the programme reads them.
type weights struct {
	pair                         [nPair]float64
	stack                        [nPair][nPair]float64
	hpMis, intMis, mlMis, extMis [nPair][nBase][nBase]float64
	hpLen, bulge                 [MaxLoop + 1]float64
	loop                         [MaxLoop + 1][MaxLoop + 1]float64 // n1, n2 >= 1: length, asymmetry, explicit
	mlClose, mlBranch, mlUnp     float64
	extBranch, extUnp            float64
}

func newWeights(theta []float64) *weights {
	e := func(f int) float64 { return math.Exp(theta[f]) }
	w := &weights{}
	for p := 0; p < nPair; p++ {
		w.pair[p] = e(offPair + p)
		for q := 0; q < nPair; q++ {
			w.stack[p][q] = e(offStack + p*nPair + q)
		}
		for a := int8(0); a < nBase; a++ {
			for b := int8(0); b < nBase; b++ {
				w.hpMis[p][a][b] = e(misIndex(offHpMis, int8(p), a, b))
				w.intMis[p][a][b] = e(misIndex(offIntMis, int8(p), a, b))
				w.mlMis[p][a][b] = e(misIndex(offMlMis, int8(p), a, b))
				w.extMis[p][a][b] = e(misIndex(offExtMis, int8(p), a, b))
			}
		}
	}
	for n := 0; n <= MaxLoop; n++ {
		w.hpLen[n] = e(offHpLen + n)
		w.bulge[n] = e(offBulgeLen + n)
	}
	for n1 := 1; n1 < MaxLoop; n1++ {
		for n2 := 1; n1+n2 <= MaxLoop; n2++ {
			s := theta[offIntLen+n1+n2] + theta[offIntAsym+abs(n1-n2)]
			if n1 <= maxExplicit && n2 <= maxExplicit {
				s += theta[offIntExplicit+(n1-1)*maxExplicit+n2-1]
			}
			w.loop[n1][n2] = math.Exp(s)
		}
	}
	w.mlClose = e(offMlBase) * e(offMlBranch)
	w.mlBranch = e(offMlBranch)
	w.mlUnp = e(offMlUnpaired)
	w.extBranch = e(offExtBranch)
	w.extUnp = e(offExtUnpaired)
	return w
}

// interior is the weight of the interior loop (stack, bulge or interior
// loop) closed by a pair of type pt with inner pair (k, l) of type pi and
// n1, n2 unpaired bases on its sides; misO is the outer pair's interior
// mismatch weight.
func (e *weights) interior(x []int8, pt, pi int8, n1, n2 int, misO float64, k, l int) float64 {
	switch {
	case n1 == 0 && n2 == 0:
		return e.stack[pt][pi]
	case n1 == 0 || n2 == 0:
		return e.bulge[n1+n2]
	}
	return e.loop[n1][n2] * misO * e.intMis[pairOf[x[l]][x[k]]][x[l+1]][x[k-1]]
}

// tables are the inside (and outside) tables of one sequence, in a band:
// cell (i, j), 0 <= j-i < w, at i*w + j-i.
type tables struct {
	x        []int8
	n, w     int
	e        *weights
	sc       []float64 // sc[k] = gamma^-k
	mlPow    []float64 // e(multi unpaired)^k gamma^-k
	qb, qm   []float64
	qm1, ext []float64
	z        float64 // scaled: Z gamma^-n
	logGamma float64
}

func (t *tables) ix(i, j int) int { return i*t.w + j - i }

// inside fills the inside tables with per-base scale gamma = exp(lg) and
// returns the scaled Z.
func (t *tables) inside(ctx context.Context, lg float64) error {
	n, w, x, e := t.n, t.w, t.x, t.e
	t.logGamma = lg
	t.sc = make([]float64, n+2)
	t.mlPow = make([]float64, n+2)
	g := math.Exp(-lg)
	t.sc[0], t.mlPow[0] = 1, 1
	for k := 1; k < len(t.sc); k++ {
		t.sc[k] = t.sc[k-1] * g
		t.mlPow[k] = t.mlPow[k-1] * e.mlUnp * g
	}
	t.qb = make([]float64, n*w)
	t.qm = make([]float64, n*w)
	t.qm1 = make([]float64, n*w)
	sc, qb, qm, qm1 := t.sc, t.qb, t.qm, t.qm1
	for d := MinHairpin + 1; d < w; d++ {
		if d%32 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for i := 0; i+d < n; i++ {
			j := i + d
			if pt := pairOf[x[i]][x[j]]; pt >= 0 {
				h := e.hpLen[min(d-1, MaxLoop)] * e.hpMis[pt][x[i+1]][x[j-1]] * sc[d+1]
				var sumI float64
				misO := e.intMis[pt][x[i+1]][x[j-1]]
				for k := i + 1; k <= i+1+MaxLoop && k < j-MinHairpin-1; k++ {
					n1 := k - i - 1
					for l := max(k+MinHairpin+1, j-1-(MaxLoop-n1)); l < j; l++ {
						pi := pairOf[x[k]][x[l]]
						if pi < 0 {
							continue
						}
						q := qb[t.ix(k, l)]
						if q == 0 {
							continue
						}
						n2 := j - l - 1
						sumI += e.interior(x, pt, pi, n1, n2, misO, k, l) * sc[n1+n2+2] * q
					}
				}
				var sumM float64
				for u := i + 2 + MinHairpin + 1; u+MinHairpin+1 < j; u++ {
					sumM += qm[t.ix(i+1, u-1)] * qm1[t.ix(u, j-1)]
				}
				m := e.mlClose * e.mlMis[pairOf[x[j]][x[i]]][x[j-1]][x[i+1]] * sc[2] * sumM
				qb[t.ix(i, j)] = e.pair[pt] * (h + sumI + m)
			}
			// Qm1(i,j) = Qm1(i,j-1) e(multi unpaired) + Qb(i,j) e(branch).
			s1 := qm1[t.ix(i, j-1)] * t.mlPow[1]
			if q := qb[t.ix(i, j)]; q != 0 {
				s1 += q * e.mlBranch * e.mlMis[pairOf[x[i]][x[j]]][at(x, i-1)][at(x, j+1)]
			}
			qm1[t.ix(i, j)] = s1
			var sm float64
			for u := i; u+MinHairpin+1 <= j; u++ {
				q1 := qm1[t.ix(u, j)]
				if q1 == 0 {
					continue
				}
				a := t.mlPow[u-i]
				if u > i {
					a += qm[t.ix(i, u-1)]
				}
				sm += a * q1
			}
			qm[t.ix(i, j)] = sm
		}
	}
	t.ext = make([]float64, n+1)
	t.ext[0] = 1
	for j := 1; j <= n; j++ {
		s := t.ext[j-1] * e.extUnp * sc[1]
		for k := max(0, j-w); k+MinHairpin+1 < j; k++ {
			if q := qb[t.ix(k, j-1)]; q != 0 {
				s += t.ext[k] * q * e.extBranch * e.extMis[pairOf[x[k]][x[j-1]]][at(x, k-1)][at(x, j)]
			}
		}
		t.ext[j] = s
	}
	t.z = t.ext[n]
	return nil
}

// outside runs the adjoint of inside: the pair probabilities (band, as
// the tables) and, if grad is not nil, the expected feature counts added
// to grad.
func (t *tables) outside(ctx context.Context, grad []float64) ([]float64, error) {
	n, w, x, e, sc := t.n, t.w, t.x, t.e, t.sc
	qb, qm, qm1 := t.qb, t.qm, t.qm1
	oqb, oqm, oqm1 := make([]float64, n*w), make([]float64, n*w), make([]float64, n*w)
	oe := make([]float64, n+1)
	prob := make([]float64, n*w)
	if grad == nil {
		grad = make([]float64, NumFeatures)
	}
	inv := 1 / t.z
	oe[n] = 1
	for j := n; j >= 1; j-- {
		o := oe[j]
		if o == 0 {
			continue
		}
		f := e.extUnp * sc[1]
		grad[offExtUnpaired] += o * t.ext[j-1] * f * inv
		oe[j-1] += o * f
		for k := max(0, j-w); k+MinHairpin+1 < j; k++ {
			q := qb[t.ix(k, j-1)]
			if q == 0 {
				continue
			}
			mi := misIndex(offExtMis, pairOf[x[k]][x[j-1]], at(x, k-1), at(x, j))
			br := e.extBranch * e.extMis[pairOf[x[k]][x[j-1]]][at(x, k-1)][at(x, j)]
			wt := o * t.ext[k] * q * br * inv
			grad[offExtBranch] += wt
			grad[mi] += wt
			oe[k] += o * q * br
			oqb[t.ix(k, j-1)] += o * t.ext[k] * br
		}
	}
	for d := w - 1; d >= MinHairpin+1; d-- {
		if d%32 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for i := 0; i+d < n; i++ {
			j := i + d
			c := t.ix(i, j)
			if o := oqm[c]; o != 0 {
				for u := i; u+MinHairpin+1 <= j; u++ {
					q1 := qm1[t.ix(u, j)]
					if q1 == 0 {
						continue
					}
					a := t.mlPow[u-i]
					grad[offMlUnpaired] += o * a * q1 * float64(u-i) * inv
					if u > i {
						a += qm[t.ix(i, u-1)]
						oqm[t.ix(i, u-1)] += o * q1
					}
					oqm1[t.ix(u, j)] += o * a
				}
			}
			if o := oqm1[c]; o != 0 {
				if prev := t.ix(i, j-1); d > MinHairpin+1 {
					f := t.mlPow[1]
					grad[offMlUnpaired] += o * qm1[prev] * f * inv
					oqm1[prev] += o * f
				}
				if q := qb[c]; q != 0 {
					pt := pairOf[x[i]][x[j]]
					a, b := at(x, i-1), at(x, j+1)
					f := e.mlBranch * e.mlMis[pt][a][b]
					wt := o * q * f * inv
					grad[offMlBranch] += wt
					grad[misIndex(offMlMis, pt, a, b)] += wt
					oqb[c] += o * f
				}
			}
			o, q := oqb[c], qb[c]
			if o == 0 || q == 0 {
				continue
			}
			pt := pairOf[x[i]][x[j]]
			ep := e.pair[pt]
			p := o * q * inv
			prob[c] = p
			grad[offPair+int(pt)] += p
			hl := min(d-1, MaxLoop)
			wt := o * ep * e.hpLen[hl] * e.hpMis[pt][x[i+1]][x[j-1]] * sc[d+1] * inv
			grad[offHpLen+hl] += wt
			grad[misIndex(offHpMis, pt, x[i+1], x[j-1])] += wt
			misO := e.intMis[pt][x[i+1]][x[j-1]]
			for k := i + 1; k <= i+1+MaxLoop && k < j-MinHairpin-1; k++ {
				n1 := k - i - 1
				for l := max(k+MinHairpin+1, j-1-(MaxLoop-n1)); l < j; l++ {
					pi := pairOf[x[k]][x[l]]
					if pi < 0 {
						continue
					}
					ckl := t.ix(k, l)
					qkl := qb[ckl]
					if qkl == 0 {
						continue
					}
					n2 := j - l - 1
					f := e.interior(x, pt, pi, n1, n2, misO, k, l) * ep * sc[n1+n2+2]
					oqb[ckl] += o * f
					wt := o * f * qkl * inv
					switch {
					case n1 == 0 && n2 == 0:
						grad[offStack+int(pt)*nPair+int(pi)] += wt
					case n1 == 0 || n2 == 0:
						grad[offBulgeLen+n1+n2] += wt
					default:
						grad[offIntLen+n1+n2] += wt
						grad[offIntAsym+abs(n1-n2)] += wt
						grad[misIndex(offIntMis, pt, x[i+1], x[j-1])] += wt
						grad[misIndex(offIntMis, pairOf[x[l]][x[k]], x[l+1], x[k-1])] += wt
						if n1 <= maxExplicit && n2 <= maxExplicit {
							grad[offIntExplicit+(n1-1)*maxExplicit+n2-1] += wt
						}
					}
				}
			}
			rt := pairOf[x[j]][x[i]]
			cm := o * ep * e.mlClose * e.mlMis[rt][x[j-1]][x[i+1]] * sc[2]
			var total float64
			for u := i + 2 + MinHairpin + 1; u+MinHairpin+1 < j; u++ {
				a, b := qm[t.ix(i+1, u-1)], qm1[t.ix(u, j-1)]
				if a == 0 || b == 0 {
					continue
				}
				oqm[t.ix(i+1, u-1)] += cm * b
				oqm1[t.ix(u, j-1)] += cm * a
				total += a * b
			}
			wt = cm * total * inv
			grad[offMlBase] += wt
			grad[offMlBranch] += wt
			grad[misIndex(offMlMis, rt, x[j-1], x[i+1])] += wt
		}
	}
	return prob, nil
}

// prefixLen is the length of the first prefix folded to estimate the
// per-base scale of a longer sequence.
const prefixLen = 300

// run computes the inside tables of x with a scale that keeps them in
// range: a sequence longer than prefixLen folds its first prefixLen
// bases first, whose per-base log Z scales the whole. A
// fold whose scaled Z leaves [e^-maxScaledLog, e^maxScaledLog] is redone
// with the scale moved: by its own log Z where that is finite, else by a
// per-base step that doubles at every try.
func run(ctx context.Context, x []int8, w int, e *weights) (*tables, error) {
	n := len(x)
	lg := 0.0
	for m := min(n, prefixLen); ; m = n {
		var t *tables
		step := 0.5
		for try := 0; ; try++ {
			t = &tables{x: x[:m], n: m, w: min(w, m), e: e}
			if err := t.inside(ctx, lg); err != nil {
				return nil, err
			}
			lz := math.Log(t.z)
			if math.Abs(lz) <= maxScaledLog {
				break
			}
			if try == 12 {
				return nil, fmt.Errorf("loglinear: %w (%d bases)", ErrRange, m)
			}
			switch {
			case math.IsInf(lz, 1) || math.IsNaN(lz):
				lg += step
			case math.IsInf(lz, -1):
				lg -= step
			default:
				lg += lz / float64(m)
			}
			step *= 2
		}
		lg = (math.Log(t.z) + float64(m)*lg) / float64(m)
		if m == n {
			return t, nil
		}
	}
}

// maxScaledLog bounds |log Z| of the scaled tables, so that the outside
// products keep their headroom.
const maxScaledLog = 300

// MemoryBytes is the peak memory of Fold on a sequence of n bases with
// pairs of span below maxSpan (0: any): the three inside tables, their
// three adjoints and the pair probabilities, n x W float64 each (W the
// band, n without a span limit), and the O(n) vectors.
func MemoryBytes(n, maxSpan int) int64 {
	w := n
	if maxSpan > 0 && maxSpan < n {
		w = maxSpan
	}
	return 7*int64(n)*int64(w)*8 + 4*int64(n+2)*8
}

// Ensemble is the distribution of a model over a sequence's structures.
type Ensemble struct {
	Seq  string
	LogZ float64 // log of the partition function
	n, w int
	prob []float64 // band
}

// Fold computes the ensemble of seq (normalised: A, C, G, U, N) under m,
// with pairs of span below maxSpan (0: any).
func (m *Model) Fold(ctx context.Context, seq string, maxSpan int) (*Ensemble, error) {
	ens, _, err := m.fold(ctx, seq, maxSpan, nil)
	return ens, err
}

func (m *Model) fold(ctx context.Context, seq string, maxSpan int, grad []float64) (*Ensemble, *tables, error) {
	if len(m.Theta) != NumFeatures {
		return nil, nil, fmt.Errorf("loglinear: model has %d weights, want %d", len(m.Theta), NumFeatures)
	}
	n := len(seq)
	if n == 0 {
		return &Ensemble{Seq: seq}, nil, nil
	}
	w := n
	if maxSpan > 0 && maxSpan < n {
		w = maxSpan
	}
	t, err := run(ctx, encode(seq), w, newWeights(m.Theta))
	if err != nil {
		return nil, nil, err
	}
	prob, err := t.outside(ctx, grad)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range prob {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return nil, nil, fmt.Errorf("loglinear: %w (%d bases): a pair probability is %v", ErrRange, n, p)
		}
	}
	for f, v := range grad {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("loglinear: %w (%d bases): the expected count of %s is %v", ErrRange, n, Feature(f), v)
		}
	}
	return &Ensemble{Seq: seq, LogZ: math.Log(t.z) + float64(n)*t.logGamma, n: n, w: t.w, prob: prob}, t, nil
}

// Prob is the probability that bases i and j (0-based, either order) pair.
func (e *Ensemble) Prob(i, j int) float64 {
	if i > j {
		i, j = j, i
	}
	if i < 0 || j >= e.n || j-i >= e.w {
		return 0
	}
	return e.prob[i*e.w+j-i]
}

// Pair is a base pair (0-based, I < J) and its probability.
type Pair struct {
	I, J int
	P    float64
}

// Pairs lists the pairs of probability at least cut (and above 0), by I
// then J, as fold.Ensemble.Pairs does.
func (e *Ensemble) Pairs(cut float64) []Pair {
	var out []Pair
	for i := 0; i < e.n; i++ {
		for j := i + 1; j < e.n && j-i < e.w; j++ {
			if v := e.prob[i*e.w+j-i]; v >= cut && v > 0 {
				out = append(out, Pair{i, j, min(v, 1)})
			}
		}
	}
	return out
}

// Probabilities is the symmetric n x n pair-probability map, row-major,
// as rna.DecodeMEA reads it.
func (e *Ensemble) Probabilities() []float32 {
	p := make([]float32, e.n*e.n)
	for i := 0; i < e.n; i++ {
		for j := i + 1; j < e.n && j-i < e.w; j++ {
			v := float32(min(1, e.prob[i*e.w+j-i]))
			p[i*e.n+j], p[j*e.n+i] = v, v
		}
	}
	return p
}

// MEA is the gamma-centroid structure of the ensemble (rna.DecodeMEA,
// nested, gamma 1 by default).
func (e *Ensemble) MEA(name string, gamma float64) (*rna.Structure, error) {
	return rna.DecodeMEA(name, e.Seq, e.Probabilities(), rna.DecodeOptions{Gamma: gamma})
}
