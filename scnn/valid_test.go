package scnn

import (
	"testing"
)

// naiveValid is the valid convolution of a dense (B, L, L, C) map with a
// (K, K, C, F) kernel, written as the loop it computes, in float64.
func naiveValid(x *Tensor, w, bias []float32, k, f int) *Tensor {
	b, l, c := x.Shape[0], x.Shape[1], x.Shape[3]
	lo := l - k + 1
	y := New(b, lo, lo, f)
	for s := 0; s < b; s++ {
		for i := 0; i < lo; i++ {
			for j := 0; j < lo; j++ {
				for o := 0; o < f; o++ {
					acc := float64(bias[o])
					for a := 0; a < k; a++ {
						for bb := 0; bb < k; bb++ {
							for q := 0; q < c; q++ {
								acc += float64(x.At(s, i+a, j+bb, q)) * float64(w[((a*k+bb)*c+q)*f+o])
							}
						}
					}
					y.Set(float32(acc), s, i, j, o)
				}
			}
		}
	}
	return y
}

func TestValidConvForward(t *testing.T) {
	rng := newRNG(90)
	for _, k := range []int{1, 3, 5} {
		conv := must[*Conv2D](t)(NewConv2D("c", k, 3, 4, rng))
		randn(conv.B.Value, rng)
		// 35 samples: more than one work chunk of the kernel.
		x := randTensor(rng, 35, 5, 5, 3)
		y := must[*Tensor](t)(conv.ApplyValid(nil, x))
		if lo := 5 - k + 1; y.Shape[1] != lo || y.Shape[2] != lo || y.Shape[3] != 4 {
			t.Fatalf("k=%d: output shape %v", k, y.Shape)
		}
		assertClose(t, "valid conv vs naive loop", y.Data, naiveValid(x, conv.W.Value, conv.B.Value, k, 4).Data, 1e-5)
		if k == 1 { // valid and same agree at K = 1
			assertClose(t, "valid vs same at k=1", y.Data, must[*Tensor](t)(conv.Apply(nil, x)).Data, 1e-5)
		}
	}
	conv := must[*Conv2D](t)(NewConv2D("c", 5, 3, 4, rng))
	if _, err := conv.ApplyValid(nil, randTensor(rng, 1, 3, 3, 3)); err == nil {
		t.Error("a 5x5 valid convolution of a 3x3 map did not fail")
	}
}

func TestValidConvGradient(t *testing.T) {
	rng := newRNG(91)
	conv := must[*Conv2D](t)(NewConv2D("c", 3, 3, 4, rng))
	x, r := randTensor(rng, 2, 5, 5, 3), randTensor(rng, 2, 3, 3, 4)
	f := func(p *Pass) (*Tensor, error) { return conv.ApplyValid(p, x) }
	loss := dotLoss(t, f, r, false)
	dx := backward(t, f, r, x)[0]
	checkGrad(t, "W", conv.W.Value, conv.W.Grad, nil, linEps, linTol, loss)
	checkGrad(t, "b", conv.B.Value, conv.B.Grad, nil, linEps, linTol, loss)
	checkGrad(t, "x", x.Data, dx.Data, nil, linEps, linTol, loss)
}

// The triangle-only valid spConv equals the full valid convolution with
// its tied kernel on the unpacked map, and its output is symmetric.
func TestSymPresValidEqualsFull(t *testing.T) {
	rng := newRNG(92)
	for _, k := range []int{1, 3} {
		for _, l := range []int{3, 5, 6} {
			sp := must[*SymPresConv](t)(NewSymPresConv("sp", k, 3, 4, rng))
			randn(sp.B.Value, rng)
			full := must[*Tensor](t)(Unpack(symmetricPacked(rng, 34, l, 3)))
			x := must[*Tensor](t)(Pack(full))
			y := must[*Tensor](t)(Unpack(must[*Tensor](t)(sp.ApplyValid(nil, x))))
			want := naiveValid(full, sp.Kernel(), sp.B.Value, k, 4)
			assertClose(t, "packed valid spConv vs full", y.Data, want.Data, 1e-5)
			if a := MaxAbsAsymmetry(want); a > 1e-5 {
				t.Errorf("k=%d l=%d: full output asymmetric by %g", k, l, a)
			}
		}
	}
}

// symmetricPacked returns a random packed symmetric map.
func symmetricPacked(rng interface{ NormFloat64() float64 }, b, l, c int) *Tensor {
	t := NewPacked(b, l, c)
	for i := range t.Data {
		t.Data[i] = float32(rng.NormFloat64())
	}
	return t
}

// Gradients of the triangle-only valid spConv: dL/dR and dL/dB by central
// differences of the full-map loss, and the packed dL/dx (each stored
// pixel stands for its mirrored entries too).
func TestSymPresValidGradient(t *testing.T) {
	rng := newRNG(93)
	for _, l := range []int{3, 5} {
		sp := must[*SymPresConv](t)(NewSymPresConv("sp", 3, 3, 4, rng))
		randn(sp.B.Value, rng)
		x := randPacked(rng, 2, l, 3)
		r := randPacked(rng, 2, l-2, 4)
		f := func(p *Pass) (*Tensor, error) { return sp.ApplyValid(p, x) }
		loss := dotLoss(t, f, r, false)
		dx := backward(t, f, r, x)[0]
		checkGrad(t, "R", sp.R.Value, sp.R.Grad, nil, linEps, linTol, loss)
		checkGrad(t, "b", sp.B.Value, sp.B.Grad, nil, linEps, linTol, loss)
		checkGrad(t, "x", x.Data, dx.Data, packedWeights(x), linEps, linTol, loss)
	}
}

func TestGlobalAvgPool(t *testing.T) {
	rng := newRNG(94)
	x := randPacked(rng, 3, 4, 2)
	full := must[*Tensor](t)(Unpack(x))
	yp := must[*Tensor](t)(GlobalAvgPool(nil, x))
	yf := must[*Tensor](t)(GlobalAvgPool(nil, full))
	assertClose(t, "packed vs full pooling", yp.Data, yf.Data, 1e-6)
	var want float64
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			want += float64(full.At(1, i, j, 1))
		}
	}
	if got := yf.At(1, 1); abs64(float64(got)-want/16) > 1e-6 {
		t.Errorf("mean of sample 1 channel 1: %g, want %g", got, want/16)
	}
	r := randTensor(rng, 3, 2)
	for name, in := range map[string]*Tensor{"dense": full, "packed": x} {
		f := func(p *Pass) (*Tensor, error) { return GlobalAvgPool(p, in) }
		var scale []float64
		if in.Layout == Packed {
			scale = packedWeights(in)
		}
		checkGrad(t, name, in.Data, backward(t, f, r, in)[0].Data, scale, linEps, linTol, dotLoss(t, f, r, false))
	}
}

func abs64(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
