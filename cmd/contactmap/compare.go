package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contactmap/contactmap/pipeline/compare"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/train"
)

// runCompare evaluates every finished run under --runs (a directory per
// run holding model.scnn) on one split and compares the SCNN runs with
// the CNN runs of the same seeds (package compare).
func runCompare(ctx context.Context, args []string) error {
	fs := newFlags("compare", helpText{
		Usage: "contactmap compare [--runs DIR | --side NAME=GLOB --side NAME=GLOB --out OUT] [flags]",
		About: `Compares CNN and SCNN runs over seeds: evaluates every finished run under
--runs (a directory per run with model.scnn) on one split of a feature
directory, or the model files of two named --side globs, and reports the
mean, sd, paired differences and bootstrap confidence intervals.
Inputs: run directories or model files, and a feature directory
(contactmap features). Outputs: a table on standard output, OUT.md and
OUT.json.`,
		Example: "contactmap compare --runs runs/compare --features features --split test",
	})
	runsDir := fs.String("runs", "runs/compare", "directory of run directories (each with model.scnn and train_log.tsv)")
	feat := fs.String("features", "features", "feature directory")
	split := fs.String("split", "test", "split to evaluate on (read once, after training and selection on validation)")
	out := fs.String("out", "", "write OUT.md and OUT.json (default RUNS/report)")
	resamples := fs.Int("resamples", 10000, "bootstrap resamples over chains")
	force := fs.Bool("force", false, "overwrite an existing OUT.md and OUT.json")
	var sides multiFlag
	fs.Var(&sides, "side", "NAME=GLOB: the model files of one side (given twice: the second side is compared with the first, runs paired by seed); replaces --runs")
	ensemble := fs.Bool("ensemble", false, "with --side: score each side's models as one seed ensemble (the mean of their probabilities)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"resamples": atLeast1}); err != nil {
		return err
	}
	if err := noPositional("compare", pos); err != nil {
		return err
	}
	if len(sides) > 0 || *ensemble {
		if len(sides) != 2 {
			return usageError("compare: --side must be given twice (NAME=GLOB), got %d", len(sides))
		}
		if *out == "" {
			return usageError("compare: --side needs --out")
		}
		if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
			return err
		}
		return compareSides(sides, *feat, *split, *out, *resamples, *ensemble)
	}
	if *out == "" {
		*out = filepath.Join(*runsDir, "report")
	}
	if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
		return err
	}
	// A run still training (its checkpoint says so) is left out; a
	// directory without a model holds no run.
	dirs, err := compare.ScanRuns(*runsDir, func(dir string) (struct{}, compare.RunState, error) {
		if done, err := train.Finished(dir); err == nil && !done {
			return struct{}{}, compare.Training, nil
		}
		if !exists(filepath.Join(dir, train.ModelFile)) {
			return struct{}{}, compare.NoRun, nil
		}
		return struct{}{}, compare.Finished, nil
	})
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	samples, _, err := train.LoadSplit(*feat, *split)
	if err != nil {
		return err
	}
	var runs []compare.Run
	var unfinished []string
	for _, d := range dirs {
		switch d.State {
		case compare.Training:
			unfinished = append(unfinished, d.Name)
			continue
		case compare.NoRun:
			continue
		}
		path := filepath.Join(d.Path, train.ModelFile)
		m, err := model.LoadModel(path)
		if err != nil {
			return err
		}
		chains, err := train.EvaluateChains(m, samples, 10)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		epochs, secs := train.RunInfo(path)
		runs = append(runs, compare.ChainRun(compare.Run{Kind: string(m.Arch.Kind), Seed: int(m.Arch.Seed), Params: m.Trainable(), TrainSec: secs, Epochs: epochs}, chains))
		fmt.Fprintf(stderr, "compare: %s: %s seed %d, %d epochs\n", d.Name, m.Arch.Kind, m.Arch.Seed, epochs)
	}
	sort.Strings(unfinished)
	for _, u := range unfinished {
		fmt.Fprintf(stderr, "compare: %s: still training (checkpoint present), left out\n", u)
	}
	res, err := compare.Compare(runs, compare.MetricNames(compare.Metrics()), string(model.CNN), string(model.SCNN), *resamples, 1)
	if err != nil {
		return err
	}
	res.Unit = "chains"
	res.Split, res.Features = *split, *feat
	if err := res.Markdown(stdout); err != nil {
		return err
	}
	return res.WriteFiles(*out, "")
}

func encodeJSON(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}

// compareSides compares two named sets of model files (NAME=GLOB) on one
// split: run by run, paired by seed, or each side as one seed ensemble.
// Runs still training (a checkpoint not marked done beside the model) are
// left out.
func compareSides(sides []string, feat, split, out string, resamples int, ensemble bool) error {
	samples, _, err := train.LoadSplit(feat, split)
	if err != nil {
		return err
	}
	var names []string
	var runs []compare.Run
	for _, side := range sides {
		name, pattern, ok := strings.Cut(side, "=")
		if !ok || name == "" || pattern == "" {
			return usageError("compare: --side %q: want NAME=GLOB", side)
		}
		paths, members, secs, err := loadRunModels(pattern)
		if err != nil {
			return usageError("compare: --side %q: %v", side, err)
		}
		if len(members) == 0 {
			return fmt.Errorf("compare: --side %q: no finished model files", side)
		}
		names = append(names, name)
		if ensemble {
			chains, err := train.EvaluateEnsemble(members, samples, 10)
			if err != nil {
				return fmt.Errorf("compare: %s: %w", name, err)
			}
			r := compare.Run{Kind: name, Seed: 0}
			for i, m := range members {
				r.Params += m.Trainable()
				r.TrainSec += secs[i]
			}
			runs = append(runs, compare.ChainRun(r, chains))
			fmt.Fprintf(stderr, "compare: %s: ensemble of %d models\n", name, len(members))
			continue
		}
		for i, m := range members {
			chains, err := train.EvaluateChains(m, samples, 10)
			if err != nil {
				return fmt.Errorf("compare: %s: %w", paths[i], err)
			}
			runs = append(runs, compare.ChainRun(compare.Run{Kind: name, Seed: int(m.Arch.Seed), Params: m.Trainable(), TrainSec: secs[i]}, chains))
		}
		fmt.Fprintf(stderr, "compare: %s: %d models\n", name, len(members))
	}
	if names[0] == names[1] {
		return usageError("compare: the two sides have the same name %q", names[0])
	}
	res, err := compare.Compare(runs, compare.MetricNames(compare.Metrics()), names[0], names[1], resamples, 1)
	if err != nil {
		return err
	}
	res.Unit = "chains"
	res.Split, res.Features = split, feat
	if err := res.Markdown(stdout); err != nil {
		return err
	}
	extra := ""
	if ensemble {
		extra = "\nEach side is one seed ensemble (the mean of its models' contact probabilities), so there is one \"seed\" (0) and no spread over seeds; parameters and training time are the members' sums.\n"
	}
	return res.WriteFiles(out, extra)
}
