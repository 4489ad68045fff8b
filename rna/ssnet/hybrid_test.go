package ssnet

import (
	"context"
	"math"
	"testing"

	"github.com/contactmap/contactmap/rna/fold"
)

// TestHybridProbabilities checks the product of experts at its ends and
// its properties: alpha 0 is McCaskill's ensemble; a network that
// doubts one of the two hairpins Turner 2004 is sure of pushes it out of
// the ensemble as alpha grows, and keeps the other; the result is
// symmetric; bad input is refused.
func TestHybridProbabilities(t *testing.T) {
	ctx := context.Background()
	seq := "GCGCAAAAGCGCUUCAGUGGAAACACUGAA"
	n := len(seq)
	// the network's map: the first hairpin's pairs likely, the second's
	// no more than any other pair
	net := make([]float32, n*n)
	for k := range net {
		net[k] = 0.01
	}
	want := [][2]int{{0, 11}, {1, 10}, {2, 9}, {3, 8}}
	doubted := [][2]int{{14, 27}, {15, 26}, {16, 25}, {17, 24}, {18, 23}}
	for _, q := range want {
		net[q[0]*n+q[1]], net[q[1]*n+q[0]] = 0.99, 0.99
	}
	ens, err := fold.Partition(seq)
	if err != nil {
		t.Fatal(err)
	}
	ref := ens.Probabilities()
	got, err := HybridProbabilities(ctx, seq, net, 0, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k := range ref {
		if got[k] != ref[k] {
			t.Fatalf("alpha 0 at %d: %v, McCaskill's %v", k, got[k], ref[k])
		}
	}
	mean := func(p []float32, pairs [][2]int) float64 {
		var s float64
		for _, q := range pairs {
			s += float64(p[q[0]*n+q[1]])
		}
		return s / float64(len(pairs))
	}
	prev := mean(ref, doubted)
	if prev < 0.99 || mean(ref, want) < 0.99 {
		t.Fatalf("Turner 2004's ensemble: hairpins at %.4f and %.4f, want both above 0.99", mean(ref, want), prev)
	}
	for _, alpha := range []float64{0.5, 1, 2} {
		h, err := HybridProbabilities(ctx, seq, net, alpha, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := mean(h, doubted)
		if s >= prev {
			t.Errorf("alpha %g: mean probability of the doubted pairs %.4f, not below %.4f", alpha, s, prev)
		}
		if k := mean(h, want); k < 0.99 {
			t.Errorf("alpha %g: the network's hairpin at %.4f", alpha, k)
		}
		prev = s
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if h[i*n+j] != h[j*n+i] || math.IsNaN(float64(h[i*n+j])) {
					t.Fatalf("alpha %g: not symmetric at (%d, %d)", alpha, i, j)
				}
			}
		}
	}
	if prev > 0.1 {
		t.Errorf("alpha 2: the doubted hairpin at %.4f", prev)
	}
	if _, err := HybridProbabilities(ctx, seq, net[:n], 1, 0, 1); err == nil {
		t.Error("a map of the wrong size: no error")
	}
	for _, a := range []float64{-1, math.NaN(), 3} {
		if _, err := HybridProbabilities(ctx, seq, net, a, 0, 1); err == nil {
			t.Errorf("alpha %g: no error", a)
		}
	}
}
