package scnn

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// A Module lists the parameters of the layers added, in order, counts
// the trainable ones, and refuses two parameters of one name.
func TestModule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	d, _ := NewDense("fc", 3, 2, rng)
	c, _ := NewConv2D("conv", 3, 2, 4, rng)
	bn := NewBatchNorm2D("bn", 4)
	var m Module
	m.Add(c, bn)
	m.Add(d)
	var names []string
	for _, p := range m.Params() {
		names = append(names, p.Name)
	}
	want := []string{"conv.W", "conv.b", "bn.gamma", "bn.beta", "bn.running_mean", "bn.running_var", "bn.updates", "fc.W", "fc.b"}
	if strings.Join(names, " ") != strings.Join(want, " ") || m.Err() != nil {
		t.Fatalf("params %v (%v), want %v", names, m.Err(), want)
	}
	if got, want := m.Trainable(), CountTrainable(c, bn, d); got != want {
		t.Fatalf("trainable %d, want %d", got, want)
	}
	d2, _ := NewDense("fc", 3, 2, rng)
	m.Add(d2)
	if m.Err() == nil || !strings.Contains(m.Err().Error(), `"fc.W"`) || len(m.Params()) != len(want) {
		t.Fatalf("a second fc: %v, %d params", m.Err(), len(m.Params()))
	}
}

// CheckGradients names a trainable parameter with a zero gradient, a
// parameter used but not listed, and one listed but not used.
func TestCheckGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	d, _ := NewDense("fc", 3, 2, rng)
	e, _ := NewDense("extra", 2, 2, rng)
	idle, _ := NewDense("idle", 3, 2, rng)
	x := New(4, 3)
	for i := range x.Data {
		x.Data[i] = float32(rng.NormFloat64())
	}
	p := Training(1)
	y, err := d.Apply(p, x)
	if err != nil {
		t.Fatal(err)
	}
	z, err := e.Apply(p, y)
	if err != nil {
		t.Fatal(err)
	}
	dz := New(4, 2)
	for i := range dz.Data {
		dz.Data[i] = 1
	}
	if err := p.Backward(z, dz); err != nil {
		t.Fatal(err)
	}
	if got := CheckGradients(append(d.Params(), e.Params()...), p); got != nil {
		t.Fatalf("a sound model: %v", got)
	}
	got := strings.Join(CheckGradients(append(d.Params(), idle.Params()...), p), "; ")
	for _, want := range []string{"extra.W: used by the pass, not among", "idle.W: zero gradient", "idle.b: not used by the pass"} {
		if !strings.Contains(got, want) {
			t.Errorf("report %q lacks %q", got, want)
		}
	}
}
