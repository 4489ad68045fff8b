package train

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/model"
)

// PrintTo writes a resumed run's notes and a line per epoch; PrintSizes
// a line per kind.
func TestPrintTo(t *testing.T) {
	var w strings.Builder
	var o Options
	o.PrintTo(&w)
	o.OnNote("--epochs 3: the checkpoint's run had 40")
	o.OnEpochStart(1, 2)
	o.OnBatch(1)
	o.OnBatch(2)
	o.OnEpochEnd(EpochLog{Epoch: 1, TrainLoss: 1.5, ValLoss: 1.25, ValAcc: 0.5, ValLongL5: 0.25, LR: 0.001, Seconds: 3})
	want := "resume: --epochs 3: the checkpoint's run had 40\n" +
		"epoch   1  train loss 1.5000  val loss 1.2500  val accuracy 0.500  val long top-L/5 0.250  lr 0.001  3s\n"
	if w.String() != want {
		t.Errorf("wrote %q, want %q", w.String(), want)
	}

	w.Reset()
	if err := PrintSizes(&w, "default"); err != nil {
		t.Fatal(err)
	}
	want = ""
	for _, k := range []model.Kind{model.CNN, model.SCNN} {
		a, _ := model.ArchByName(k, "default")
		m, err := model.NewModel(a, 0)
		if err != nil {
			t.Fatal(err)
		}
		want += fmt.Sprintf("%s (default configuration): %d trainable parameters\n", k, m.Trainable())
	}
	if w.String() != want {
		t.Errorf("sizes %q, want %q", w.String(), want)
	}
}
