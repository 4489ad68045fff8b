package model

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/scnn"
)

// randomSample is a chain of length l with normal features.
func randomSample(r *rand.Rand, id string, l int) *Sample {
	c := &features.Chain{ID: id, OneD: make([]float32, l*features.N1D), TwoD: make([]float32, l*(l+1)/2*features.N2D)}
	for _, x := range [][]float32{c.OneD, c.TwoD} {
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
	}
	seq := make([]byte, l)
	for i := range seq {
		seq[i] = 'A'
	}
	c.Seq = string(seq)
	return &Sample{ID: id, Chain: c}
}

// ForwardAfter calls its hook once per layer with increasing work ending
// at the total, the network's InferenceFLOPs, and gives Forward's logits
// bit for bit; its hook's error (a cancelled context's) stops the pass.
func TestForwardAfter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 1))
	for _, kind := range []Kind{CNN, SCNN} {
		m, err := NewModel(DefaultArch(kind), 2)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBatch([]*Sample{randomSample(r, "a", 21), randomSample(r, "b", 14)}, m.Packed())
		want, err := m.Forward(scnn.Inference(2), b)
		if err != nil {
			t.Fatal(err)
		}
		var dones []float64
		last := 0.0
		got, err := m.ForwardAfter(scnn.Inference(2), b, func(done, total float64) error {
			if done <= last || done > total {
				t.Errorf("%s: done %v after %v, of %v", kind, done, last, total)
			}
			last = done
			dones = append(dones, done)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Data, want.Data) {
			t.Errorf("%s: the logits differ with a hook", kind)
		}
		s := m.Arch.Spec()
		if len(dones) != s.Layers() {
			t.Errorf("%s: %d calls for %d layers", kind, len(dones), s.Layers())
		}
		if total := s.InferenceFLOPs(2, 21); last < total*(1-1e-9) || last > total*(1+1e-9) {
			t.Errorf("%s: the last call says %v done, InferenceFLOPs %v", kind, last, total)
		}
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		_, err = m.ForwardAfter(scnn.Inference(2), b, func(done, total float64) error {
			calls++
			cancel()
			return ctx.Err()
		})
		if !errors.Is(err, context.Canceled) || calls != 1 {
			t.Errorf("%s: cancelled after the first layer: %v after %d calls", kind, err, calls)
		}
	}
}
