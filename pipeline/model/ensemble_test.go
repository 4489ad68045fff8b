package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/contactmap/contactmap/scnn"
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

// AddLogits adds a member's logits as Add adds its probabilities
// (Probabilities), bit for bit, packed (an SCNN's) or row-major (a CNN's),
// for any sample of a batch, members of both layouts mixed; the logits
// range from -90 to 90 (probabilities from 1e-39, subnormal in float32,
// to 1).
func TestEnsembleMeanAddLogits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const b, bl = 2, 23
	lengths := []int{bl, 17}
	logits := func(packed bool) *scnn.Tensor {
		var x *scnn.Tensor
		if packed {
			x = scnn.NewPacked(b, bl, 1)
		} else {
			x = scnn.New(b, bl, bl, 1)
		}
		for i := range x.Data {
			switch r.IntN(4) {
			case 0:
				x.Data[i] = float32(r.NormFloat64() * 3)
			default:
				x.Data[i] = float32(r.Float64()*180 - 90)
			}
		}
		return x
	}
	for k, l := range lengths {
		var byMap, byLogits EnsembleMean
		for m := range 7 {
			x := logits(m%3 != 0)
			byMap.Add(Probabilities(x, lengths)[k])
			byLogits.AddLogits(x, k, l)
		}
		want, got := byMap.Mean(), byLogits.Mean()
		if len(got) != l*l || byLogits.Members() != 7 {
			t.Fatalf("sample %d: %d values, %d members", k, len(got), byLogits.Members())
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("sample %d: entry %d is %v by logits, %v by maps", k, i, got[i], want[i])
			}
		}
	}
}
