package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/contactmap/contactmap/pipeline/compare"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/train"
)

// runCompare evaluates every finished run under --runs (a directory per
// run holding model.scnn) on one split and compares the SCNN runs with
// the CNN runs of the same seeds (package compare).
func runCompare(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	runsDir := fs.String("runs", "runs/compare", "directory of run directories (each with model.scnn and train_log.tsv)")
	feat := fs.String("features", "features", "feature directory")
	split := fs.String("split", "test", "split to evaluate on (read once, after training and selection on validation)")
	out := fs.String("out", "", "write OUT.md and OUT.json (default RUNS/report)")
	resamples := fs.Int("resamples", 10000, "bootstrap resamples over chains")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("compare", pos); err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(*runsDir, "report")
	}
	dirs, err := os.ReadDir(*runsDir)
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
		if !d.IsDir() {
			continue
		}
		path := filepath.Join(*runsDir, d.Name(), "model.scnn")
		if done, err := train.Finished(filepath.Join(*runsDir, d.Name())); err == nil && !done {
			unfinished = append(unfinished, d.Name())
			continue
		}
		m, err := model.LoadModel(path)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return err
		}
		chains, err := train.EvaluateChains(m, samples, 10)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		epochs, secs := train.RunInfo(path)
		runs = append(runs, compare.ChainRun(compare.Run{Kind: m.Arch.Kind, Seed: int(m.Arch.Seed), Params: m.Trainable(), TrainSec: secs, Epochs: epochs}, chains))
		fmt.Fprintf(os.Stderr, "compare: %s: %s seed %d, %d epochs\n", d.Name(), m.Arch.Kind, m.Arch.Seed, epochs)
	}
	sort.Strings(unfinished)
	for _, u := range unfinished {
		fmt.Fprintf(os.Stderr, "compare: %s: still training (checkpoint present), left out\n", u)
	}
	res, err := compare.Compare(runs, compare.MetricNames(compare.Metrics()), model.CNN, model.SCNN, *resamples, 1)
	if err != nil {
		return err
	}
	res.Unit = "chains"
	res.Split, res.Features = *split, *feat
	if err := res.Markdown(os.Stdout); err != nil {
		return err
	}
	return writeComparison(*out, res, "")
}

func encodeJSON(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}
