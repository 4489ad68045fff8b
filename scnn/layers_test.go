package scnn

import (
	"math"
	"testing"
)

// Nonlinear layers: central differences with step 1e-2 in float32 carry a
// truncation error O(eps²) ~ 1e-4 and a rounding error ~ 1e-7/1e-2 ~ 1e-5
// relative; 2e-2 leaves room for both with sums of a few hundred terms.
const nlEps, nlTol = 1e-2, 2e-2

func TestBatchNormGradient(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(map[bool]string{false: "rowmajor", true: "packed"}[packed], func(t *testing.T) {
			rng := newRNG(70)
			bn := NewBatchNorm2D("bn", 3)
			randn(bn.Gamma.Value, rng)
			randn(bn.Beta.Value, rng)
			var x, r *Tensor
			if packed {
				x, r = randPacked(rng, 3, 5, 3), randPacked(rng, 3, 5, 3)
			} else {
				x, r = randTensor(rng, 3, 5, 5, 3), randTensor(rng, 3, 5, 5, 3)
			}
			lengths := []int{5, 3, 4}
			for i := range bn.RunVar.Value {
				bn.RunVar.Value[i] = 0.5 + float32(i)
				bn.RunMean.Value[i] = 0.1 * float32(i)
			}
			for _, frozen := range []bool{false, true} {
				clear(bn.Gamma.Grad)
				clear(bn.Beta.Grad)
				mean, vr := append([]float32(nil), bn.RunMean.Value...), append([]float32(nil), bn.RunVar.Value...)
				f := func(p *Pass) (*Tensor, error) {
					copy(bn.RunMean.Value, mean) // batch statistics move them
					copy(bn.RunVar.Value, vr)
					p.RunningStats = frozen
					return bn.Apply(p, x, lengths)
				}
				loss := dotLoss(t, f, r, true)
				dx := backward(t, f, r, x)[0]
				var scale []float64
				if packed {
					scale = packedWeights(x)
				}
				name := map[bool]string{false: "batch stats", true: "running stats"}[frozen]
				checkGrad(t, name+"/gamma", bn.Gamma.Value, bn.Gamma.Grad, nil, nlEps, nlTol, loss)
				checkGrad(t, name+"/beta", bn.Beta.Value, bn.Beta.Grad, nil, nlEps, nlTol, loss)
				checkGrad(t, name+"/x", x.Data, dx.Data, scale, nlEps, nlTol, loss)
			}
		})
	}
}

// An inference pass normalises with the running statistics, zero at
// padding; in place it writes the same values over its input.
func TestBatchNormInference(t *testing.T) {
	rng := newRNG(75)
	bn := NewBatchNorm2D("bn", 3)
	randn(bn.Gamma.Value, rng)
	randn(bn.Beta.Value, rng)
	for i := range bn.RunVar.Value {
		bn.RunVar.Value[i] = 0.5 + float32(i)
		bn.RunMean.Value[i] = 0.1 * float32(i)
	}
	x := randPacked(rng, 2, 5, 3)
	lengths := []int{5, 3}
	y := must[*Tensor](t)(bn.Apply(Inference(1), x, lengths))
	for s, n := range lengths {
		for i := 0; i < 5; i++ {
			for j := i; j < 5; j++ {
				for k := 0; k < 3; k++ {
					want := 0.0
					if i < n && j < n {
						want = float64(bn.Gamma.Value[k])*(float64(x.At(s, i, j, k))-float64(bn.RunMean.Value[k]))/math.Sqrt(float64(bn.RunVar.Value[k])+bn.Eps) + float64(bn.Beta.Value[k])
					}
					if d := math.Abs(float64(y.At(s, i, j, k)) - want); d > 1e-5 {
						t.Fatalf("(%d,%d,%d,%d): %v, want %v", s, i, j, k, y.At(s, i, j, k), want)
					}
				}
			}
		}
	}
	in := x.Clone()
	if z := must[*Tensor](t)(bn.ApplyInPlace(nil, in, lengths)); z != in || maxAbsDiff(in.Data, y.Data) != 0 {
		t.Error("in place differs")
	}
	if _, err := bn.ApplyInPlace(Training(0), x.Clone(), lengths); err == nil {
		t.Error("in place accepted in a training pass")
	}
}

