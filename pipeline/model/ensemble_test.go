package model

import (
	"math"
	"testing"
)

func TestEnsembleMean(t *testing.T) {
	var e EnsembleMean
	if e.Mean() != nil || e.Members() != 0 {
		t.Fatal("empty mean not nil")
	}
	// 1 + 2^-24 + 2^-24 is 1 in float32 (each addition rounds back to 1)
	// and 1 + 2^-23 in float64: the mean must be the float64 one rounded
	// once (0.33333337, not float32 summation's 0.33333334).
	tiny := float32(math.Ldexp(1, -24))
	maps := [][]float32{{1, 1, 0}, {tiny, 0, 0}, {tiny, 0.5, 0}}
	for _, m := range maps {
		e.Add(m)
	}
	want := []float32{
		float32((1 + 2*float64(tiny)) / 3),
		float32(1.5 / 3), 0,
	}
	if f32 := (float32(1) + tiny + tiny) / 3; f32 == want[0] {
		t.Fatalf("test values do not separate float32 from float64 sums (%v)", f32)
	}
	got := e.Mean()
	if e.Members() != 3 {
		t.Errorf("members %d", e.Members())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mean[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// One member: its own map, exactly.
	var one EnsembleMean
	p := []float32{0.123456789, 0.987654321}
	one.Add(p)
	if m := one.Mean(); m[0] != p[0] || m[1] != p[1] {
		t.Errorf("one member: %v, want %v", m, p)
	}
}

func TestEnsembleMeanLengthMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("maps of different lengths accepted")
		}
	}()
	var e EnsembleMean
	e.Add([]float32{1, 2})
	e.Add([]float32{1})
}
