package scnn

import (
	"math"
	"testing"
)

func TestSizeClass(t *testing.T) {
	for n := 1; n < 1<<20; n += 1 + n/7 {
		c := sizeClass(n)
		if c < n || 2*c > 3*n+1 { // at most a third of a buffer unused
			t.Fatalf("sizeClass(%d) = %d", n, c)
		}
		if sizeClass(c) != c {
			t.Fatalf("sizeClass(%d) = %d is not a class (sizeClass of it %d)", n, c, sizeClass(c))
		}
	}
}

// A training step on recycled buffers gives the same gradients, bit for
// bit, as one on new buffers, though the freed pass's buffers were filled
// with NaN before Free; and the buffers are indeed reused.
func TestFreeRecyclesBuffers(t *testing.T) {
	testFreeRecycles(t, new(Recycler))
}

// testFreeRecycles runs TestFreeRecyclesBuffers with passes on r.
func testFreeRecycles(t *testing.T, r *Recycler) {
	training := func() *Pass { return TrainingWith(2, r) }
	rng := newRNG(3)
	conv, _ := NewConv2D("c", 3, 4, 6, rng)
	sym, _ := NewSymPresConv("s", 3, 4, 6, rng)
	x := randTensor(rng, 2, 40, 40, 4) // 12,800 floats: recycled
	xp := randPacked(rng, 2, 40, 4)
	step := func(free bool) (grads [][]float32, owned map[*float32]bool) {
		for _, p := range append(conv.Params(), sym.Params()...) {
			clear(p.Grad)
		}
		pass := training()
		y, err := conv.Apply(pass, x)
		if err != nil {
			t.Fatal(err)
		}
		r := ReLU(pass, y)
		ys, err := sym.Apply(pass, xp)
		if err != nil {
			t.Fatal(err)
		}
		if err := pass.Backward(r, r); err != nil {
			t.Fatal(err)
		}
		pass2 := training() // a second pass in flight at the same time
		ys2, _ := sym.Apply(pass2, xp)
		_ = ys
		if err := pass2.Backward(ys2, ys2); err != nil {
			t.Fatal(err)
		}
		for _, p := range append(conv.Params(), sym.Params()...) {
			grads = append(grads, append([]float32(nil), p.Grad...))
		}
		owned = map[*float32]bool{}
		for _, p := range []*Pass{pass, pass2} {
			for _, b := range p.owned {
				if cap(b) >= recycleMin {
					owned[&b[:1][0]] = true
				}
				for i := range b {
					b[i] = float32(math.NaN())
				}
			}
			if free {
				p.Free()
			}
		}
		return grads, owned
	}
	want, _ := step(false)
	if r.Held() != 0 {
		t.Fatalf("the Recycler holds %d floats before any Free", r.Held())
	}
	_, first := step(true)
	if r.Held() == 0 {
		t.Fatal("the Recycler holds nothing after Free")
	}
	got, second := step(true)
	for i := range want {
		for k := range want[i] {
			if math.Float32bits(got[i][k]) != math.Float32bits(want[i][k]) {
				t.Fatalf("gradient %d[%d] on recycled buffers %v, on new ones %v", i, k, got[i][k], want[i][k])
			}
		}
	}
	reused := 0
	for p := range second {
		if first[p] {
			reused++
		}
	}
	if reused == 0 {
		t.Errorf("no buffer of the freed passes was reused (%d and %d large buffers)", len(first), len(second))
	}
}

func TestFreedPassPanics(t *testing.T) {
	p := Training(1)
	p.Free()
	defer func() {
		if recover() == nil {
			t.Error("a freed pass allocated")
		}
	}()
	p.zeros(10)
}

// A pass without a Recycler allocates anew and keeps nothing at Free; a
// Recycler is not shared with Training's, and Reset empties it.
func TestRecyclerOwnership(t *testing.T) {
	rng := newRNG(4)
	conv, _ := NewConv2D("c", 3, 4, 6, rng)
	x := randTensor(rng, 2, 40, 40, 4)
	run := func(p *Pass) {
		y, err := conv.Apply(p, x)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Backward(y, y); err != nil {
			t.Fatal(err)
		}
		p.Free()
	}
	for _, p := range []*Pass{TrainingWith(1, nil), Training(1)} {
		run(p)
		if len(p.owned) != 0 {
			t.Errorf("a pass without a Recycler kept %d buffers", len(p.owned))
		}
	}
	var r Recycler
	run(TrainingWith(1, &r))
	if r.Held() == 0 {
		t.Errorf("own Recycler holds %d floats", r.Held())
	}
	r.Reset()
	if r.Held() != 0 {
		t.Errorf("Reset left %d floats", r.Held())
	}
	run(TrainingWith(1, &r)) // usable after Reset
	if r.Held() == 0 {
		t.Error("a Recycler after Reset keeps nothing")
	}
}