// Batchnorm of a packed triangle (off-diagonal weighted twice) equals
// batchnorm of the full symmetric map, forward, backward and running stats;
// padding neither enters the statistics nor leaves the zero.
func TestBatchNormPackedEqualsFull(t *testing.T) {
	rng := newRNG(71)
	xp := randPacked(rng, 4, 9, 5)
	lengths := []int{9, 6, 7, 2}
	xd := must[*Tensor](t)(Unpack(xp))
	bp, bd := NewBatchNorm2D("p", 5), NewBatchNorm2D("d", 5)
	randn(bp.Gamma.Value, rng)
	copy(bd.Gamma.Value, bp.Gamma.Value)
	fp := func(p *Pass) (*Tensor, error) { return bp.Apply(p, xp, lengths) }
	fd := func(p *Pass) (*Tensor, error) { return bd.Apply(p, xd, lengths) }
	yp := must[*Tensor](t)(fp(Training(0)))
	yd := must[*Tensor](t)(fd(Training(0)))
	assertClose(t, "forward", must[*Tensor](t)(Unpack(yp)).Data, yd.Data, 1e-5)
	assertClose(t, "running mean", bp.RunMean.Value, bd.RunMean.Value, 1e-6)
	assertClose(t, "running var", bp.RunVar.Value, bd.RunVar.Value, 1e-6)
	for s, n := range lengths {
		for i := 0; i < 9; i++ {
			for j := 0; j < 9; j++ {
				if (i >= n || j >= n) && yd.At(s, i, j, 0) != 0 {
					t.Fatalf("padding (%d,%d,%d) not zero", s, i, j)
				}
			}
		}
	}
	dyp := randPacked(rng, 4, 9, 5)
	dxp := backward(t, fp, dyp, xp)[0]
	dxd := backward(t, fd, must[*Tensor](t)(Unpack(dyp)), xd)[0]
	assertClose(t, "dx", must[*Tensor](t)(Unpack(dxp)).Data, dxd.Data, 1e-5)
	assertClose(t, "dgamma", bp.Gamma.Grad, bd.Gamma.Grad, 1e-5)
	assertClose(t, "dbeta", bp.Beta.Grad, bd.Beta.Grad, 1e-5)

	// Changing padded values changes nothing.
	xd2 := xd.Clone()
	for s, n := range lengths {
		for i := 0; i < 9; i++ {
			for j := 0; j < 9; j++ {
				if i >= n || j >= n {
					xd2.Set(1e3, s, i, j, 1)
				}
			}
		}
	}
	bd2 := NewBatchNorm2D("d2", 5)
	copy(bd2.Gamma.Value, bp.Gamma.Value)
	yd2 := must[*Tensor](t)(bd2.Apply(Training(0), xd2, lengths))
	if d := maxAbsDiff(yd2.Data, yd.Data); d != 0 {
		t.Errorf("padding values changed the output by %g", d)
	}
}

func TestDenseGradient(t *testing.T) {
	rng := newRNG(72)
	d := must[*Dense](t)(NewDense("d", 4, 3, rng))
	x, r := randTensor(rng, 2, 5, 4), randTensor(rng, 2, 5, 3)
	f := func(p *Pass) (*Tensor, error) { return d.Apply(p, x) }
	loss := dotLoss(t, f, r, false)
	dx := backward(t, f, r, x)[0]
	checkGrad(t, "W", d.W.Value, d.W.Grad, nil, linEps, linTol, loss)
	checkGrad(t, "b", d.B.Value, d.B.Grad, nil, linEps, linTol, loss)
	checkGrad(t, "x", x.Data, dx.Data, nil, linEps, linTol, loss)
}

