package potts

import (
	"context"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// The optimiser: limited-memory BFGS (Nocedal & Wright, Numerical
// Optimization, 2nd ed., algorithms 7.4 and 7.5) with the More-Thuente
// line search of gonum/optimize, as gonum's optimize.LBFGS runs them:
// the first direction the negative gradient with a step of 1/|g|, every
// later one the two-loop recursion over the last Store pairs with the
// initial Hessian scaled by s.y/y.y and a step of 1; an iteration
// accepts the line search's point (strong Wolfe conditions with
// MoreThuente's defaults: decrease factor 0, so any decrease, and
// curvature 0.9). It differs from gonum's in how it runs, not in what it
// computes: its vector operations run on the problem's goroutines, each
// update fused with the dot product that follows it (an iteration with
// one line-search step makes 2 Store + 4 passes over the parameters,
// less than half of gonum's with its copies of the point and gradient),
// and it keeps 5 + 2 Store vectors of them where gonum's optimize keeps
// 10 + 2 Store and this package's cache of the gradient 2 more. Its dot
// products sum fixed blocks of vecBlock values, then the blocks in
// order, so that the result does not depend on the number of goroutines.

// vecBlock is the number of parameters of a block of the vector
// operations (256 KB of float64).
const vecBlock = 1 << 15

// lbfgsResult is where minimize stopped.
type lbfgsResult struct {
	X          []float64 // the last point accepted
	F          float64
	Iterations int // major iterations, the starting point the first
	Status     optimize.Status
	Err        error // the line search's failure, or a bad start
}

// parts runs f over the blocks of [0, n) on p's goroutines and returns
// each block's results, in the order of the blocks.
func (p *problem) parts(n int, f func(lo, hi int) [3]float64) [][3]float64 {
	nb := (n + vecBlock - 1) / vecBlock
	part := make([][3]float64, nb)
	p.parallel(nb, func(b int) {
		lo := b * vecBlock
		part[b] = f(lo, min(lo+vecBlock, n))
	})
	return part
}

// sums adds the blocks' results, each component in the order of the
// blocks.
func sums(part [][3]float64) (s [3]float64) {
	for _, v := range part {
		s[0] += v[0]
		s[1] += v[1]
		s[2] += v[2]
	}
	return s
}

// blocks runs f over the blocks of [0, n) on p's goroutines and returns
// the sum of f's results in the order of the blocks.
func (p *problem) blocks(n int, f func(lo, hi int) float64) float64 {
	return sums(p.parts(n, func(lo, hi int) [3]float64 { return [3]float64{f(lo, hi)} }))[0]
}

// maxAbs returns the infinity norm of v.
func (p *problem) maxAbs(v []float64) float64 {
	nb := (len(v) + vecBlock - 1) / vecBlock
	part := make([]float64, nb)
	p.parallel(nb, func(b int) {
		m := 0.0
		for _, x := range v[b*vecBlock : min((b+1)*vecBlock, len(v))] {
			m = max(m, math.Abs(x))
		}
		part[b] = m
	})
	m := 0.0
	for _, x := range part {
		m = max(m, x)
	}
	return m
}

// axpyDot sets dir += c*u and returns v.dir, the new dir, in one pass.
// (dir - a*u and dir + (-a)*u round alike: negation is exact.)
func (p *problem) axpyDot(dir []float64, c float64, u, v []float64) float64 {
	return p.blocks(len(dir), func(lo, hi int) float64 {
		t := 0.0
		for i := lo; i < hi; i++ {
			dir[i] += c * u[i]
			t += v[i] * dir[i]
		}
		return t
	})
}

func (p *problem) dot(a, b []float64) float64 {
	return p.blocks(len(a), func(lo, hi int) float64 {
		s := 0.0
		for i, v := range a[lo:hi] {
			s += v * b[lo+i]
		}
		return s
	})
}

// minimize runs L-BFGS from x0 (whose slice it may reuse).
//
// ctx stops it before the next evaluation of the objective (each one
// pass over the alignment), with res.Err ctx's error.
func (p *problem) minimize(ctx context.Context, x0 []float64, opt Options) (res lbfgsResult) {
	x, n := x0, len(x0)
	defer func() { res.X = x }()
	g := make([]float64, n)
	xt := make([]float64, n) // the line search's point and its gradient
	gt := make([]float64, n)
	dir := make([]float64, n)
	m := opt.Store
	hs := make([][]float64, m)
	hy := make([][]float64, m)
	rho := make([]float64, m)
	alpha := make([]float64, m)
	for k := range hs {
		hs[k] = make([]float64, n)
		hy[k] = make([]float64, n)
	}
	stored, newest := 0, -1

	res.Iterations = 1
	if err := ctx.Err(); err != nil {
		res.Status, res.Err = optimize.Failure, err
		return res
	}
	f := p.eval(x, g)
	if math.IsInf(f, 1) || math.IsNaN(f) {
		res.F, res.Status, res.Err = f, optimize.Failure, optimize.ErrFunc(f)
		return res
	}
	for i, v := range g {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			res.F, res.Status, res.Err = f, optimize.Failure, optimize.ErrGrad{Grad: v, Index: i}
			return res
		}
	}
	conv := converger{gradTol: opt.GradTol, eps: opt.Epsilon, k: opt.K}
	res.F = f
	if res.Status = conv.checkNorm(f, p.maxAbs(g)); res.Status != optimize.NotTerminated {
		return res
	}
	if opt.MaxIterations > 0 && res.Iterations >= opt.MaxIterations {
		res.Status = optimize.IterationLimit
		return res
	}

	// The first direction: -g, a step of 1/|g|; g.dir = -g.g.
	gg := p.blocks(n, func(lo, hi int) float64 {
		s := 0.0
		for i, v := range g[lo:hi] {
			dir[lo+i] = -v
			s += v * v
		}
		return s
	})
	step := 1 / math.Sqrt(gg)
	projGrad := -gg
	ls := &optimize.MoreThuente{}
	for {
		if projGrad >= 0 {
			res.Status, res.Err = optimize.Failure, optimize.ErrNonDescentDirection
			return res
		}
		ls.Init(f, projGrad, step)
		var ft float64
		for {
			// The trial point x + step dir; no progress where it is x.
			moved := p.blocks(n, func(lo, hi int) float64 {
				changed := 0.0
				for i := lo; i < hi; i++ {
					xt[i] = x[i] + step*dir[i]
					if xt[i] != x[i] {
						changed = 1
					}
				}
				return changed
			})
			if moved == 0 {
				res.Status, res.Err = optimize.Failure, optimize.ErrNoProgress
				return res
			}
			if err := ctx.Err(); err != nil {
				res.Status, res.Err = optimize.Failure, err
				return res
			}
			ft = p.eval(xt, gt)
			op, next, err := ls.Iterate(ft, p.dot(gt, dir))
			if err != nil {
				res.Status, res.Err = optimize.Failure, err
				return res
			}
			if op == optimize.MajorIteration {
				break
			}
			step = next
		}

		// Accept the point: the newest pair s = xt - x, y = gt - g, with
		// s.y, y.y and the new gradient's infinity norm in the same pass.
		newest = (newest + 1) % m
		stored = min(stored+1, m)
		s, y := hs[newest], hy[newest]
		part := p.parts(n, func(lo, hi int) [3]float64 {
			sy, yy, mx := 0.0, 0.0, 0.0
			for i := lo; i < hi; i++ {
				s[i] = xt[i] - x[i]
				y[i] = gt[i] - g[i]
				sy += s[i] * y[i]
				yy += y[i] * y[i]
				mx = max(mx, math.Abs(gt[i]))
			}
			return [3]float64{sy, yy, mx}
		})
		sum := sums(part)
		sy, yy := sum[0], sum[1]
		gnorm := 0.0
		for _, v := range part {
			gnorm = max(gnorm, v[2])
		}
		rho[newest] = 1 / sy
		x, xt = xt, x
		g, gt = gt, g
		f = ft
		res.F = f
		res.Iterations++
		if res.Status = conv.checkNorm(f, gnorm); res.Status != optimize.NotTerminated {
			break
		}
		if opt.MaxIterations > 0 && res.Iterations >= opt.MaxIterations {
			res.Status = optimize.IterationLimit
			break
		}

		// The two-loop recursion, dir = -H g, each vector update fused
		// with the dot product that follows it: 2 Store + 1 passes.
		// dir = g, and the newest pair's s.dir.
		sn := hs[newest]
		d := p.blocks(n, func(lo, hi int) float64 {
			t := 0.0
			for i := lo; i < hi; i++ {
				dir[i] = g[i]
				t += sn[i] * dir[i]
			}
			return t
		})
		gamma := sy / yy
		for k := 0; k < stored; k++ { // newest first
			idx := (newest - k + m) % m
			alpha[idx] = rho[idx] * d
			a, yv := alpha[idx], hy[idx]
			if k < stored-1 { // then the next pair's s.dir
				d = p.axpyDot(dir, -a, yv, hs[(newest-k-1+m)%m])
				continue
			}
			// The oldest pair: then the scaling by gamma and, to start
			// the second loop at the same pair, its y.dir.
			d = p.blocks(n, func(lo, hi int) float64 {
				t := 0.0
				for i := lo; i < hi; i++ {
					dir[i] -= a * yv[i]
					dir[i] *= gamma
					t += yv[i] * dir[i]
				}
				return t
			})
		}
		for k := stored - 1; k >= 0; k-- { // oldest first
			idx := (newest - k + m) % m
			c := alpha[idx] - rho[idx]*d
			sv := hs[idx]
			if k > 0 { // then the next pair's y.dir
				d = p.axpyDot(dir, c, sv, hy[(newest-k+1+m)%m])
				continue
			}
			// The newest pair: then dir = -dir and the next line search's
			// g.dir.
			projGrad = p.blocks(n, func(lo, hi int) float64 {
				t := 0.0
				for i := lo; i < hi; i++ {
					dir[i] += c * sv[i]
					dir[i] = -dir[i]
					t += g[i] * dir[i]
				}
				return t
			})
		}
		step = 1
	}
	return res
}
