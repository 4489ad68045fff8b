package rec

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/contactmap/contactmap/internal/runcompare"
)

// Run is what a directory of runs says of one run (ScanRuns).
type Run struct {
	Seconds float64 // training time over all sessions
	Epochs  int     // epochs validated
	Model   *Model  // the selected model of a finished run; nil otherwise
	Record  *Record // its record; nil otherwise
}

// ScanRuns reads the run directories under dir (each with
// checkpoint.scnn and model.scnn), in name order, for a comparison on d.
// A directory with neither file is no run; a run whose checkpoint says
// it has not reached its epochs (inside its first epoch too) is
// training; a run whose checkpoint or model cannot be read, that has a
// model but no checkpoint, or whose model was trained on other users or
// items than d's (SameData) is Unreadable, with the reason. The error is
// the reading of dir itself.
func ScanRuns(dir string, d *Dataset) ([]runcompare.RunDir[Run], error) {
	return runcompare.ScanRuns(dir, func(path string) (Run, runcompare.RunState, error) {
		var r Run
		ckpt, model := filepath.Join(path, CheckpointFile), filepath.Join(path, ModelFile)
		var done bool
		var err error
		r.Seconds, r.Epochs, done, err = RunInfo(path)
		switch {
		case err == nil && !done:
			return r, runcompare.Training, nil
		case err != nil && exists(ckpt):
			return r, runcompare.Unreadable, err
		case err != nil && exists(model):
			return r, runcompare.Unreadable, fmt.Errorf("%s: no %s beside it", model, CheckpointFile)
		case err != nil:
			return r, runcompare.NoRun, nil
		}
		if r.Model, r.Record, err = Load(model); err != nil {
			return r, runcompare.Unreadable, err
		}
		if err := SameData(r.Record, d); err != nil {
			r.Model, r.Record = nil, nil
			return r, runcompare.Unreadable, fmt.Errorf("%s: %w", model, err)
		}
		return r, runcompare.Finished, nil
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// SameData checks that a model (its record) was trained on a data set
// with the same users and items as d.
func SameData(r *Record, d *Dataset) error {
	if len(r.UserRaw) != len(d.UserRaw) || len(r.ItemRaw) != len(d.ItemRaw) {
		return fmt.Errorf("trained on %d users and %d items, the data has %d and %d", len(r.UserRaw), len(r.ItemRaw)-1, d.Users, d.Items)
	}
	for i := range r.UserRaw {
		if r.UserRaw[i] != d.UserRaw[i] {
			return fmt.Errorf("trained on other users (user %d is %d here, %d in the model)", i, d.UserRaw[i], r.UserRaw[i])
		}
	}
	for i := range r.ItemRaw {
		if r.ItemRaw[i] != d.ItemRaw[i] {
			return fmt.Errorf("trained on other items (item %d is %d here, %d in the model)", i, d.ItemRaw[i], r.ItemRaw[i])
		}
	}
	return nil
}

// CompareMetrics are the names of the per-user metrics of a comparison
// run (UserRun), in order: MAP, then Prec@k and Recall@k for k in Ks.
func CompareMetrics() []string {
	names := []string{"MAP"}
	for _, k := range Ks {
		names = append(names, fmt.Sprintf("Prec@%d", k))
	}
	for _, k := range Ks {
		names = append(names, fmt.Sprintf("Recall@%d", k))
	}
	return names
}

// UserRun returns a comparison run's items (the users' raw IDs) and
// scores (CompareMetrics) from per-user metrics, in order.
func UserRun(r runcompare.Run, um []UserMetrics) runcompare.Run {
	names := CompareMetrics()
	r.Items, r.Scores = nil, map[string][]float64{}
	for _, u := range um {
		r.Items = append(r.Items, strconv.FormatInt(u.User, 10))
		vals := []float64{u.AP, u.Prec.At1, u.Prec.At5, u.Prec.At10, u.Recall.At1, u.Recall.At5, u.Recall.At10}
		for i, n := range names {
			r.Scores[n] = append(r.Scores[n], vals[i])
		}
	}
	return r
}

// EvaluateRun evaluates a finished run (ScanRuns) on a split of d as a
// comparison run of its kind and seed.
func EvaluateRun(d *Dataset, split Split, r Run) (runcompare.Run, error) {
	um, err := Evaluate(d, split, r.Model.Scorer(d, 0), 256)
	if err != nil {
		return runcompare.Run{}, err
	}
	return UserRun(runcompare.Run{Kind: KindName(r.Model.Kind), Seed: int(r.Record.Seed), Params: r.Model.Trainable(),
		TrainSec: r.Seconds, Epochs: r.Epochs}, um), nil
}
