package potts

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
)

func parse(t testing.TB, rows string) *msa.Alignment {
	t.Helper()
	a, err := msa.Parse([]byte(rows), "test", msa.PSICOV)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// tiny is a small alignment with a covarying pair (columns 1 and 3),
// gaps, an X and duplicated sequences.
const tiny = `ACDEF
AKDRF
GCDEF
AKD-Y
ACXEF
GKDRY
ACDEF
-KDRF
`

func TestGradient(t *testing.T) {
	a := parse(t, tiny)
	for _, threads := range []int{1, 3} {
		p, _ := newProblem(a, Options{Threads: threads}.withDefaults())
		r := rand.New(rand.NewPCG(1, 2))
		x := p.initial()
		for k := range x {
			x[k] = float64(float32(x[k] + 0.3*r.NormFloat64()))
		}
		g := make([]float64, len(x))
		f0 := p.eval(x, g)
		if f1 := p.eval(x, nil); f1 != f0 {
			t.Fatalf("f with and without gradient: %v %v", f0, f1)
		}
		const h = 1e-3
		worst := 0.0
		for k := range x {
			// Every field and a sample of couplings (all of the first block).
			if k >= p.l*q+2*qq && k%7 != 0 {
				continue
			}
			old := x[k]
			// Steps between float32 values: the couplings are float32.
			hi, lo := float64(float32(old+h)), float64(float32(old-h))
			x[k] = hi
			fp := p.eval(x, nil)
			x[k] = lo
			fm := p.eval(x, nil)
			x[k] = old
			fd := (fp - fm) / (hi - lo)
			if d := math.Abs(fd - g[k]); d > worst {
				worst = d
			}
			if math.Abs(fd-g[k]) > 1e-5*(1+math.Abs(g[k])) {
				t.Errorf("threads %d: parameter %d: gradient %v, finite difference %v", threads, k, g[k], fd)
			}
		}
		t.Logf("threads %d: worst |gradient - finite difference| %.2g", threads, worst)
	}
}

// The minimum: the gradient vanishes and f is below nearby points.
func TestMinimum(t *testing.T) {
	a := parse(t, tiny)
	m, err := Fit(a, Options{MaxIterations: 2000, Epsilon: 1e-14, GradTol: 1e-7, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("f %.10g after %d iterations, %d evaluations: %s", m.F, m.Iterations, m.Evaluations, m.Status)
	p, _ := newProblem(a, Options{Threads: 1}.withDefaults())
	x := pack(m, p)
	g := make([]float64, len(x))
	f := p.eval(x, g)
	gmax := 0.0
	for _, v := range g {
		gmax = max(gmax, math.Abs(v))
	}
	if gmax > 1e-4 {
		t.Errorf("gradient at the minimum: max |g| = %g", gmax)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		y := append([]float64(nil), x...)
		for k := range y {
			y[k] += 1e-3 * r.NormFloat64()
		}
		if fy := p.eval(y, nil); fy < f {
			t.Errorf("f(%d) = %v below the minimum %v", trial, fy, f)
		}
	}
	// Symmetry J_ij(a,b) == J_ji(b,a), zero diagonal blocks.
	for i := 0; i < m.L; i++ {
		for j := 0; j < m.L; j++ {
			for a := 0; a < q; a++ {
				for b := 0; b < q; b++ {
					if m.Coupling(i, j, a, b) != m.Coupling(j, i, b, a) || i == j && m.Coupling(i, j, a, b) != 0 {
						t.Fatalf("J not symmetric at %d %d %d %d", i, j, a, b)
					}
				}
			}
		}
	}
	// The covarying pair (1, 3) scores highest.
	s := Predict2(t, a)
	best, bi, bj := math.Inf(-1), 0, 0
	for i := 0; i < m.L; i++ {
		for j := i + 1; j < m.L; j++ {
			if s[i*m.L+j] > best {
				best, bi, bj = s[i*m.L+j], i, j
			}
		}
	}
	if bi != 1 || bj != 3 {
		t.Errorf("top pair (%d, %d), want (1, 3)", bi, bj)
	}
}

func Predict2(t *testing.T, a *msa.Alignment) []float64 {
	r, err := Predict(a, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Warn != nil {
		t.Errorf("warning for Neff %.2f, L %d: %v", r.Model.Neff, r.Model.L, r.Warn)
	}
	return r.Scores
}

// pack rebuilds the parameter vector from a model.
func pack(m *Model, p *problem) []float64 {
	x := make([]float64, NumParams(m.L))
	for k, v := range m.H {
		x[k] = float64(v)
	}
	for i := 0; i < m.L; i++ {
		for j := i + 1; j < m.L; j++ {
			blk := x[p.pairOffset(i, j):][:qq]
			for a := 0; a < q; a++ {
				for b := 0; b < q; b++ {
					blk[a*q+b] = float64(m.Coupling(i, j, a, b))
				}
			}
		}
	}
	return x
}

func TestLowDepthWarning(t *testing.T) {
	a := parse(t, "ACDEFGH\nACDEFGH\nACDEFGW\n")
	r, err := Predict(a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Warn == nil || r.Model.Neff != 2 || r.Model.Unique != 2 {
		t.Errorf("Neff %v, %d distinct, warning %v", r.Model.Neff, r.Model.Unique, r.Warn)
	}
}

func TestThreadsDeterministic(t *testing.T) {
	// tiny, and an alignment whose 112,056 parameters span several
	// blocks of the optimiser's vector operations.
	for _, rows := range []string{tiny, randomAlignment(23, 40, 6)} {
		a := parse(t, rows)
		var first []float64
		for _, th := range []int{1, 2, 4} {
			r, err := Predict(a, Options{Threads: th})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = r.Scores
				continue
			}
			for k := range first {
				if first[k] != r.Scores[k] {
					t.Fatalf("L %d, threads %d: score %d = %v, with 1 thread %v", a.L(), th, k, r.Scores[k], first[k])
				}
			}
		}
	}
}

func TestMemoryRefusal(t *testing.T) {
	need := EstimateMemory(1000, 10000, Options{})
	t.Logf("L=1000, N=10000: estimate %d MiB", need>>20)
	if need < 6<<30 {
		t.Errorf("estimate for L=1000 %d MiB below 6 GiB: check the count", need>>20)
	}
	a := parse(t, tiny)
	lim := EstimateMemory(a.L(), a.N(), Options{}) - 1
	_, err := Fit(a, Options{MemoryLimit: lim})
	me, ok := err.(*MemoryError)
	if !ok || me.Need != lim+1 || !strings.Contains(err.Error(), "MiB") {
		t.Fatalf("error %v, want a MemoryError", err)
	}
	if _, err := Fit(a, Options{MemoryLimit: lim + 1}); err != nil {
		t.Fatal(err)
	}
}

// A row cap sizes the fitted rows' buffers by the cap and the read
// alignment's by its rows: no cap at n changes nothing, a lower cap
// lowers the estimate, and never below a fit of the cap's rows alone.
func TestEstimateMemoryMaxRows(t *testing.T) {
	const l, n = 120, 30000
	full := EstimateMemory(l, n, Options{Threads: 2})
	if got := EstimateMemory(l, n, Options{Threads: 2, MaxRows: n}); got != full {
		t.Errorf("cap at n: %d, uncapped %d", got, full)
	}
	capped := EstimateMemory(l, n, Options{Threads: 2, MaxRows: 4000})
	alone := EstimateMemory(l, 4000, Options{Threads: 2})
	if !(alone < capped && capped < full) {
		t.Errorf("capped at 4,000: %d, want between a fit of 4,000 rows (%d) and the uncapped %d", capped, alone, full)
	}
}
