package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pipeline/compare"
	"github.com/contactmap/contactmap/rec"
)

// defaultRecData is MovieLens 100K beside the repository (its terms do
// not allow redistribution, so the repository does not carry a copy).
const defaultRecData = "../shared/data/movielens-100k"

// movieLensURL is where MovieLens 100K is downloaded from.
const movieLensURL = "https://grouplens.org/datasets/movielens/100k/"

var recCommands = map[string]func(ctx context.Context, args []string) error{
	"train":     runRecTrain,
	"eval":      runRecEval,
	"recommend": runRecRecommend,
	"compare":   runRecCompare,
}

func recUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: contactmap rec <command> [flags]

Sequential recommendation with CosRec and SCosRec (MovieLens ratings).

commands:
  train      train a model on each user's first 70%, select on the next 10%
  eval       MAP, Precision@k and Recall@k of models and the most-popular baseline
  recommend  top-N items for given users
  compare    SCosRec vs CosRec over seeds: mean, sd, paired differences, bootstrap CIs

Example:
  contactmap rec train --data ../shared/data/movielens-100k --model scosrec --seed 1

Run "contactmap rec <command> -h" for a command's inputs, an example and its flags.`)
}

// runRec dispatches "contactmap rec <command>".
func runRec(ctx context.Context, args []string) error {
	return runGroup(ctx, "rec", recCommands, recUsage, args)
}

// runGroup dispatches "contactmap GROUP <command>" to cmds; no command is
// a usage error, -h prints usage.
func runGroup(ctx context.Context, group string, cmds map[string]func(context.Context, []string) error, usage func(io.Writer), args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return usageError("%s needs a command", group)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return flag.ErrHelp
	case "-version", "--version", "version":
		fmt.Fprintln(stdout, version())
		return flag.ErrHelp
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		usage(stderr)
		return usageError("unknown %s command %q", group, args[0])
	}
	return cmd(ctx, args[1:])
}

// loadRecData reads DIR/u.data (or DIR/ratings.dat, or a ratings file
// given directly) and splits it.
func loadRecData(path string) (*rec.Dataset, error) {
	file := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = filepath.Join(path, "u.data")
		if _, err := os.Stat(file); err != nil {
			file = filepath.Join(path, "ratings.dat")
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: give --data, a MovieLens directory (u.data, or ML-1M's ratings.dat) or ratings file; "+
			"MovieLens 100K comes from GroupLens, %s (its terms do not allow redistribution, so the repository has no copy)", err, movieLensURL)
	}
	return rec.LoadDataset(file)
}

