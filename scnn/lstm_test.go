package scnn

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

func TestBiLSTMGradient(t *testing.T) {
	rng := newRNG(80)
	l := must[*BiLSTM](t)(NewBiLSTM("lstm", 3, 4, rng))
	x := randTensor(rng, 3, 6, 3)
	lengths := []int{6, 4, 1}
	r := randTensor(rng, 3, 6, 8)
	f := func(p *Pass) (*Tensor, error) { return l.Apply(p, x, lengths) }
	loss := dotLoss(t, f, r, false)
	dx := backward(t, f, r, x)[0]
	for _, p := range l.Params() {
		checkGrad(t, p.Name, p.Value, p.Grad, nil, nlEps, nlTol, loss)
	}
	checkGrad(t, "x", x.Data, dx.Data, nil, nlEps, nlTol, loss)
	for s, n := range lengths {
		for tt := n; tt < 6; tt++ {
			for k := 0; k < 3; k++ {
				if dx.At(s, tt, k) != 0 {
					t.Fatalf("gradient at padding (%d,%d)", s, tt)
				}
			}
		}
	}
}

// With the two directions' weights swapped, reversing a sequence swaps the
// forward and backward outputs (reversed in time).
func TestBiLSTMReverse(t *testing.T) {
	rng := newRNG(81)
	l := must[*BiLSTM](t)(NewBiLSTM("lstm", 3, 5, rng))
	r := &BiLSTM{In: 3, Hidden: 5, Fwd: &LSTMDirection{Wx: l.Bwd.Wx, Wh: l.Bwd.Wh, B: l.Bwd.B},
		Bwd: &LSTMDirection{Wx: l.Fwd.Wx, Wh: l.Fwd.Wh, B: l.Fwd.B, reverse: true}}
	const n = 7
	x := randTensor(rng, 1, n, 3)
	xr := New(1, n, 3)
	for tt := 0; tt < n; tt++ {
		copy(xr.Data[tt*3:(tt+1)*3], x.Data[(n-1-tt)*3:(n-tt)*3])
	}
	y := must[*Tensor](t)(l.Apply(nil, x, []int{n}))
	yr := must[*Tensor](t)(r.Apply(nil, xr, []int{n}))
	for tt := 0; tt < n; tt++ {
		for k := 0; k < 5; k++ {
			if y.At(0, tt, k) != yr.At(0, n-1-tt, 5+k) || y.At(0, tt, 5+k) != yr.At(0, n-1-tt, k) {
				t.Fatalf("t=%d k=%d: outputs not swapped", tt, k)
			}
		}
	}
	// With shared weights, the backward direction of x is not the forward
	// direction: the check above is not vacuous.
	if y.At(0, 0, 0) == y.At(0, n-1, 5) {
		t.Error("degenerate weights")
	}
}

// Padding a batch (longer L, other samples) does not change valid outputs
// or input gradients. Values agree to float32 rounding, not bit for bit:
// the input projections are one GEMM over the batch, and BLAS blocking (so
// the summation order) depends on the matrix size.
func TestBiLSTMPaddingInvariance(t *testing.T) {
	rng := newRNG(82)
	l := must[*BiLSTM](t)(NewBiLSTM("lstm", 2, 3, rng))
	x := randTensor(rng, 1, 5, 2)
	f := func(p *Pass) (*Tensor, error) { return l.Apply(p, x, []int{5}) }
	y := must[*Tensor](t)(f(nil))
	r := randTensor(rng, 1, 5, 6)
	dx := backward(t, f, r, x)[0]

	xp := randTensor(rng, 2, 9, 2) // sample 1 is x padded with noise
	copy(xp.Data[9*2:9*2+10], x.Data)
	fp := func(p *Pass) (*Tensor, error) { return l.Apply(p, xp, []int{9, 5}) }
	yp := must[*Tensor](t)(fp(nil))
	rp := randTensor(rng, 2, 9, 6)
	copy(rp.Data[9*6:9*6+30], r.Data)
	dxp := backward(t, fp, rp, xp)[0]
	for tt := 0; tt < 9; tt++ {
		for k := 0; k < 6; k++ {
			want := float32(0)
			if tt < 5 {
				want = y.At(0, tt, k)
			}
			if math.Abs(float64(yp.At(1, tt, k)-want)) > 1e-6 {
				t.Fatalf("t=%d k=%d: padded %v, alone %v", tt, k, yp.At(1, tt, k), want)
			}
		}
	}
	for tt := 0; tt < 5; tt++ {
		for k := 0; k < 2; k++ {
			if math.Abs(float64(dxp.At(1, tt, k)-dx.At(0, tt, k))) > 1e-6 {
				t.Fatalf("dx t=%d: padded %v, alone %v", tt, dxp.At(1, tt, k), dx.At(0, tt, k))
			}
		}
	}
}

