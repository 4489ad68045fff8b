package predict

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/contactmap/contactmap/pipeline/model"
)

// The network's progress over an ensemble (Config.OnNetwork)
// increases layer by layer to 1 after the last layer of the last member,
// and the mean is meanProbabilities', bit for bit; a cancelled context
// stops the members between two layers with its error.
func TestMeanProbabilitiesReportsLayers(t *testing.T) {
	ms := []*model.Model{newModel(t, model.CNN, 1), newModel(t, model.SCNN, 2), newModel(t, model.SCNN, 3)}
	s := randomSample(t, 41, 41)
	want, err := meanProbabilities(ms, 2, s)
	if err != nil {
		t.Fatal(err)
	}
	var shares []float64
	got, err := meanProbabilitiesAfter(context.Background(), ms, 2, s, func(done float64, end bool) {
		if end {
			t.Error("end reported by meanProbabilitiesAfter (predictOne's)")
		}
		shares = append(shares, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("entry %d is %v with progress, %v without", i, got[i], want[i])
		}
	}
	layers := 0
	for _, m := range ms {
		layers += m.Arch.Spec().Layers()
	}
	if len(shares) != layers+1 || shares[0] != 0 {
		t.Fatalf("%d reports for %d layers, the first %v (want the start, 0, and one per layer)", len(shares), layers, shares[0])
	}
	for i, d := range shares[1:] {
		if d <= shares[i] || d > 1 {
			t.Errorf("report %d: %v after %v", i+1, d, shares[i])
		}
	}
	if shares[len(shares)-1] != 1 {
		t.Errorf("the last report is %v, want 1", shares[len(shares)-1])
	}

	ctx, cancel := context.WithCancel(context.Background())
	reports := 0
	_, err = meanProbabilitiesAfter(ctx, ms, 2, s, func(float64, bool) {
		reports++
		if reports == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || reports != 3 {
		t.Errorf("cancelled at the second layer: %v after %d reports", err, reports)
	}
}