func runRecTrain(ctx context.Context, args []string) error {
	fs := newFlags("rec train", helpText{
		Usage: "contactmap rec train [--data DIR] [--model cosrec|scosrec] [flags]",
		About: `Trains a CosRec or SCosRec recommender on MovieLens ratings: each user's
first 70% of ratings train, the next 10% select the epoch. Input: --data,
a MovieLens directory (u.data or ratings.dat) or ratings file. Outputs in
--out: model.scnn, checkpoint.scnn (resumable with --resume: written at
every epoch's end, every --checkpoint-every and on interrupt, inside an
epoch too), train_log.tsv.`,
		Example: "contactmap rec train --data ../shared/data/movielens-100k --model scosrec --seed 1",
	})
	var o rec.TrainOptions
	data := fs.String("data", defaultRecData, "MovieLens directory (u.data or ratings.dat) or ratings file (with --resume, the run's)")
	kind := fs.String("model", "scosrec", "cosrec or scosrec")
	fs.StringVar(&o.Out, "out", "", "run directory (default runs/rec/<model>-seed<seed>)")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed of initialisation, order, negatives and dropout (default 1; with --resume, the run's)")
	fs.IntVar(&o.Epochs, "epochs", 30, fmt.Sprintf("epochs, at most %d (with --resume, the run's)", maxEpochs))
	fs.IntVar(&o.Batch, "batch", 512, fmt.Sprintf("batch size, at most %d (with --resume, the run's)", maxBatch))
	fs.Float64Var(&o.LR, "lr", 1e-3, "initial learning rate (with --resume, the run's)")
	fs.Float64Var(&o.L2, "l2", 5e-6, "Adam weight decay (every parameter) (with --resume, the run's)")
	fs.IntVar(&o.Workers, "workers", 0, fmt.Sprintf("goroutines per convolution (default %d; with --resume, the run's)", runtime.GOMAXPROCS(0)))
	fs.BoolVar(&o.Resume, "resume", false, "continue the run in --out from its checkpoint; flags left out take the checkpoint's values, but for --model (give the run's). "+
		"Refused when they differ from the checkpoint's: --data (the ratings' checksum; the same ratings elsewhere are noted), --model, --seed, --batch, --lr, --l2, --workers. "+
		"Applied with a note: --epochs")
	fs.BoolVar(&o.Force, "force", false, "start a new run in an --out that holds one")
	fs.DurationVar(&o.CheckpointEvery, "checkpoint-every", 10*time.Minute, "longest time between checkpoints")
	if err := parseRunFlags(fs, "rec train", args, &o.Resume, &o.Force); err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"epochs": atLeast1, "batch": atLeast1, "lr": positive, "l2": nonNeg, "workers": nonNeg,
		"checkpoint-every": nonNeg}); err != nil {
		return err
	}
	if err := checkLimits(fs, map[string][2]int{"epochs": {1, maxEpochs}, "batch": {1, maxBatch}}); err != nil {
		return err
	}
	var err error
	if o.Kind, err = rec.ParseKind(*kind); err != nil {
		return usageError("%v", err)
	}
	if o.Out == "" {
		o.Out = filepath.Join("runs", "rec", fmt.Sprintf("%s-seed%d", o.Kind, max(o.Seed, 1)))
	}
	if err := checkOutDir(o.Out); err != nil {
		return err
	}
	// Before the data is read and the models are built: an --out that
	// cannot be written fails first.
	if err := fileio.CheckWritable(o.Out); err != nil {
		return err
	}
	if o.Resume { // flags left out take the checkpoint's values
		runData, err := rec.RunData(o.Out)
		if err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		unsetOnResume(fs, map[string]func(){
			"data":   func() { *data = orString(runData, *data) },
			"epochs": func() { o.Epochs = 0 },
			"batch":  func() { o.Batch = 0 },
			"lr":     func() { o.LR = 0 },
			"l2":     func() { o.L2 = 0 },
		})
	}
	if o.Data, err = loadRecData(*data); err != nil {
		return err
	}
	o.DataName = filepath.Clean(*data)
	st := o.Data.Stats()
	fmt.Fprintf(stdout, "data: %d users, %d items; interactions %d train, %d validation (%d unknown items), %d test (%d unknown items)\n",
		st.Users, st.Items, st.Train, st.Valid, st.UnknownValid, st.Test, st.UnknownTest)
	for _, k := range []rec.Kind{rec.CosRec, rec.SCosRec} {
		m, err := rec.NewModel(rec.DefaultConfig(k, st.Users, st.Items), 1)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d trainable parameters\n", k, m.Trainable())
	}
	o.OnNote = func(note string) { fmt.Fprintf(stdout, "resume: %s\n", note) }
	var bar lossBar
	o.OnEpochStart = func(epoch, batches int) { bar.Start(batches, fmt.Sprintf("epoch %d", epoch)) }
	o.OnBatch = bar.Step
	o.OnEpochEnd = func(e rec.EpochLog) {
		bar.Finish()
		fmt.Fprintf(stdout, "epoch %3d  train loss %.4f  val MAP %.4f  val P@1 %.4f  val R@10 %.4f  lr %.3g  %.0fs\n",
			e.Epoch, e.TrainLoss, e.ValMAP, e.ValPrec1, e.ValRec10, e.LR, e.Seconds)
	}
	start := time.Now()
	res, err := rec.Train(ctx, o)
	if errors.Is(err, rec.ErrInterrupted) {
		if bar.bar != nil {
			bar.Finish() // the epoch's bar, cut short
		}
		return interrupted(err, o.Out)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: best validation MAP %.4f at epoch %d of %d; %d parameters; %.1f min (this session %.1f min); model %s\n",
		o.Kind, res.BestMAP, res.BestEpoch, res.Epochs, res.Params, res.Seconds/60, time.Since(start).Minutes(), res.Model)
	return nil
}

