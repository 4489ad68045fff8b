package train

import (
	"encoding/json"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/contactmap/contactmap/scnn"
)

// goldenBatch is a fixed batch of four real chains of the tiny set.
func goldenBatch(t *testing.T, packed bool) *model.Batch {
	t.Helper()
	samples, _, err := LoadSplit(tinyFeatures(t), "all")
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(samples, func(a, b int) bool { return samples[a].ID < samples[b].ID })
	return model.NewBatch(samples[:4], packed)
}

type goldenRecord struct {
	Loss float64 `json:"loss"`
}

// The loss, logits and every parameter gradient of a training step on a
// fixed batch, for both model kinds, equal those recorded in
// testdata/golden (written by the code before the network package, at
// commit 3be7fee's model wiring; CONTACTMAP_WRITE_GOLDEN=1 rewrites them).
// Parameters are the recorded ones, so initialisation order does not
// matter.
func TestGoldenTrainingStep(t *testing.T) {
	for _, kind := range []model.Kind{model.CNN, model.SCNN} {
		t.Run(string(kind), func(t *testing.T) {
			a := tinyOptions(t, kind).Arch
			a.Mode = features.SeqMode
			m, err := model.NewModel(a, 3)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", string(kind)+".scnn")
			write := os.Getenv("CONTACTMAP_WRITE_GOLDEN") != ""
			var want map[string]scnn.Array
			var rec goldenRecord
			if !write {
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				raw, arrays, err := scnn.ReadParams(f)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(raw, &rec); err != nil {
					t.Fatal(err)
				}
				want = map[string]scnn.Array{}
				var init []scnn.Array
				for _, arr := range arrays {
					want[arr.Name] = arr
					if filepath.Dir(arr.Name) == "init" {
						arr.Name = arr.Name[len("init/"):]
						init = append(init, arr)
					}
				}
				if err := scnn.AssignParams(m.Params(), init); err != nil {
					t.Fatal(err)
				}
			}
			var saved []*scnn.Param
			for _, p := range m.Params() {
				saved = append(saved, &scnn.Param{Name: "init/" + p.Name, Shape: p.Shape, Value: append([]float32(nil), p.Value...), Trainable: p.Trainable})
			}
			b := goldenBatch(t, m.Packed())
			loss, logits, grads := goldenStep(t, m, b)
			if write {
				raw, _ := json.Marshal(goldenRecord{Loss: loss})
				out := append(saved, &scnn.Param{Name: "logits", Shape: []int{len(logits)}, Value: logits})
				for _, p := range grads {
					out = append(out, &scnn.Param{Name: "grad/" + p.Name, Shape: p.Shape, Value: p.Grad})
				}
				f, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := scnn.WriteParams(f, raw, out); err != nil {
					t.Fatal(err)
				}
				return
			}
			if math.Abs(loss-rec.Loss) > 1e-6*math.Abs(rec.Loss) {
				t.Errorf("loss %.9g, golden %.9g", loss, rec.Loss)
			}
			closeTo(t, "logits", logits, want["logits"].Values, 1e-4)
			for _, p := range grads {
				g, ok := want["grad/"+p.Name]
				if !ok {
					t.Errorf("no golden gradient for %s", p.Name)
					continue
				}
				closeTo(t, "grad/"+p.Name, p.Grad, g.Values, 1e-3)
			}
		})
	}
}

// closeTo fails unless max|a-b| <= tol * max(1e-3, max|b|).
func closeTo(t *testing.T, what string, a, b []float32, tol float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d values, golden %d", what, len(a), len(b))
		return
	}
	d, s := 0.0, 1e-3
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
		s = max(s, math.Abs(float64(b[i])))
	}
	if d > tol*s || math.IsNaN(d) {
		t.Errorf("%s: max difference %.3g at scale %.3g", what, d, s)
	}
}
