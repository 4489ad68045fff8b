package ssnet

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// ProbabilitiesAfter reports the network's start (done 0) and every
// layer, the work increasing to the total, and gives ProbabilitiesWith's probabilities
// bit for bit; its hook's error (a cancelled context's) stops the pass.
func TestProbabilitiesAfter(t *testing.T) {
	const seq = "GGGAAACUCCAGCUUGGCGAAAGCCAAGCUGGAGUUUCCCA"
	for _, k := range []Kind{CNN, SCNN} {
		m, err := NewModel(k, tinyProtocol, 4)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.ProbabilitiesWith(seq, nil, 2)
		if err != nil {
			t.Fatal(err)
		}
		var dones []float64
		last := -1.0
		got, err := m.ProbabilitiesAfter(seq, nil, 2, func(done, total float64) error {
			if done <= last || done > total || last < 0 && done != 0 {
				t.Errorf("%s: done %v after %v, of %v", k, done, last, total)
			}
			last = done
			dones = append(dones, done)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the probabilities differ with a hook", k)
		}
		if s := m.Net.Spec; len(dones) != s.Layers()+1 || last != s.LayerWork(len(seq))[s.Layers()-1] {
			t.Errorf("%s: %d calls for %d layers, last %v of %v", k, len(dones), s.Layers(), last, s.LayerWork(len(seq)))
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		if _, err := m.ProbabilitiesAfter(seq, nil, 2, func(float64, float64) error { calls++; return ctx.Err() }); !errors.Is(err, context.Canceled) || calls != 1 {
			t.Errorf("%s: cancelled: %v after %d calls", k, err, calls)
		}
	}
}
