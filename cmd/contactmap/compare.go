package main

import (
	"context"
	"fmt"
	"path/filepath"
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
	dirs, err := compare.ScanDir(*runsDir)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	samples, _, err := train.LoadSplit(*feat, *split)
	if err != nil {
		return err
	}
	runs, err := compare.EvaluateDirs(dirs, samples, stderr)
	if err != nil {
		return err
	}
	return writeComparison(runs, string(model.CNN), string(model.SCNN), *resamples, *split, *feat, *out, "")
}

// compareSides compares two named sets of model files (NAME=GLOB) on one
// split: run by run, paired by seed, or each side as one seed ensemble.
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
		paths, members, secs, err := train.LoadRunModels(pattern, stderr)
		if err != nil {
			return usageError("compare: --side %q: %v", side, err)
		}
		if len(members) == 0 {
			return fmt.Errorf("compare: --side %q: no finished model files", side)
		}
		rs, err := compare.SideRuns(name, paths, members, secs, samples, ensemble, stderr)
		if err != nil {
			return err
		}
		names, runs = append(names, name), append(runs, rs...)
	}
	if names[0] == names[1] {
		return usageError("compare: the two sides have the same name %q", names[0])
	}
	extra := ""
	if ensemble {
		extra = compare.EnsembleNote
	}
	return writeComparison(runs, names[0], names[1], resamples, split, feat, out, extra)
}

// writeComparison compares kind b with kind a over the chains of split,
// a table on standard output, OUT.md and OUT.json with the extra note.
func writeComparison(runs []compare.Run, a, b string, resamples int, split, feat, out, extra string) error {
	res, err := compare.CompareChains(runs, a, b, resamples, split, feat)
	if err != nil {
		return err
	}
	if err := res.Markdown(stdout); err != nil {
		return err
	}
	return res.WriteFiles(out, extra)
}
