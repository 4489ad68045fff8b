package compare

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/train"
)

// evalBatch is the batch size of the evaluation of runs.
const evalBatch = 10

// EnsembleNote is the note of a report whose sides are each one seed
// ensemble (SideRuns with ensemble).
const EnsembleNote = "\nEach side is one seed ensemble (the mean of its models' contact probabilities), so there is one \"seed\" (0) and no spread over seeds; parameters and training time are the members' sums.\n"

// ScanDir lists the run directories under dir (ScanRuns) as protein
// training runs: one still training (its checkpoint says so) is
// Training, one without a model file (train.ModelFile) NoRun, the others
// Finished.
func ScanDir(dir string) ([]RunDir[struct{}], error) {
	return ScanRuns(dir, func(dir string) (struct{}, RunState, error) {
		if done, err := train.Finished(dir); err == nil && !done {
			return struct{}{}, Training, nil
		}
		if _, err := os.Stat(filepath.Join(dir, train.ModelFile)); err != nil {
			return struct{}{}, NoRun, nil
		}
		return struct{}{}, Finished, nil
	})
}

// EvaluateDirs evaluates the model of every finished run of dirs on
// samples chain by chain, with its seed, size and training log, a line
// each on log; then it names on log the runs still training, left out.
func EvaluateDirs(dirs []RunDir[struct{}], samples []*model.Sample, log io.Writer) ([]Run, error) {
	var runs []Run
	var unfinished []string
	for _, d := range dirs {
		switch d.State {
		case Training:
			unfinished = append(unfinished, d.Name)
			continue
		case NoRun:
			continue
		}
		path := filepath.Join(d.Path, train.ModelFile)
		m, err := model.LoadModel(path)
		if err != nil {
			return nil, err
		}
		chains, err := train.EvaluateChains(m, samples, evalBatch)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		epochs, secs := train.RunInfo(path)
		runs = append(runs, ChainRun(Run{Kind: string(m.Arch.Kind), Seed: int(m.Arch.Seed), Params: m.Trainable(), TrainSec: secs, Epochs: epochs}, chains))
		fmt.Fprintf(log, "compare: %s: %s seed %d, %d epochs\n", d.Name, m.Arch.Kind, m.Arch.Seed, epochs)
	}
	sort.Strings(unfinished)
	for _, u := range unfinished {
		fmt.Fprintf(log, "compare: %s: still training (checkpoint present), left out\n", u)
	}
	return runs, nil
}

// SideRuns evaluates the models of one named side of a comparison on
// samples (paths, members and training seconds as
// train.LoadRunModels gives them), a line on log: run by run, each
// with its seed, or, with ensemble, as one seed ensemble (seed 0, the
// members' parameters and training time summed; see EnsembleNote).
func SideRuns(name string, paths []string, members []*model.Model, secs []float64, samples []*model.Sample, ensemble bool, log io.Writer) ([]Run, error) {
	if ensemble {
		chains, err := train.EvaluateEnsemble(members, samples, evalBatch)
		if err != nil {
			return nil, fmt.Errorf("compare: %s: %w", name, err)
		}
		r := Run{Kind: name, Seed: 0}
		for i, m := range members {
			r.Params += m.Trainable()
			r.TrainSec += secs[i]
		}
		fmt.Fprintf(log, "compare: %s: ensemble of %d models\n", name, len(members))
		return []Run{ChainRun(r, chains)}, nil
	}
	var runs []Run
	for i, m := range members {
		chains, err := train.EvaluateChains(m, samples, evalBatch)
		if err != nil {
			return nil, fmt.Errorf("compare: %s: %w", paths[i], err)
		}
		runs = append(runs, ChainRun(Run{Kind: name, Seed: int(m.Arch.Seed), Params: m.Trainable(), TrainSec: secs[i]}, chains))
	}
	fmt.Fprintf(log, "compare: %s: %d models\n", name, len(members))
	return runs, nil
}

// CompareChains compares kind b against kind a on the contact-map
// metrics (Metrics) over the chains of one split of a feature
// directory, which the result names.
func CompareChains(runs []Run, a, b string, resamples int, split, features string) (*Result, error) {
	res, err := Compare(runs, MetricNames(Metrics()), a, b, resamples, 1)
	if err != nil {
		return nil, err
	}
	res.Unit = "chains"
	res.Split, res.Features = split, features
	return res, nil
}

// CompareDirs evaluates every finished run under dir (ScanDir,
// EvaluateDirs: a line per run on log) on one split of a feature
// directory and compares the SCNN runs with the CNN runs of the same
// seeds (CompareChains).
func CompareDirs(dir, features, split string, resamples int, log io.Writer) (*Result, error) {
	dirs, err := ScanDir(dir)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	samples, _, err := train.LoadSplit(features, split)
	if err != nil {
		return nil, err
	}
	runs, err := EvaluateDirs(dirs, samples, log)
	if err != nil {
		return nil, err
	}
	return CompareChains(runs, string(model.CNN), string(model.SCNN), resamples, split, features)
}

// CompareSides compares two named sets of model files, each side
// "NAME=GLOB" (train.LoadRunModels), on one split of a feature
// directory: run by run, paired by seed, or with ensemble each side as
// one seed ensemble (SideRuns), the second side against the first
// (CompareChains). note is the report's note (EnsembleNote for
// ensembles). A side that is not NAME=GLOB, a glob that cannot be read
// and two sides of one name are usage errors (internal/usage).
func CompareSides(sides []string, features, split string, resamples int, ensemble bool, log io.Writer) (res *Result, note string, err error) {
	if len(sides) != 2 {
		return nil, "", usage.Errorf("compare: --side must be given twice (NAME=GLOB), got %d", len(sides))
	}
	samples, _, err := train.LoadSplit(features, split)
	if err != nil {
		return nil, "", err
	}
	var names []string
	var runs []Run
	for _, side := range sides {
		name, pattern, ok := strings.Cut(side, "=")
		if !ok || name == "" || pattern == "" {
			return nil, "", usage.Errorf("compare: --side %q: want NAME=GLOB", side)
		}
		paths, members, secs, err := train.LoadRunModels(pattern, log)
		if err != nil {
			return nil, "", usage.Errorf("compare: --side %q: %v", side, err)
		}
		if len(members) == 0 {
			return nil, "", fmt.Errorf("compare: --side %q: no finished model files", side)
		}
		rs, err := SideRuns(name, paths, members, secs, samples, ensemble, log)
		if err != nil {
			return nil, "", err
		}
		names, runs = append(names, name), append(runs, rs...)
	}
	if names[0] == names[1] {
		return nil, "", usage.Errorf("compare: the two sides have the same name %q", names[0])
	}
	if ensemble {
		note = EnsembleNote
	}
	res, err = CompareChains(runs, names[0], names[1], resamples, split, features)
	return res, note, err
}
