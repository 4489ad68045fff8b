package loglinear

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/contactmap/contactmap/rna"
)

// Objective is the mean negative log-likelihood of the structures under
// m, -1/N sum_s log P(s | x_s), plus (lambda/2) ||theta||^2, and its
// gradient, 1/N sum_s (E[c] - c(s)) + lambda theta; the structures are
// folded on threads goroutines. Every structure must be one the model
// holds (Counts).
func Objective(ctx context.Context, m *Model, examples []*rna.Structure, lambda float64, threads int) (float64, []float64, error) {
	threads = max(1, threads)
	type part struct {
		nll  float64
		grad []float64
		err  error
	}
	parts := make([]part, threads)
	var wg sync.WaitGroup
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := &parts[w]
			p.grad = make([]float64, NumFeatures)
			c := make([]float64, NumFeatures)
			for k := w; k < len(examples); k += threads {
				if err := ctx.Err(); err != nil {
					p.err = err
					return
				}
				s := examples[k]
				clear(c)
				if err := Counts(s, 0, c); err != nil {
					p.err = err
					return
				}
				ens, _, err := m.fold(ctx, s.Seq, 0, p.grad)
				if err != nil {
					p.err = fmt.Errorf("loglinear: %s: %w", s.Name, err)
					return
				}
				p.nll += ens.LogZ - m.Score(c)
				for f, v := range c {
					p.grad[f] -= v
				}
			}
		}(w)
	}
	wg.Wait()
	grad := make([]float64, NumFeatures)
	var nll float64
	for _, p := range parts {
		if p.err != nil {
			return 0, nil, p.err
		}
		nll += p.nll
		for f, v := range p.grad {
			grad[f] += v
		}
	}
	inv := 1 / float64(max(1, len(examples)))
	nll *= inv
	for f := range grad {
		grad[f] = grad[f]*inv + lambda*m.Theta[f]
		nll += lambda / 2 * m.Theta[f] * m.Theta[f]
	}
	return nll, grad, nil
}

// TrainOptions configure Train. The zero value of a field means its
// default.
type TrainOptions struct {
	Lambda   float64 // L2 weight; 0 means none
	MaxEvals int     // objective evaluations, at most (default 300)
	GradTol  float64 // stop at this largest absolute gradient entry (default 1e-4)
	Threads  int     // goroutines (default 1)
	// Progress, if not nil, is called after every evaluation.
	Progress func(eval int, value, gradNorm float64)
	// Init, if not nil, is the starting model (default all weights 0).
	Init *Model
	// Checkpoint, if not nil, is called after every evaluation with the
	// model evaluated (valid only during the call) and its objective.
	Checkpoint func(m *Model, value float64)
}

// TrainResult reports a fit.
type TrainResult struct {
	Evaluations int
	Value       float64 // the objective at the returned model
	GradNorm    float64
	Status      string // gonum/optimize's reason to stop
}

// Train fits a model to the structures by L-BFGS on Objective. The
// examples must be ones the model holds (Representable gives them). It
// stops at o.GradTol (gonum's threshold: the largest absolute gradient
// entry; TrainResult.GradNorm is the Euclidean norm), at o.MaxEvals, or
// when an evaluation fails or ctx is done, and returns the best model it
// evaluated, with the failure or ctx's error (nil model only if nothing
// was evaluated). An evaluation out of float64's range (ErrRange) counts
// as an infinite objective, from which the line search backs off.
func Train(ctx context.Context, examples []*rna.Structure, o TrainOptions) (*Model, TrainResult, error) {
	if len(examples) == 0 {
		return nil, TrainResult{}, errors.New("loglinear: no training structures")
	}
	if o.MaxEvals == 0 {
		o.MaxEvals = 300
	}
	if o.GradTol == 0 {
		o.GradTol = 1e-4
	}
	for _, s := range examples {
		if err := Counts(s, 0, make([]float64, NumFeatures)); err != nil {
			return nil, TrainResult{}, err
		}
	}
	x0 := make([]float64, NumFeatures)
	if o.Init != nil {
		if len(o.Init.Theta) != NumFeatures {
			return nil, TrainResult{}, fmt.Errorf("loglinear: initial model has %d weights, want %d", len(o.Init.Theta), NumFeatures)
		}
		copy(x0, o.Init.Theta)
	}
	var evalErr error
	evals := 0
	m := NewModel()
	cache := struct {
		x    []float64
		v    float64
		grad []float64
	}{}
	best := struct {
		x, g []float64
		v    float64
	}{v: math.Inf(1)}
	eval := func(x []float64) (float64, []float64) {
		if cache.x != nil && slices.Equal(cache.x, x) {
			return cache.v, cache.grad
		}
		copy(m.Theta, x)
		v, g, err := Objective(ctx, m, examples, o.Lambda, o.Threads)
		if errors.Is(err, ErrRange) && ctx.Err() == nil {
			// A step too far for float64: the line search backs off.
			return math.Inf(1), make([]float64, NumFeatures)
		}
		if err != nil {
			if evalErr == nil {
				evalErr = err
			}
			return math.Inf(1), make([]float64, NumFeatures)
		}
		evals++
		if v < best.v {
			best.x, best.v, best.g = append(best.x[:0], x...), v, g
		}
		if o.Progress != nil {
			o.Progress(evals, v, floats.Norm(g, 2))
		}
		if o.Checkpoint != nil {
			o.Checkpoint(m, v)
		}
		cache.x, cache.v, cache.grad = append(cache.x[:0], x...), v, g
		return v, g
	}
	p := optimize.Problem{
		Func: func(x []float64) float64 { v, _ := eval(x); return v },
		Grad: func(grad, x []float64) { _, g := eval(x); copy(grad, g) },
		Status: func() (optimize.Status, error) {
			if evalErr != nil {
				return optimize.Failure, evalErr
			}
			return optimize.NotTerminated, nil
		},
	}
	set := &optimize.Settings{
		GradientThreshold: o.GradTol,
		FuncEvaluations:   o.MaxEvals,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-10, Relative: 1e-10, Iterations: 20},
	}
	res, err := optimize.Minimize(p, x0, set, &optimize.LBFGS{Store: 10})
	if evalErr != nil {
		if ctx.Err() != nil {
			evalErr = ctx.Err()
		}
		r := TrainResult{Evaluations: evals, Status: "stopped"}
		if best.x == nil {
			return nil, r, evalErr
		}
		r.Value, r.GradNorm = best.v, floats.Norm(best.g, 2)
		return &Model{Theta: best.x}, r, evalErr
	}
	if best.x == nil {
		return nil, TrainResult{Evaluations: evals}, fmt.Errorf("loglinear: training: %v", err)
	}
	status := "stopped"
	if res != nil {
		status = res.Status.String()
	}
	// The best point evaluated: the line search may end past it.
	out := &Model{Theta: best.x}
	return out, TrainResult{Evaluations: evals, Value: best.v, GradNorm: floats.Norm(best.g, 2), Status: status}, nil
}