func TestActivationGradients(t *testing.T) {
	rng := newRNG(73)
	x, r := randTensor(rng, 2, 3, 3, 2), randTensor(rng, 2, 3, 3, 2)
	for i := range x.Data { // keep ReLU inputs away from the kink
		if math.Abs(float64(x.Data[i])) < 0.05 {
			x.Data[i] = 0.5
		}
	}
	for name, f := range map[string]op{
		"relu":    func(p *Pass) (*Tensor, error) { return ReLU(p, x), nil },
		"sigmoid": func(p *Pass) (*Tensor, error) { return Sigmoid(p, x), nil },
	} {
		checkGrad(t, name, x.Data, backward(t, f, r, x)[0].Data, nil, nlEps, nlTol, dotLoss(t, f, r, false))
	}
	c := x.Clone()
	p := Training(0)
	p.Watch(c)
	y := ReLUInPlace(p, c)
	if y != c {
		t.Fatal("ReLUInPlace returned another tensor")
	}
	if err := p.Backward(y, r); err != nil {
		t.Fatal(err)
	}
	want := backward(t, func(p *Pass) (*Tensor, error) { return ReLU(p, x), nil }, r, x)[0]
	if maxAbsDiff(p.Grad(c).Data, want.Data) != 0 {
		t.Error("ReLUInPlace gradient differs from ReLU's")
	}
	if y := Sigmoid(nil, must[*Tensor](t)(FromData([]float32{0, 100, -100}, 3))).Data; y[0] != 0.5 || y[1] != 1 || y[2] <= 0 || y[2] > 1e-40 {
		t.Errorf("sigmoid(0, 100, -100) = %v", y)
	}
}

func TestConcat(t *testing.T) {
	rng := newRNG(74)
	a, b := randPacked(rng, 2, 4, 3), randPacked(rng, 2, 4, 2)
	f := func(p *Pass) (*Tensor, error) { return Concat(p, a, b) }
	y := must[*Tensor](t)(f(nil))
	if y.Layout != Packed || y.Shape[3] != 5 {
		t.Fatalf("got %s %v", y.Layout, y.Shape)
	}
	if y.At(1, 3, 2, 4) != b.At(1, 2, 3, 1) || y.At(0, 1, 2, 0) != a.At(0, 1, 2, 0) {
		t.Error("wrong placement")
	}
	parts := backward(t, f, y, a, b)
	if maxAbsDiff(parts[0].Data, a.Data) != 0 || maxAbsDiff(parts[1].Data, b.Data) != 0 {
		t.Error("the backward step does not split back")
	}
	if _, err := Concat(nil, a, randTensor(rng, 2, 4, 4, 2)); err == nil {
		t.Error("mixed layouts accepted")
	}
}

