package train

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
)

// evalBatch is the batch size of the evaluation of report rows.
const evalBatch = 10

// ModelRow scores one model named on the command line (spec: a shipped
// name or a model file) on samples. Several members (a shipped ensemble)
// are one predictor, named "SPEC (shipped; mean of N models)"
// (EnsembleRow); one model is named "KIND (CONFIG)" and carries the
// epochs and training time of the log found from logPath (RunInfo: the
// model file, or the repository's copy of a shipped model).
func ModelRow(spec string, members []*model.Model, logPath string, samples []*model.Sample) (ReportRow, error) {
	if len(members) > 1 {
		row, err := EnsembleRow(fmt.Sprintf("%s (shipped; mean of %d models)", spec, len(members)), members, samples)
		if err != nil {
			return row, fmt.Errorf("%s: %w", spec, err)
		}
		return row, nil
	}
	m := members[0]
	s, err := EvaluateModel(m, samples, evalBatch)
	if err != nil {
		return ReportRow{}, fmt.Errorf("%s: %w", spec, err)
	}
	epochs, secs := RunInfo(logPath)
	return ReportRow{Name: fmt.Sprintf("%s (%s)", m.Arch.Kind, m.Arch.Config), Kind: string(m.Arch.Kind),
		Config: m.Arch.Config, Params: m.Trainable(), Epochs: epochs, BestEpoch: m.Arch.Epoch, TrainSec: secs, Summary: s}, nil
}

// EnsembleRow scores members as one seed ensemble (the mean of their
// probabilities, EvaluateEnsemble): kind and configuration "mixed" when
// they differ, parameters summed.
func EnsembleRow(name string, members []*model.Model, samples []*model.Sample) (ReportRow, error) {
	row := ReportRow{Name: name}
	for i, m := range members {
		if i == 0 {
			row.Kind, row.Config = string(m.Arch.Kind), m.Arch.Config
		} else if string(m.Arch.Kind) != row.Kind || m.Arch.Config != row.Config {
			row.Kind, row.Config = "mixed", "mixed"
		}
		row.Params += m.Trainable()
	}
	chains, err := EvaluateEnsemble(members, samples, evalBatch)
	if err != nil {
		return row, err
	}
	row.Summary = metrics.Summarize(chains)
	return row, nil
}

// LoadRunModels reads the model files matching the glob pattern, leaving
// out runs still training (a checkpoint beside the model not marked done;
// a line on log says so), with each run's training seconds from its log
// (RunInfo).
func LoadRunModels(pattern string, log io.Writer) (paths []string, ms []*model.Model, secs []float64, err error) {
	all, err := filepath.Glob(pattern)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, path := range all {
		if done, err := Finished(filepath.Dir(path)); err == nil && !done {
			fmt.Fprintf(log, "%s: still training (checkpoint present), left out\n", path)
			continue
		}
		m, err := model.LoadModel(path)
		if err != nil {
			return nil, nil, nil, err
		}
		_, sec := RunInfo(path)
		paths, ms, secs = append(paths, path), append(ms, m), append(secs, sec)
	}
	return paths, ms, secs, nil
}

// NameApart gives the rows that would share a name the spec of their
// model after it ("scnn (default): runs/a/model.scnn"): specs[i] is the
// model of Rows[i], for the first len(specs) rows.
func (r *Report) NameApart(specs []string) {
	rows := r.Rows[:len(specs)]
	seen := map[string]int{}
	for _, row := range rows {
		seen[row.Name]++
	}
	for i := range rows {
		if seen[rows[i].Name] > 1 {
			rows[i].Name += ": " + specs[i]
		}
	}
}

// SortByLong orders the rows by long-range top-L/5 precision, best
// first; rows of equal precision keep their order.
func (r *Report) SortByLong() {
	long := func(row ReportRow) float64 { return row.Summary.TopL[metrics.Long][metrics.TopL5] }
	sort.SliceStable(r.Rows, func(i, j int) bool { return long(r.Rows[i]) > long(r.Rows[j]) })
}

// EvalConfig configures Evaluate: the predictors of an evaluation report
// (contactmap eval) and the split they are scored on.
type EvalConfig struct {
	Features, Split string // the feature directory and its split (LoadSplit)
	// Models are model specs, each resolved by Load (a shipped name or a
	// model file; a shipped ensemble is one predictor), with the
	// training log found from LogOf(spec) (ModelRow).
	Models []string
	Load   func(spec string) ([]*model.Model, string, error)
	LogOf  func(spec string) string
	// Ensembles are globs of model files, each scored as one predictor
	// (EnsembleRow); a glob that cannot be read, or holds fewer than two
	// finished models, is a usage error (internal/usage).
	Ensembles []string
	// Baselines adds the near-diagonal and random predictors; SortByLong
	// lists the predictors by long-range top-L/5 precision, best first.
	Baselines, SortByLong bool
	// Log is told of the runs an ensemble leaves out (LoadRunModels).
	Log io.Writer
}

// Evaluate scores the predictors of cfg on its split: the models (named
// apart where they would share a name, NameApart), the ensembles, then
// the baselines.
func Evaluate(cfg EvalConfig) (*Report, error) {
	samples, _, err := LoadSplit(cfg.Features, cfg.Split)
	if err != nil {
		return nil, err
	}
	rep := &Report{Split: cfg.Split, Features: cfg.Features, Chains: len(samples)}
	for _, spec := range cfg.Models {
		ms, _, err := cfg.Load(spec)
		if err != nil {
			return nil, err
		}
		row, err := ModelRow(spec, ms, cfg.LogOf(spec), samples)
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, row)
	}
	rep.NameApart(cfg.Models)
	for _, pattern := range cfg.Ensembles {
		paths, members, _, err := LoadRunModels(pattern, cfg.Log)
		if err != nil {
			return nil, usage.Errorf("--ensemble %q: %v", pattern, err)
		}
		if len(members) < 2 {
			return nil, usage.Errorf("--ensemble %q: %d finished model files, want at least 2", pattern, len(members))
		}
		row, err := EnsembleRow(fmt.Sprintf("ensemble of %d: %s", len(paths), pattern), members, samples)
		if err != nil {
			return nil, fmt.Errorf("--ensemble %q: %w", pattern, err)
		}
		rep.Rows = append(rep.Rows, row)
	}
	if cfg.Baselines {
		rep.Rows = append(rep.Rows, EvaluateBaselines(samples)...)
	}
	if cfg.SortByLong {
		rep.SortByLong()
	}
	return rep, nil
}
