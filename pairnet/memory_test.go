package pairnet

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
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

// proteinDefault is the default protein network of pipeline/model
// (DefaultArch: 25 1D channels, 3 2D and 3 fixed pair channels), whose
// inference goes by halves (forwardCartesian) for both kinds.
func proteinDefault(symmetric bool) Spec {
	return Spec{Symmetric: symmetric, In1D: 25, In2D: 3, Fixed2D: 3, LSTMHidden: 16, LSTMOut: 15,
		Pair:     MapSpec{BN: true},
		Blocks:   []Block{Uniform(8, 7, 5, 3), Uniform(8, 5, 3), Uniform(8, 3)},
		Reinject: &MapSpec{}, Head: []Block{Uniform(8, 3)}, OutKernel: 3}
}

// withPairInputs adds random 2D and fixed pair channels to in, laid out
// as the network takes them.
func withPairInputs(s Spec, in Inputs) Inputs {
	b, l := in.X1.Shape[0], in.X1.Shape[1]
	rng := rand.New(rand.NewPCG(uint64(l), 2))
	mk := func(c int) *scnn.Tensor {
		if c == 0 {
			return nil
		}
		x := scnn.New(b, l, l, c)
		if s.Symmetric {
			x = scnn.NewPacked(b, l, c)
		}
		for i := range x.Data {
			x.Data[i] = float32(rng.NormFloat64())
		}
		return x
	}
	in.X2, in.Fixed = mk(s.In2D), mk(s.Fixed2D)
	return in
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
// the RNA default networks and the protein default networks (SCNN and
// CNN, one and two workers, lengths 200 and 400; the protein ones and the
// RNA CNN infer by halves) and is within a factor 2 of it. The tolerance: the
// sampled peak may miss a short spike (so the bound is asserted with a
// 5% allowance) and the collector's own timing moves it by a few MB
// (so the peak is the median of three passes).
func TestInferenceBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("measures memory of full passes")
	}
	for _, net := range []struct {
		name string
		spec func(bool) Spec
	}{{"RNA", rnaDefault}, {"protein", proteinDefault}} {
		for _, sym := range []bool{true, false} {
			s := net.spec(sym)
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
					in := withPairInputs(s, oneSequence(l))
					if s.In1D != 5 {
						in.X1 = scnn.New(1, l, s.In1D)
						for i := range in.X1.Data {
							in.X1.Data[i] = float32(i%7) / 7
						}
					}
					// The median of three passes: a sampler starved of the
					// processor may miss the plateau of one, and a collector
					// lagging behind (other tests beside it) may count the
					// garbage of another.
					var peaks [3]int64
					var growth int64
					for k := range peaks {
						peaks[k], growth = measure(t, n, in, workers)
					}
					slices.Sort(peaks[:])
					peak := peaks[1]
					ratio := float64(est) / float64(peak)
					t.Logf("%s symmetric=%v workers=%d L=%d: estimate %.1f MB, measured peak %.1f MB (ratio %.2f), allocated %.1f MB",
						net.name, sym, workers, l, float64(est)/1e6, float64(peak)/1e6, ratio, float64(growth)/1e6)
					if ratio < 0.95 || ratio > 2 {
						t.Errorf("%s symmetric=%v workers=%d L=%d: estimate %d bytes, measured peak %d (ratio %.2f, want 1..2)", net.name, sym, workers, l, est, peak, ratio)
					}
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
