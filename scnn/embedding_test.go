package scnn

import (
	"testing"
)

func TestEmbeddingLookupGradient(t *testing.T) {
	rng := newRNG(95)
	e := must[*Embedding](t)(NewEmbedding("e", 7, 3, 1, rng))
	ids := []int32{2, 5, 2, 0, 6, 2} // repeated ids accumulate
	r := randTensor(rng, 2, 3, 3)
	f := func(p *Pass) (*Tensor, error) { return e.Lookup(p, ids, 2, 3) }
	y := must[*Tensor](t)(f(nil))
	if y.At(1, 1, 2) != e.W.Value[6*3+2] {
		t.Errorf("lookup (1,1) = row %v, want row 6", y.Data[12:15])
	}
	backward(t, f, r)
	checkGrad(t, "W", e.W.Value, e.W.Grad, nil, linEps, linTol, dotLoss(t, f, r, false))
	for _, row := range []int{1, 3, 4} { // never looked up: no gradient
		for k := 0; k < 3; k++ {
			if e.W.Grad[row*3+k] != 0 {
				t.Errorf("row %d not looked up has gradient %v", row, e.W.Grad[row*3:row*3+3])
			}
		}
	}
	for _, bad := range [][]int32{{7}, {-1}} {
		if _, err := e.Lookup(nil, bad, 1); err == nil {
			t.Errorf("id %d did not fail", bad[0])
		}
	}
	if _, err := e.Lookup(nil, ids, 4); err == nil {
		t.Error("6 ids for shape (4) did not fail")
	}
}

func TestRowDotGradient(t *testing.T) {
	rng := newRNG(96)
	w, x, bias := randTensor(rng, 3, 4, 5), randTensor(rng, 3, 5), randTensor(rng, 3, 4, 1)
	r := randTensor(rng, 3, 4)
	f := func(p *Pass) (*Tensor, error) { return RowDot(p, w, x, bias) }
	y := must[*Tensor](t)(f(nil))
	want := float64(bias.At(2, 1, 0))
	for k := 0; k < 5; k++ {
		want += float64(w.At(2, 1, k)) * float64(x.At(2, k))
	}
	if abs64(float64(y.At(2, 1))-want) > 1e-5 {
		t.Errorf("y[2,1] = %g, want %g", y.At(2, 1), want)
	}
	g := backward(t, f, r, w, x, bias)
	loss := dotLoss(t, f, r, false)
	checkGrad(t, "w", w.Data, g[0].Data, nil, linEps, linTol, loss)
	checkGrad(t, "x", x.Data, g[1].Data, nil, linEps, linTol, loss)
	checkGrad(t, "bias", bias.Data, g[2].Data, nil, linEps, linTol, loss)
	if _, err := RowDot(nil, w, randTensor(rng, 3, 4), nil); err == nil {
		t.Error("mismatched widths did not fail")
	}
}

func TestTanhGradient(t *testing.T) {
	rng := newRNG(97)
	x, r := randTensor(rng, 4, 6), randTensor(rng, 4, 6)
	f := func(p *Pass) (*Tensor, error) { return Tanh(p, x), nil }
	checkGrad(t, "tanh", x.Data, backward(t, f, r, x)[0].Data, nil, nlEps, nlTol, dotLoss(t, f, r, false))
}

// Dropout: identity in inference; in training, a seeded mask that keeps
// about 1-rate of the elements scaled by 1/(1-rate), the same mask for
// the same seed, and a gradient through that mask.
func TestDropout(t *testing.T) {
	rng := newRNG(98)
	x := randTensor(rng, 50, 40)
	if y := must[*Tensor](t)(Dropout(Inference(0), x, 0.5, newRNG(1))); y != x {
		t.Error("inference dropout is not the identity")
	}
	if _, err := Dropout(Training(0), x, 1, newRNG(1)); err == nil {
		t.Error("rate 1 did not fail")
	}
	y1 := must[*Tensor](t)(Dropout(Training(0), x, 0.5, newRNG(1)))
	y2 := must[*Tensor](t)(Dropout(Training(0), x, 0.5, newRNG(1)))
	if maxAbsDiff(y1.Data, y2.Data) != 0 {
		t.Error("same seed, different masks")
	}
	kept := 0
	for i, v := range y1.Data {
		switch v {
		case 0:
		case 2 * x.Data[i]:
			kept++
		default:
			t.Fatalf("element %d: %g from %g, want 0 or twice", i, v, x.Data[i])
		}
	}
	if frac := float64(kept) / float64(len(x.Data)); frac < 0.45 || frac > 0.55 {
		t.Errorf("kept %.3f of the elements at rate 0.5", frac)
	}
	r := randTensor(rng, 50, 40)
	f := func(p *Pass) (*Tensor, error) { return Dropout(p, x, 0.3, newRNG(7)) }
	checkGrad(t, "dropout", x.Data, backward(t, f, r, x)[0].Data, nil, linEps, linTol, dotLoss(t, f, r, true))
}