func TestWeightedBCE(t *testing.T) {
	// Hand-made: one sample, L = 3, pairs (0,1) (0,2) (1,2).
	z := must[*Tensor](t)(FromData([]float32{
		0, 0, 2,
		9, 0, -1,
		9, 9, 0}, 1, 3, 3, 1))
	labels := []float32{0, 1, 0, 0, 0, 1, 0, 0, 0}
	mask := []float32{0, 1, 1, 0, 0, 0, 0, 0, 0} // (1,2) masked out
	loss, grad := func() (float64, *Tensor) {
		l, g, err := WeightedBCE{PosWeight: 5}.Forward(z, labels, mask)
		if err != nil {
			t.Fatal(err)
		}
		return l, g
	}()
	want := (5*math.Log(2) + math.Log(1+math.Exp(2))) / 2
	if math.Abs(loss-want) > 1e-12 {
		t.Errorf("loss %v, want %v", loss, want)
	}
	if g := grad.At(0, 0, 1, 0); math.Abs(float64(g)-5*(0.5-1)/2) > 1e-7 {
		t.Errorf("grad (0,1) = %v", g)
	}
	if grad.At(0, 1, 0, 0) != 0 || grad.At(0, 1, 2, 0) != 0 {
		t.Error("gradient outside the counted upper triangle")
	}

	// Finite differences, row-major and packed.
	rng := newRNG(75)
	const b, l = 2, 6
	lab, msk := make([]float32, b*l*l), make([]float32, b*l*l)
	for i := range lab {
		lab[i] = float32(rng.IntN(2))
		msk[i] = 1
		if rng.IntN(5) == 0 {
			msk[i] = 0
		}
	}
	for _, zt := range []*Tensor{randTensor(rng, b, l, l, 1), randPacked(rng, b, l, 1)} {
		lossf := func() float64 {
			v, _, err := WeightedBCE{PosWeight: 5}.Forward(zt, lab, msk)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		_, g, _ := WeightedBCE{PosWeight: 5}.Forward(zt, lab, msk)
		var scale []float64
		if zt.Layout == Packed {
			scale = packedWeights(zt)
		}
		checkGrad(t, "logits/"+zt.Layout.String(), zt.Data, g.Data, scale, 1e-3, 1e-3, lossf)
	}
	z.Data[1] = float32(math.NaN())
	if _, _, err := (WeightedBCE{PosWeight: 5}).Forward(z, labels, mask); err == nil {
		t.Error("NaN logit accepted")
	}
}

// WeightedBCE gives the bits of the loss written with two softplus
// calls and the logistic function, 1/(1+exp(-z)), over logits of both
// signs, large and small, on both layouts: computing log1p(exp(-|z|))
// once changes nothing.
func TestWeightedBCEBits(t *testing.T) {
	softplus := func(z float64) float64 { return max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) }
	rng := newRNG(77)
	const b, l, pw = 3, 9, 5.0
	lab, msk := make([]float32, b*l*l), make([]float32, b*l*l)
	for i := range lab {
		lab[i] = float32(rng.IntN(2))
		if rng.IntN(4) > 0 { // a quarter masked out
			msk[i] = 1
		}
	}
	for _, zt := range []*Tensor{randTensor(rng, b, l, l, 1), randPacked(rng, b, l, 1)} {
		for i := range zt.Data {
			zt.Data[i] *= float32([]float64{0.01, 1, 30}[i%3])
		}
		// The boundary of the sigmoid's two branches, both zeros.
		zt.Data[1], zt.Data[len(zt.Data)/2] = 0, float32(math.Copysign(0, -1))
		loss, g, err := WeightedBCE{PosWeight: pw, Workers: 1}.Forward(zt, lab, msk)
		if err != nil {
			t.Fatal(err)
		}
		half := 1.0
		idx := func(s, i, j int) int { return (s*l+i)*l + j }
		if zt.Layout == Packed {
			half = 0.5
			idx = func(s, i, j int) int { return s*l*(l+1)/2 + PackedIndex(l, i, j) }
		}
		want := make([]float32, len(g.Data))
		sum, n := 0.0, 0
		for s := 0; s < b; s++ {
			ss := 0.0
			for i := 0; i < l; i++ {
				for j := i + 1; j < l; j++ {
					m := (s*l+i)*l + j
					if msk[m] == 0 {
						continue
					}
					zz, y := float64(zt.Data[idx(s, i, j)]), float64(lab[m])
					ss += pw*y*softplus(-zz) + (1-y)*softplus(zz)
					sg := 1 / (1 + math.Exp(-zz))
					want[idx(s, i, j)] = float32(half * (pw*y*(sg-1) + (1-y)*sg))
					n++
				}
			}
			sum += ss
		}
		for i := range want {
			want[i] /= float32(n)
		}
		if math.Float64bits(loss) != math.Float64bits(sum/float64(n)) {
			t.Errorf("%s: loss %v, want %v", zt.Layout, loss, sum/float64(n))
		}
		for i := range want {
			if math.Float32bits(g.Data[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: grad[%d] = %v, want %v", zt.Layout, i, g.Data[i], want[i])
			}
		}
	}
}

func TestMaskPixels(t *testing.T) {
	rng := newRNG(76)
	p := randPacked(rng, 2, 5, 2)
	d := must[*Tensor](t)(Unpack(p))
	lengths := []int{5, 3}
	if _, err := MaskPixels(nil, p, lengths); err != nil {
		t.Fatal(err)
	}
	if _, err := MaskPixels(nil, d, lengths); err != nil {
		t.Fatal(err)
	}
	if maxAbsDiff(must[*Tensor](t)(Unpack(p)).Data, d.Data) != 0 {
		t.Error("packed and row-major masks differ")
	}
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			v, valid := d.At(1, i, j, 1), i < 3 && j < 3
			if valid == (v == 0) {
				t.Fatalf("(%d,%d) valid=%v value %v", i, j, valid, v)
			}
		}
	}
}

