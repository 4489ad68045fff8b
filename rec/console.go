package rec

import (
	"fmt"
	"io"
	"strings"

	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/scnn"
)

// PrintSizes writes the ratings' statistics ("data: ...") and the
// trainable parameters of a CosRec and an SCosRec over their users and
// items, a line each.
func PrintSizes(w io.Writer, d *Dataset) error {
	fmt.Fprintf(w, "data: %s\n", d.Stats())
	for _, k := range []scnn.Kind{CosRec, SCosRec} {
		m, err := NewModel(DefaultConfig(k, d.Users, d.Items), 1)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %d trainable parameters\n", KindName(k), m.Trainable())
	}
	return nil
}

// PrintTo attaches to o the view of the run that the command line gives:
// a resumed run's notes ("resume: ..."), a bar per epoch with the mean
// loss since the epoch began (progress.LossBar, on progress.Output), and
// a line per epoch on w. It sets OnNote, OnEpochStart, OnBatch and
// OnEpochEnd; cut finishes the bar of an epoch cut short (an interrupted
// run's; nothing without one).
func (o *TrainOptions) PrintTo(w io.Writer) (cut func()) {
	o.OnNote = func(note string) { fmt.Fprintf(w, "resume: %s\n", note) }
	var bar progress.LossBar
	o.OnEpochStart = func(epoch, batches int) { bar.Start(batches, fmt.Sprintf("epoch %d", epoch)) }
	o.OnBatch = bar.Step
	o.OnEpochEnd = func(e EpochLog) {
		bar.Finish()
		fmt.Fprintf(w, "epoch %3d  train loss %.4f  val MAP %.4f  val P@1 %.4f  val R@10 %.4f  lr %.3g  %.0fs\n",
			e.Epoch, e.TrainLoss, e.ValMAP, e.ValPrec1, e.ValRec10, e.LR, e.Seconds)
	}
	return bar.Finish
}

// WriteRecommendations writes Recommend's outcomes: for each user found,
// "user ID (N interactions):" and a line per item on w; for each user not
// found, a line "PREFIX: error" on errw. The error names the users not
// found, of the users asked for.
func WriteRecommendations(w, errw io.Writer, prefix string, outs []RecommendOutcome, users int) error {
	var notFound []string
	for _, o := range outs {
		if o.Err != nil {
			fmt.Fprintf(errw, "%s: %v\n", prefix, o.Err)
			notFound = append(notFound, o.Arg)
			continue
		}
		fmt.Fprintf(w, "user %d (%d interactions):\n", o.User, o.Interactions)
		for k, it := range o.Items {
			fmt.Fprintf(w, "  %2d. item %d  %s  (score %.3f)\n", k+1, it.ID, it.Title, it.Score)
		}
	}
	if len(notFound) > 0 {
		return fmt.Errorf("%d of %d users not found: %s", len(notFound), users, strings.Join(notFound, " "))
	}
	return nil
}
