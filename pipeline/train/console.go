package train

import (
	"fmt"
	"io"

	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/pipeline/model"
)

// PrintTo attaches to o the view of the run that the command line gives:
// a resumed run's notes ("resume: ..."), a bar per epoch with the mean
// loss since the epoch began and the last validation's loss and accuracy
// (progress.LossBar, on progress.Output), and a line per epoch on w. It
// sets OnNote, OnEpochStart, OnBatch and OnEpochEnd.
func (o *Options) PrintTo(w io.Writer) {
	o.OnNote = func(note string) { fmt.Fprintf(w, "resume: %s\n", note) }
	var bar progress.LossBar
	o.OnEpochStart = func(epoch, batches int) { bar.Start(batches, fmt.Sprintf("epoch %d", epoch)) }
	o.OnBatch = bar.Step
	o.OnEpochEnd = func(e EpochLog) {
		bar.Finish()
		bar.Suffix = fmt.Sprintf(" (last val loss %.4f, accuracy %.3f)", e.ValLoss, e.ValAcc)
		fmt.Fprintf(w, "epoch %3d  train loss %.4f  val loss %.4f  val accuracy %.3f  val long top-L/5 %.3f  lr %.2g  %.0fs\n",
			e.Epoch, e.TrainLoss, e.ValLoss, e.ValAcc, e.ValLongL5, e.LR, e.Seconds)
	}
}

// PrintSizes writes the trainable parameters of the CNN and the SCNN of
// the named configuration (model.ArchByName), a line each.
func PrintSizes(w io.Writer, config string) error {
	for _, k := range []model.Kind{model.CNN, model.SCNN} {
		a, _ := model.ArchByName(k, config)
		m, err := model.NewModel(a, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s (%s configuration): %d trainable parameters\n", k, config, m.Trainable())
	}
	return nil
}
