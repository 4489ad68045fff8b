package ssnet

import (
	"fmt"
	"io"
)

// Plan says what a training run will do, as rna train prints it before
// its first step: the trainable parameters of each kind under the
// protocol, then the molecules and the schedule.
func (o TrainOptions) Plan() (string, error) {
	var s string
	for _, k := range []Kind{CNN, SCNN} {
		m, err := NewModel(k, o.Protocol, 1)
		if err != nil {
			return "", err
		}
		s += fmt.Sprintf("%s (%s protocol): %d trainable parameters\n", k, o.Protocol.Name, m.Net.Trainable())
	}
	halving := ""
	if o.Protocol.HalveEvery > 0 {
		halving = fmt.Sprintf(", learning rate halved every %d steps", o.Protocol.HalveEvery)
	}
	drawn := ""
	if l := o.Protocol.MaxLen; l > 0 {
		drawn = fmt.Sprintf(" (%d of at most %d nt, the ones drawn)", len(o.Protocol.drawn(o.Train)), l)
	}
	s += fmt.Sprintf("%d training%s and %d validation molecules; %d steps of %d crops of %d nt, validation every %d steps%s\n",
		len(o.Train), drawn, len(o.Valid), o.Protocol.Steps, o.Protocol.Batch, o.Protocol.Crop, o.Protocol.EvalEvery, halving)
	if p := o.Protocol; p.ClusterWeights || p.PoolFiles {
		_, _, note, err := weighTraining(o.Train, p, o.Clusters, o.ClustersName)
		if err != nil {
			return "", err
		}
		s += note + "\n"
	}
	return s, nil
}

// String is a validation's line of a training run, as rna train prints
// it.
func (e EvalLog) String() string {
	return fmt.Sprintf("step %6d  train loss %.4f  val accuracy %.4f  val F1 %.4f  %.0fs", e.Step, e.TrainLoss, e.ValAcc, e.ValF1, e.Seconds)
}

// ReadData reads a run's training and validation molecules from
// comma-separated lists of files (ReadSetList: each file a group), and
// names them in the run's record by the lists.
func (o *TrainOptions) ReadData(train, valid string) error {
	var err error
	if o.Train, err = ReadSetList(train); err != nil {
		return err
	}
	if o.Valid, err = ReadSetList(valid); err != nil {
		return err
	}
	o.DataName, o.ValidName = train, valid
	return nil
}

// PrintTo writes the run's Plan to w and attaches to o the command
// line's view of the run: a resumed run's notes ("resume: ...") and a
// line per validation (EvalLog.String) on w, each step's loss given to
// step and each validation to reset (a loss bar's Step and Reset).
func (o *TrainOptions) PrintTo(w io.Writer, step func(loss float64), reset func()) error {
	plan, err := o.Plan()
	if err != nil {
		return err
	}
	fmt.Fprint(w, plan)
	o.OnNote = func(note string) { fmt.Fprintf(w, "resume: %s\n", note) }
	o.OnStep = func(_ int, loss float64) { step(loss) }
	o.OnEval = func(e EvalLog) {
		reset()
		fmt.Fprintln(w, e)
	}
	return nil
}
