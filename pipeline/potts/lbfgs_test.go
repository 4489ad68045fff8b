package potts

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

// minimize runs the algorithm of gonum's optimize.LBFGS with the
// More-Thuente line search: from the same start, on the same objective,
// gonum takes the same number of iterations to the same stop, at the
// same objective up to the rounding of the vector operations.
func TestMinimizeMatchesGonum(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows string
		eps  float64
	}{
		{"random 23 x 40, epsilon 0.01", randomAlignment(23, 40, 5), 0},
		{"random 23 x 40, epsilon 1e-4", randomAlignment(23, 40, 5), 1e-4},
		{"tiny, epsilon 1e-6", tiny, 1e-6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := parse(t, tc.rows)
			opt := Options{Threads: 2, Epsilon: tc.eps}.withDefaults()
			p, _ := newProblem(a, opt)
			got := p.minimize(context.Background(), p.initial(), opt)

			q, _ := newProblem(a, opt)
			var gx []float64
			g := make([]float64, len(got.X))
			prob := optimize.Problem{
				Func: func(x []float64) float64 {
					gx = append(gx[:0], x...)
					return q.eval(x, g)
				},
				Grad: func(grad, x []float64) {
					if !slices.Equal(gx, x) {
						q.eval(x, g)
						gx = append(gx[:0], x...)
					}
					copy(grad, g)
				},
			}
			c := &gonumConverger{c: converger{gradTol: opt.GradTol, eps: opt.Epsilon, k: opt.K}, p: q}
			settings := &optimize.Settings{MajorIterations: opt.MaxIterations, GradientThreshold: math.NaN(), Converger: c}
			want, err := optimize.Minimize(prob, q.initial(), settings, &optimize.LBFGS{Store: opt.Store, Linesearcher: &optimize.MoreThuente{}, GradStopThreshold: math.NaN()})
			if want == nil {
				t.Fatal(err)
			}
			t.Logf("minimize: %d iterations, %d evaluations, %v (%v), f %.12g; gonum: %d iterations, %d evaluations, %v (%v), f %.12g",
				got.Iterations, p.evals, got.Status, got.Err, got.F, want.Stats.MajorIterations, q.evals, want.Status, err, want.F)
			if got.Iterations != want.Stats.MajorIterations || got.Status != want.Status {
				t.Errorf("stopped after %d iterations (%v), gonum after %d (%v)", got.Iterations, got.Status, want.Stats.MajorIterations, want.Status)
			}
			// The sums' order differs (blocks against one pass), and the
			// objective is evaluated at the float32 rounding of the point,
			// so the paths drift apart by rounding over the iterations.
			if d := math.Abs(got.F-want.F) / math.Abs(want.F); d > 1e-8 {
				t.Errorf("f %v, gonum %v: %.1e relative", got.F, want.F, d)
			}
			worst := 0.0
			for i, v := range want.X {
				worst = max(worst, math.Abs(got.X[i]-v))
			}
			if worst > 1e-6 {
				t.Errorf("parameters differ from gonum's by up to %.2e", worst)
			}
		})
	}
}

// gonumConverger is converger as gonum's optimize.Converger.
type gonumConverger struct {
	c converger
	p *problem
}

func (g *gonumConverger) Init(int) { g.c.hist = g.c.hist[:0] }

func (g *gonumConverger) Converged(loc *optimize.Location) optimize.Status {
	return g.c.checkNorm(loc.F, g.p.maxAbs(loc.Gradient))
}

// countdown is a context whose Err is nil for its first n calls, then
// context.Canceled: a cancellation at a fixed point of a fit.
type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// A cancelled fit stops before its next evaluation: minimize evaluates
// at most as often as the context said yes, and FitContext returns the
// context's error and no model; an uncancelled one is Fit.
func TestFitContextStops(t *testing.T) {
	a := parse(t, randomAlignment(23, 40, 5))
	opt := Options{Threads: 1}.withDefaults()
	for _, n := range []int{0, 1, 5} {
		p, _ := newProblem(a, opt)
		res := p.minimize(&countdown{Context: context.Background(), n: n}, p.initial(), opt)
		if !errors.Is(res.Err, context.Canceled) || p.evals > n {
			t.Errorf("cancelled after %d checks: %d evaluations, %v", n, p.evals, res.Err)
		}
		m, err := FitContext(&countdown{Context: context.Background(), n: n}, a, opt)
		if !errors.Is(err, context.Canceled) || m != nil {
			t.Errorf("FitContext cancelled after %d checks: %v, model %v", n, err, m != nil)
		}
	}
	full, err := Fit(a, opt)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := newProblem(a, opt)
	if res := p.minimize(context.Background(), p.initial(), opt); res.Err != nil && !errors.Is(res.Err, optimize.ErrLinesearcherFailure) || p.evals <= 5 {
		t.Fatalf("the uncancelled fit: %d evaluations, %v (the test needs more than 5)", p.evals, res.Err)
	}
	if full.Evaluations <= 5 {
		t.Fatalf("Fit: %d evaluations", full.Evaluations)
	}
}