func runRecEval(ctx context.Context, args []string) error {
	fs := newFlags("rec eval", helpText{
		Usage: "contactmap rec eval --model FILE [--model FILE...] [--data DIR] [flags]",
		About: `Evaluates recommender models and the most-popular baseline: MAP,
Precision@1/5/10 and Recall@1/5/10 averaged over users on the validation
or test split. Inputs: model files from rec train and the ratings they
were trained on (--data).`,
		Example: "contactmap rec eval --model runs/rec/scosrec-seed1/model.scnn --split validation",
	})
	var models multiFlag
	fs.Var(&models, "model", "a model file (repeatable)")
	data := fs.String("data", defaultRecData, "MovieLens directory or ratings file (the one the models were trained on)")
	splitName := fs.String("split", "validation", "validation or test (read the test split once, at the end)")
	baseline := fs.Bool("baseline", true, "add the most-popular baseline")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("rec eval", pos); err != nil {
		return err
	}
	split, err := rec.ParseSplit(*splitName)
	if err != nil {
		return usageError("%v", err)
	}
	d, err := loadRecData(*data)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s split of %s: %d users\n\n", split, *data, d.Users)
	fmt.Fprintln(stdout, "| model | params | MAP | P@1 | P@5 | P@10 | R@1 | R@5 | R@10 |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	row := func(name string, params string, s rec.Summary) {
		fmt.Fprintf(stdout, "| %s | %s | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f |\n", name, params, s.MAP,
			s.Prec.At1, s.Prec.At5, s.Prec.At10, s.Recall.At1, s.Recall.At5, s.Recall.At10)
	}
	for _, path := range models {
		m, r, err := rec.Load(path)
		if err != nil {
			return err
		}
		if err := rec.SameData(r, d); err != nil {
			return fmt.Errorf("rec eval: %s: %w", path, err)
		}
		um, err := rec.Evaluate(d, split, m.Scorer(d, 0), 256)
		if err != nil {
			return err
		}
		row(fmt.Sprintf("%s seed %d (%s)", m.Kind, r.Seed, path), strconv.Itoa(m.Trainable()), rec.Summarize(um))
	}
	if *baseline {
		um, err := rec.Evaluate(d, split, rec.Popularity(d), 256)
		if err != nil {
			return err
		}
		row("most popular", "", rec.Summarize(um))
	}
	return nil
}

func runRecRecommend(ctx context.Context, args []string) error {
	fs := newFlags("rec recommend", helpText{
		Usage: "contactmap rec recommend --model FILE [--data DIR] [-n N] USER...",
		About: `Prints the top-N items for each user after everything the user has
rated. Inputs: a model file from rec train, the ratings it was trained
on (--data; u.item or movies.dat beside them give titles) and user IDs
(the raw IDs of the ratings file).`,
		Example: "contactmap rec recommend --model runs/rec/scosrec-seed1/model.scnn -n 10 1 42",
	})
	modelPath := fs.String("model", "", "model file (runs/rec/.../model.scnn)")
	data := fs.String("data", defaultRecData, "MovieLens directory or ratings file: the users' histories (and u.item for titles)")
	n := fs.Int("n", 10, "items per user")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"n": atLeast1}); err != nil {
		return err
	}
	if *modelPath == "" {
		return usageError("--model is required")
	}
	if len(pos) == 0 {
		return usageError("give user ids (raw ids of the ratings file)")
	}
	m, r, err := rec.Load(*modelPath)
	if err != nil {
		return err
	}
	d, err := loadRecData(*data)
	if err != nil {
		return err
	}
	if err := rec.SameData(r, d); err != nil {
		return fmt.Errorf("rec recommend: %s: %w", *modelPath, err)
	}
	titles := map[int64]string{}
	for _, name := range []string{"u.item", "movies.dat"} {
		if f, err := os.Open(filepath.Join(*data, name)); err == nil {
			t, err := rec.ReadTitles(f, filepath.Join(*data, name))
			f.Close()
			if err != nil {
				return err
			}
			titles = t
			break
		}
	}
	var bad []string
	for _, arg := range pos {
		raw, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "contactmap rec recommend: user %q: not a number (give the users' IDs as in the ratings file)\n", arg)
			bad = append(bad, arg)
			continue
		}
		u, ok := d.UserIndex(raw)
		if !ok {
			fmt.Fprintf(stderr, "contactmap rec recommend: user %d: not in %s\n", raw, *data)
			bad = append(bad, arg)
			continue
		}
		// Recommend after everything known: all three parts.
		hist := append(d.History(int(u), rec.Test), d.Test[u]...)
		scores, err := m.ScoreAll([]int32{u}, rec.LastItems(hist, m.L), 0)
		if err != nil {
			return err
		}
		ranked := rec.Rank(scores[0], hist)
		fmt.Fprintf(stdout, "user %d (%d interactions):\n", raw, len(hist))
		for k, it := range ranked[:min(*n, len(ranked))] {
			id := d.ItemRaw[it]
			fmt.Fprintf(stdout, "  %2d. item %d  %s  (score %.3f)\n", k+1, id, titles[id], scores[0][it])
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d of %d users not found: %s", len(bad), len(pos), strings.Join(bad, " "))
	}
	return nil
}

