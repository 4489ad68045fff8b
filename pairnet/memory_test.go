package pairnet

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contactmap/contactmap/scnn"
)

// rnaDefault is the network of rna/ssnet's Default protocol (the shipped
// RNA model's widths), as a CNN or an SCNN.
func rnaDefault(symmetric bool) Spec {
	s := Spec{Symmetric: symmetric, In1D: 5, LSTMHidden: 24, LSTMOut: 8,
		Blocks:   []Block{{Kernels: []int{9, 5, 3}, Widths: []int{8, 8, 4}}, {Kernels: []int{5, 3}, Widths: []int{8, 8}}, Uniform(8, 3)},
		Reinject: &MapSpec{}, OutKernel: 3}
	if symmetric {
		s.Pair = MapSpec{Width: 26, BN: true, ReLU: true}
		s.Reinject = &MapSpec{Width: 10, BN: true, ReLU: true}
	}
	return s
}

func oneSequence(l int) Inputs {
	rng := rand.New(rand.NewPCG(uint64(l), 1))
	x := scnn.New(1, l, 5)
	for i := 0; i < l; i++ {
		x.Data[i*5+rng.IntN(4)] = 1
	}
	return Inputs{X1: x, Lengths: []int{l}}
}

// measure runs one inference pass and returns the peak of the live heap
// above the start, sampled every 20 µs with the collector at GOGC=1 (so
// that the heap stays within about 1% of the live data), and, for the
// log, what the heap grew by in a pass with the collector off.
func measure(t *testing.T, n *Net, in Inputs, workers int) (peak, growth int64) {
	t.Helper()
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC() // twice: the kernels' scratch pools are emptied too
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	if _, err := n.Forward(scnn.Inference(workers), in); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	growth = int64(ms.TotalAlloc - before)

	runtime.GC()
	runtime.GC()
	debug.SetGCPercent(1)
	runtime.ReadMemStats(&ms)
	base := int64(ms.HeapAlloc)
	var high atomic.Int64
	stop, stopped := make(chan bool), make(chan bool)
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if v := int64(ms.HeapAlloc) - base; v > high.Load() {
				high.Store(v)
			}
			select {
			case <-stop:
				close(stopped)
				return
			case <-time.After(20 * time.Microsecond):
			}
		}
	}()
	out, err := n.Forward(scnn.Inference(workers), in)
	if err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-stopped
	runtime.KeepAlive(out)
	return high.Load(), growth
}

// The estimate bounds the measured peak of the live heap of a pass of
// the RNA default networks (SCNN and CNN, one and two workers, lengths
// 200 and 400) and is within a factor 2 of it. The tolerance: the
// sampled peak may miss a short spike (so the bound is asserted with a
// 5% allowance) and the collector's own timing moves it by a few MB.
func TestInferenceBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("measures memory of full passes")
	}
	for _, sym := range []bool{true, false} {
		s := rnaDefault(sym)
		n, err := New(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			for _, l := range []int{200, 400} {
				est, err := s.InferenceBytes(l, workers)
				if err != nil {
					t.Fatal(err)
				}
				// The highest of two passes: a sampler starved of the
				// processor may miss the plateau of one.
				peak, growth := measure(t, n, oneSequence(l), workers)
				if p, _ := measure(t, n, oneSequence(l), workers); p > peak {
					peak = p
				}
				ratio := float64(est) / float64(peak)
				t.Logf("symmetric=%v workers=%d L=%d: estimate %.1f MB, measured peak %.1f MB (ratio %.2f), allocated %.1f MB",
					sym, workers, l, float64(est)/1e6, float64(peak)/1e6, ratio, float64(growth)/1e6)
				if ratio < 0.95 || ratio > 2 {
					t.Errorf("symmetric=%v workers=%d L=%d: estimate %d bytes, measured peak %d (ratio %.2f, want 1..2)", sym, workers, l, est, peak, ratio)
				}
			}
		}
	}
}

// The estimate grows with the maps: for long sequences, by about the
// square of the length, and an SCNN's packed maps take about half of a
// CNN's.
func TestInferenceBytesScaling(t *testing.T) {
	sym, cnn := rnaDefault(true), rnaDefault(false)
	e := func(s Spec, l int) float64 {
		b, err := s.InferenceBytes(l, 1)
		if err != nil {
			t.Fatal(err)
		}
		return float64(b)
	}
	if r := e(sym, 8000) / e(sym, 4000); r < 3.5 || r > 4.1 {
		t.Errorf("SCNN 8000 nt / 4000 nt: %.2f, want about 4", r)
	}
	if r := e(sym, 8000) / e(cnn, 8000); r < 0.4 || r > 0.75 {
		t.Errorf("SCNN / CNN at 8000 nt: %.2f, want about a half or a little more (the SCNN's pair map is wider)", r)
	}
	if _, err := sym.InferenceBytes(0, 1); err == nil {
		t.Error("length 0 accepted")
	}
	bad := sym
	bad.Pair.Width = 2e9
	if _, err := bad.InferenceBytes(10, 1); !errors.Is(err, ErrSpec) {
		t.Errorf("bad spec: %v", err)
	}
}
