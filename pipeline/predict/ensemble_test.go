package predict

import (
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/scnn"
)

// newModel returns an untrained default model of the given kind in seq
// mode.
func newModel(t *testing.T, kind model.Kind, seed uint64) *model.Model {
	t.Helper()
	a := model.DefaultArch(kind)
	a.Mode = features.SeqMode
	m, err := model.NewModel(a, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func randomSample(t *testing.T, l int, seed int64) *model.Sample {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	const aa = "ACDEFGHIKLMNPQRSTVWY"
	b := make([]byte, l)
	for i := range b {
		b[i] = aa[r.Intn(len(aa))]
	}
	c, err := features.Compute("r", string(b), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Sample{ID: "r", Chain: c}
}

// oldMean is the ensemble's mean as predict computed it before the
// members shared one pass: each member in a pass and a batch of its own,
// its L x L probabilities added to the mean.
func oldMean(t *testing.T, ms []*model.Model, threads int, s *model.Sample) []float32 {
	t.Helper()
	var mean model.EnsembleMean
	for _, m := range ms {
		b := model.NewBatch([]*model.Sample{s}, m.Packed())
		logits, err := m.Forward(scnn.Inference(threads), b)
		if err != nil {
			t.Fatal(err)
		}
		mean.Add(model.Probabilities(logits, b.Lengths)[0])
	}
	return mean.Mean()
}

// The members run one after another over one pass (a later
// member taking its maps from the buffers the earlier ones released,
// SCNN maps from a CNN's pool, or a fresh pass where a larger member
// follows), each added to the mean from its logits in place, and the
// collector run between them; the mean is the old one's (each member in
// its own pass, its map added), bit for bit, in any order of members.
func TestMeanProbabilitiesBitIdentical(t *testing.T) {
	cnn1, cnn2 := newModel(t, model.CNN, 1), newModel(t, model.CNN, 2)
	scnn1, scnn2 := newModel(t, model.SCNN, 3), newModel(t, model.SCNN, 4)
	old := collectMin
	t.Cleanup(func() { collectMin = old })
	for _, tc := range []struct {
		name    string
		ms      []*model.Model
		collect int64
	}{
		{"one CNN", []*model.Model{cnn1}, old},
		{"one SCNN", []*model.Model{scnn1}, old},
		{"CNNs then SCNNs", []*model.Model{cnn1, cnn2, scnn1, scnn2}, old},
		{"SCNN, CNN, SCNN, CNN, collecting", []*model.Model{scnn1, cnn1, scnn2, cnn2}, 0},
		{"the same model twice", []*model.Model{scnn2, scnn2}, 0},
	} {
		collectMin = tc.collect
		for _, l := range []int{1, 37, 90} {
			s := randomSample(t, l, int64(l))
			want := oldMean(t, tc.ms, 2, s)
			got, err := meanProbabilities(tc.ms, 2, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != l*l {
				t.Fatalf("%s, L = %d: %d values", tc.name, l, len(got))
			}
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s, L = %d: entry %d is %v, the old mean %v", tc.name, l, i, got[i], want[i])
				}
			}
		}
	}
}

// An ensemble's estimate is its largest member's, not the sum
// of its members': ten default members (five CNNs, five SCNNs) are
// estimated below 1.2 times the larger of one default CNN's and one
// default SCNN's, at every length.
func TestEstimateDoesNotGrowWithMembers(t *testing.T) {
	var ten []*model.Model
	for i := range 5 {
		ten = append(ten, newModel(t, model.CNN, uint64(i+1)), newModel(t, model.SCNN, uint64(i+6)))
	}
	threads := runtime.GOMAXPROCS(0)
	for _, l := range []int{50, 500, 2000, 3000} {
		var one int64
		for _, m := range ten[:2] { // a CNN and an SCNN
			e, err := Estimate([]*model.Model{m}, l, threads)
			if err != nil {
				t.Fatal(err)
			}
			one = max(one, e)
		}
		all, err := Estimate(ten, l, threads)
		if err != nil {
			t.Fatal(err)
		}
		if float64(all) >= 1.2*float64(one) {
			t.Errorf("L = %d: ten members estimated %d MiB, the largest member %d MiB", l, all>>20, one>>20)
		}
	}
}
