package model

import "testing"

func TestEnsembleMean(t *testing.T) {
	var e EnsembleMean
	if e.Mean() != nil || e.Members() != 0 {
		t.Fatal("empty mean not nil")
	}
	// 0.1f+0.2f+0.3f differs in float32 and float64 summation; the mean
	// must be the float64 one rounded once.
	maps := [][]float32{{0.1, 1, 0}, {0.2, 0, 0}, {0.3, 0.5, 0}}
	for _, m := range maps {
		e.Add(m)
	}
	want := []float32{
		float32((float64(float32(0.1)) + float64(float32(0.2)) + float64(float32(0.3))) / 3),
		float32(1.5 / 3), 0,
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
