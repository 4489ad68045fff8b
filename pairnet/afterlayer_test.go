package pairnet

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// Inputs.AfterLayer is called once per layer, in every path of Forward
// (by halves and materialised, with and without a head, CNN and SCNN,
// inference and training passes), with work that increases and ends at
// the total, Spec.LayerWork of the batch; the logits are the same bits
// as without it.
func TestAfterLayerCountsEveryLayer(t *testing.T) {
	for _, sym := range []bool{false, true} {
		for _, head := range []bool{true, false} {
			for _, materialize := range []bool{false, true} {
				for _, training := range []bool{false, true} {
					s := proteinLike(sym)
					if !head {
						s.Head = nil
					}
					net, err := New(s, 5)
					if err != nil {
						t.Fatal(err)
					}
					net.materialize = materialize
					pass := func() *scnn.Pass {
						if training {
							return scnn.Training(2)
						}
						return scnn.Inference(2)
					}
					rng := rand.New(rand.NewPCG(4, 4))
					in, _, _ := oneHotBatch(rng, []int{17, 11})
					in.X2, in.Fixed = randomPairMap(rng, sym, 2, 17, 2), randomPairMap(rng, sym, 2, 17, 1)
					want, err := net.Forward(pass(), in)
					if err != nil {
						t.Fatal(err)
					}
					var dones, totals []float64
					in.AfterLayer = func(done, total float64) error {
						dones, totals = append(dones, done), append(totals, total)
						return nil
					}
					got, err := net.Forward(pass(), in)
					if err != nil {
						t.Fatal(err)
					}
					name := func() string {
						return map[bool]string{false: "cnn", true: "scnn"}[sym] + map[bool]string{false: "", true: " head"}[head] +
							map[bool]string{false: "", true: " materialised"}[materialize] + map[bool]string{false: "", true: " training"}[training]
					}
					if !slices.Equal(got.Data, want.Data) {
						t.Errorf("%s: the logits differ with AfterLayer", name())
					}
					work := s.LayerWork(17)
					if len(dones) != s.Layers() || len(work) != s.Layers() {
						t.Fatalf("%s: AfterLayer called %d times, LayerWork %d values, for %d layers", name(), len(dones), len(work), s.Layers())
					}
					total := 2 * work[len(work)-1]
					for i, d := range dones {
						if totals[i] != total || d != 2*work[i] || i > 0 && d <= dones[i-1] {
							t.Errorf("%s: call %d: done %v of %v, want %v of %v, increasing", name(), i, d, totals[i], 2*work[i], total)
						}
					}
					if dones[len(dones)-1] != total {
						t.Errorf("%s: the last call says %v of %v", name(), dones[len(dones)-1], total)
					}
				}
			}
		}
	}
}

// LayerWork's last value is InferenceFLOPs of one chain, for networks
// that infer by halves and that materialise their maps.
func TestLayerWorkEndsAtInferenceFLOPs(t *testing.T) {
	for _, s := range []Spec{proteinLike(false), proteinLike(true), rnaLike(false), rnaLike(true)} {
		for _, l := range []int{1, 7, 40} {
			w := s.LayerWork(l)
			got, want := w[len(w)-1], s.InferenceFLOPs(1, l)
			if d := got - want; d > 1e-9*want || d < -1e-9*want {
				t.Errorf("symmetric=%v halves=%v L %d: LayerWork ends at %v, InferenceFLOPs %v", s.Symmetric, s.InfersByHalves(), l, got, want)
			}
		}
	}
}

// An error from AfterLayer stops the pass after that layer: Forward
// returns it as it is, and no later layer is reported.
func TestAfterLayerErrorStopsForward(t *testing.T) {
	stop := errors.New("stop")
	for _, sym := range []bool{false, true} {
		net, err := New(proteinLike(sym), 5)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(4, 4))
		in, _, _ := oneHotBatch(rng, []int{9})
		in.X2, in.Fixed = randomPairMap(rng, sym, 1, 9, 2), randomPairMap(rng, sym, 1, 9, 1)
		calls := 0
		in.AfterLayer = func(done, total float64) error {
			calls++
			if calls == 1 {
				return stop
			}
			return nil
		}
		out, err := net.Forward(scnn.Inference(1), in)
		if err != stop || out != nil || calls != 1 {
			t.Errorf("symmetric=%v: Forward returned %v, %v after %d calls; want nil, the hook's error, after 1", sym, out, err, calls)
		}
	}
}