// The two directions run on their own workers: the output, every
// parameter gradient and dL/dx have the same bits on one worker and on
// two, with 4*hidden past one K block of the Go sgemm (dL/dx's two
// parts added in a fixed order).
func TestBiLSTMWorkers(t *testing.T) {
	rng := newRNG(81)
	x := randTensor(rng, 3, 7, 5)
	lengths := []int{7, 5, 2}
	r := randTensor(rng, 3, 7, 80)
	type result struct {
		y, dx []float32
		grads [][]float32
	}
	run := func(workers int) result {
		l := must[*BiLSTM](t)(NewBiLSTM("lstm", 5, 40, newRNG(82)))
		p := Training(workers)
		p.Watch(x)
		y := must[*Tensor](t)(l.Apply(p, x, lengths))
		if err := p.Backward(y, r); err != nil {
			t.Fatal(err)
		}
		res := result{y: y.Data, dx: p.Grad(x).Data}
		for _, q := range l.Params() {
			res.grads = append(res.grads, q.Grad)
		}
		return res
	}
	same := func(name string, a, b []float32) {
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("%s[%d]: %v on one worker, %v on two", name, i, a[i], b[i])
			}
		}
	}
	one, two := run(1), run(2)
	same("y", one.y, two.y)
	same("dx", one.dx, two.dx)
	// dL/dx as the directions were run before they had workers of their
	// own: forward's part onto zeros, then backward's.
	l := must[*BiLSTM](t)(NewBiLSTM("lstm", 5, 40, newRNG(82)))
	ref := make([]float32, len(x.Data))
	for k, d := range []*LSTMDirection{l.Fwd, l.Bwd} {
		dh := make([]float32, 3*7*40)
		for q := 0; q < 3*7; q++ {
			copy(dh[q*40:(q+1)*40], r.Data[q*80+k*40:q*80+(k+1)*40])
		}
		dxg := d.backward(d.forward(x, lengths, 40), x, lengths, dh, 40)
		kern.Gemm(false, true, 3*7, 5, 4*40, 1, dxg, 4*40, d.Wx.Value, 4*40, 1, ref, 5)
	}
	same("dx against the sequential order", ref, one.dx)
	for i := range one.grads {
		same("grad", one.grads[i], two.grads[i])
	}
}

// BenchmarkBiLSTMWorkers times a BiLSTM's forward and backward pass at
// the RNA recipe's size (batch 10, 128 positions, 4 inputs, 24 hidden) on
// one worker and on two (one per direction), alternating; "one/two" is
// the median ratio of neighbouring runs.
func BenchmarkBiLSTMWorkers(b *testing.B) {
	rng := newRNG(83)
	l, err := NewBiLSTM("lstm", 4, 24, rng)
	if err != nil {
		b.Fatal(err)
	}
	x := randTensor(rng, 10, 128, 4)
	lengths := make([]int, 10)
	for i := range lengths {
		lengths[i] = 128
	}
	r := randTensor(rng, 10, 128, 48)
	run := func(workers int) float64 {
		s := time.Now()
		p := Training(workers)
		p.Watch(x)
		y, err := l.Apply(p, x, lengths)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Backward(y, r); err != nil {
			b.Fatal(err)
		}
		return time.Since(s).Seconds()
	}
	run(1)
	run(2)
	var ratios []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o0, n0 := run(1), run(2)
		n1, o1 := run(2), run(1)
		ratios = append(ratios, o0/n0, o1/n1)
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "one/two")
}
