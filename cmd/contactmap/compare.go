package main

import (
	"context"
	"path/filepath"

	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/pipeline/compare"
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
	var res *compare.Result
	note := ""
	if len(sides) > 0 || *ensemble {
		if len(sides) != 2 {
			return usage.Errorf("compare: --side must be given twice (NAME=GLOB), got %d", len(sides))
		}
		if *out == "" {
			return usage.Errorf("compare: --side needs --out")
		}
		if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
			return err
		}
		res, note, err = compare.CompareSides(sides, *feat, *split, *resamples, *ensemble, stderr)
	} else {
		if *out == "" {
			*out = filepath.Join(*runsDir, "report")
		}
		if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
			return err
		}
		res, err = compare.CompareDirs(*runsDir, *feat, *split, *resamples, stderr)
	}
	if err != nil {
		return err
	}
	if err := res.Markdown(stdout); err != nil {
		return err
	}
	return res.WriteFiles(*out, note)
}
