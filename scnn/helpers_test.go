package scnn

import (
	"math"
	"math/rand/v2"
	"testing"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

func randn(v []float32, rng *rand.Rand) {
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
}

func randTensor(rng *rand.Rand, shape ...int) *Tensor {
	t := New(shape...)
	randn(t.Data, rng)
	return t
}

func randPacked(rng *rand.Rand, b, l, c int) *Tensor {
	t := NewPacked(b, l, c)
	randn(t.Data, rng)
	return t
}

// packedWeights returns, per stored element of a packed tensor, how many
// entries of the full map it stands for: 2 off the diagonal, 1 on it.
func packedWeights(t *Tensor) []float64 {
	w := make([]float64, len(t.Data))
	b, l, c := t.Shape[0], t.Shape[1], t.Shape[3]
	p := 0
	for s := 0; s < b; s++ {
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				for k := 0; k < c; k++ {
					w[p] = 2
					if i == j {
						w[p] = 1
					}
					p++
				}
			}
		}
	}
	return w
}

// fullDot is sum over the full map of r*y in float64 (y and r of the same
// shape and layout): the test loss whose output gradient is r.
func fullDot(y, r *Tensor) float64 {
	var w []float64
	if y.Layout == Packed {
		w = packedWeights(y)
	}
	s := 0.0
	for i, v := range y.Data {
		t := float64(v) * float64(r.Data[i])
		if w != nil {
			t *= w[i]
		}
		s += t
	}
	return s
}

// checkGrad compares analytic gradients with central differences of loss
// for every element of v (or a sample of at most 60 of them). scale[i], if
// not nil, multiplies the analytic value (packed inputs: a stored element
// stands for scale[i] entries of the full map).
func checkGrad(t *testing.T, name string, v []float32, analytic []float32, scale []float64, eps, tol float64, loss func() float64) {
	t.Helper()
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	if len(idx) > 60 {
		rng := newRNG(uint64(len(v)))
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:60]
	}
	worst := 0.0
	for _, i := range idx {
		old := v[i]
		v[i] = old + float32(eps)
		lp := loss()
		v[i] = old - float32(eps)
		lm := loss()
		v[i] = old
		num := (lp - lm) / (2 * eps)
		an := float64(analytic[i])
		if scale != nil {
			an *= scale[i]
		}
		err := math.Abs(num-an) / math.Max(1, math.Abs(num)+math.Abs(an))
		worst = max(worst, err)
		if err > tol || math.IsNaN(err) {
			t.Errorf("%s[%d]: numeric %.6g analytic %.6g (rel err %.3g > %.3g)", name, i, num, an, err, tol)
			return
		}
	}
	t.Logf("%s: worst relative error %.2g over %d elements", name, worst, len(idx))
}

func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	m := 0.0
	for i := range a {
		d := math.Abs(float64(a[i] - b[i]))
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		m = max(m, d)
	}
	return m
}

func maxAbs(a []float32) float64 {
	m := 0.0
	for _, v := range a {
		m = max(m, math.Abs(float64(v)))
	}
	return m
}

// assertClose fails unless max|a-b| <= tol * max(1, max|b|).
func assertClose(t *testing.T, what string, a, b []float32, tol float64) {
	t.Helper()
	d := maxAbsDiff(a, b)
	if d > tol*math.Max(1, maxAbs(b)) {
		t.Errorf("%s: max abs difference %.3g (scale %.3g, tol %.3g)", what, d, maxAbs(b), tol)
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// op is a forward computation under test, in a given pass.
type op func(p *Pass) (*Tensor, error)

// backward runs f in a training pass, steps back from the output gradient
// r and returns the gradients of xs (zeros where the loss does not depend
// on one). Parameter gradients accumulate in their Params.
func backward(t *testing.T, f op, r *Tensor, xs ...*Tensor) []*Tensor {
	t.Helper()
	p := Training(0)
	p.Watch(xs...)
	y, err := f(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Backward(y, r); err != nil {
		t.Fatal(err)
	}
	out := make([]*Tensor, len(xs))
	for i, x := range xs {
		if out[i] = p.Grad(x); out[i] == nil {
			out[i] = ZerosLike(x)
		}
	}
	return out
}

// dotLoss returns the test loss fullDot(f(pass), r), each call in a new
// training or inference pass.
func dotLoss(t *testing.T, f op, r *Tensor, train bool) func() float64 {
	return func() float64 {
		p := Inference(0)
		if train {
			p = Training(0)
		}
		return fullDot(must[*Tensor](t)(f(p)), r)
	}
}

// randLike returns a random tensor of t's shape and layout.
func randLike(rng *rand.Rand, t *Tensor) *Tensor {
	r := ZerosLike(t)
	randn(r.Data, rng)
	return r
}