// runRecCompare evaluates every finished run under --runs on the test
// split once and compares SCosRec with CosRec over the seeds both have.
func runRecCompare(ctx context.Context, args []string) error {
	fs := newFlags("rec compare", helpText{
		Usage: "contactmap rec compare [--runs DIR] [--data DIR] [flags]",
		About: `Compares SCosRec with CosRec over seeds: evaluates every finished run
under --runs (a directory per run with model.scnn and checkpoint.scnn) on
the test split once and reports the mean, sd, paired differences and
bootstrap confidence intervals. A run whose checkpoint or model cannot be
read is named with the reason and fails the command unless --skip-bad.
Outputs: a table on standard output, OUT.md and OUT.json.`,
		Example: "contactmap rec compare --runs runs/rec",
	})
	runsDir := fs.String("runs", "runs/rec", "directory of run directories (each with model.scnn and checkpoint.scnn)")
	data := fs.String("data", defaultRecData, "MovieLens directory or ratings file")
	splitName := fs.String("split", "test", "split to evaluate on (read once, after selection on validation)")
	out := fs.String("out", "", "write OUT.md and OUT.json (default RUNS/report)")
	resamples := fs.Int("resamples", 10000, "bootstrap resamples over users")
	force := fs.Bool("force", false, "overwrite an existing OUT.md and OUT.json")
	skipBad := fs.Bool("skip-bad", false, "compare the readable runs when some run's checkpoint or model cannot be read (else it fails)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("rec compare", pos); err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"resamples": atLeast1}); err != nil {
		return err
	}
	split, err := rec.ParseSplit(*splitName)
	if err != nil {
		return usageError("%v", err)
	}
	if *out == "" {
		*out = filepath.Join(*runsDir, "report")
	}
	if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
		return err
	}
	d, err := loadRecData(*data)
	if err != nil {
		return err
	}
	dirs, err := rec.ScanRuns(*runsDir, d)
	if err != nil {
		return fmt.Errorf("rec compare: %w", err)
	}
	// Every run is read first: a run that cannot be read fails the
	// command before any evaluation (unless --skip-bad).
	var ok []compare.RunDir[rec.Run]
	var bad badRuns
	var unfinished []string
	for _, e := range dirs {
		switch e.State {
		case compare.Training:
			unfinished = append(unfinished, e.Name)
		case compare.Unreadable:
			bad.add("rec compare", e.Name, e.Err)
		case compare.Finished:
			ok = append(ok, e)
		}
	}
	if err := bad.check(*skipBad); err != nil {
		return err
	}
	pop, err := rec.Evaluate(d, split, rec.Popularity(d), 256)
	if err != nil {
		return err
	}
	var runs []compare.Run
	for _, f := range ok {
		r, err := rec.EvaluateRun(d, split, f.Run)
		if err != nil {
			return err
		}
		runs = append(runs, r)
		fmt.Fprintf(stderr, "rec compare: %s: %s seed %d, %d epochs (best %d)\n", f.Name, f.Run.Model.Kind, f.Run.Record.Seed, f.Run.Epochs, f.Run.Record.Epoch)
	}
	sort.Strings(unfinished)
	for _, u := range unfinished {
		fmt.Fprintf(stderr, "rec compare: %s: still training, left out\n", u)
	}
	res, err := compare.Compare(runs, rec.CompareMetrics(), string(rec.CosRec), string(rec.SCosRec), *resamples, 1)
	if err != nil {
		return err
	}
	res.Split, res.Features, res.Unit, res.Digits = split.String(), *data, "users", 4
	ps := rec.Summarize(pop)
	note := fmt.Sprintf("\nMost-popular baseline on the same split: MAP %.4f, P@1 %.4f, P@5 %.4f, P@10 %.4f, R@1 %.4f, R@5 %.4f, R@10 %.4f.\n",
		ps.MAP, ps.Prec.At1, ps.Prec.At5, ps.Prec.At10, ps.Recall.At1, ps.Recall.At5, ps.Recall.At10)
	if err := res.Markdown(stdout); err != nil {
		return err
	}
	fmt.Fprint(stdout, note)
	return res.WriteFiles(*out, note)
}