// The in-place ReLU gives exactly what ReLU gives, forward and backward,
// NaN, signed zeros and chunk boundaries included.
func TestReLUInPlace(t *testing.T) {
	rng := newRNG(7)
	x := randTensor(rng, 3, chunkRows+5)
	x.Data[0], x.Data[1], x.Data[2] = float32(math.NaN()), float32(math.Copysign(0, -1)), 0
	dy := randTensor(rng, 3, chunkRows+5)
	f := func(p *Pass) (*Tensor, error) { return ReLU(p, x), nil }
	want := must[*Tensor](t)(f(nil))
	wantDx := backward(t, f, dy, x)[0]
	xc := x.Clone()
	got := ReLUInPlace(nil, xc.Clone())
	gotDx := backward(t, func(p *Pass) (*Tensor, error) { return ReLUInPlace(p, xc), nil }, dy, xc)[0]
	for i := range want.Data {
		if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
			t.Fatalf("forward %d: %v, want %v", i, got.Data[i], want.Data[i])
		}
		if math.Float32bits(gotDx.Data[i]) != math.Float32bits(wantDx.Data[i]) {
			t.Fatalf("backward %d: %v, want %v", i, gotDx.Data[i], wantDx.Data[i])
		}
	}
	pass := Training(0)
	y := ReLUInPlace(pass, x.Clone())
	if err := pass.Backward(y, randTensor(rng, 2, 2)); err == nil {
		t.Error("mismatched gradient accepted")
	}
}

// ConcatInPlace equals Concat whichever input grows, when the buffer has
// room (the result then uses it) and when it has not; an inference pass's
// pool hands released buffers to later outputs.
func TestConcatInPlace(t *testing.T) {
	rng := newRNG(77)
	for base := 0; base < 3; base++ {
		for _, room := range []bool{true, false} {
			xs := []*Tensor{randPacked(rng, 2, 9, 3), randPacked(rng, 2, 9, 5), randPacked(rng, 2, 9, 2)}
			want := must[*Tensor](t)(Concat(nil, xs...))
			p := Inference(1)
			if room {
				p.Reserve(want.Len())
			}
			g := must[*Tensor](t)(p.newTensor(Packed, xs[base].Shape))
			copy(g.Data, xs[base].Data)
			buf := g.Data[:1]
			ys := append([]*Tensor(nil), xs...)
			ys[base] = g
			got := must[*Tensor](t)(ConcatInPlace(p, base, ys...))
			if !SameShape(got, want) || maxAbsDiff(got.Data, want.Data) != 0 {
				t.Fatalf("base %d room %v: differs from Concat", base, room)
			}
			if inPlace := &got.Data[0] == &buf[0]; inPlace != room {
				t.Errorf("base %d room %v: in place %v", base, room, inPlace)
			}
		}
	}
	p := Inference(1)
	a := must[*Tensor](t)(p.newTensor(RowMajor, []int{100}))
	p.Release(a)
	b := must[*Tensor](t)(p.newTensor(RowMajor, []int{60}))
	if len(p.pool) != 0 || cap(b.Data) != 100 {
		t.Error("a released buffer was not reused")
	}
	for _, v := range b.Data {
		if v != 0 {
			t.Fatal("a reused buffer is not zeroed")
		}
	}
}

// A training pass computes input gradients only for watched inputs and
// outputs of recorded operations: an unwatched input gets none, and the
// parameter gradients are the same either way.
func TestUnwatchedInputs(t *testing.T) {
	rng := newRNG(78)
	d := must[*Dense](t)(NewDense("d", 4, 3, rng))
	x, r := randTensor(rng, 2, 5, 4), randTensor(rng, 2, 5, 3)
	grads := func(watch bool) ([]float32, *Tensor) {
		d.W.ZeroGrad()
		p := Training(0)
		if watch {
			p.Watch(x)
		}
		y := must[*Tensor](t)(d.Apply(p, x))
		if err := p.Backward(y, r); err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), d.W.Grad...), p.Grad(x)
	}
	w1, dx1 := grads(true)
	w2, dx2 := grads(false)
	if dx1 == nil || dx2 != nil {
		t.Errorf("watched input gradient %v, unwatched %v", dx1 != nil, dx2 != nil)
	}
	if maxAbsDiff(w1, w2) != 0 {
		t.Error("parameter gradients depend on watching the input")
	}
}
