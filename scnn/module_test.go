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
