package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/runcompare"
	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/rec"
)

// defaultRecData is MovieLens 100K beside the repository (its terms do
// not allow redistribution, so the repository does not carry a copy:
// rec.MovieLensURL).
const defaultRecData = "../shared/data/movielens-100k"

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

// group is the command "contactmap GROUP <command>": it dispatches to
// cmds; no command is a usage error, -h prints the group's usage.
func group(name string, cmds map[string]func(context.Context, []string) error, groupUsage func(io.Writer)) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		if len(args) == 0 {
			groupUsage(stderr)
			return usage.Errorf("%s needs a command", name)
		}
		switch args[0] {
		case "-h", "-help", "--help", "help":
			groupUsage(stdout)
			return flag.ErrHelp
		case "-version", "--version", "version":
			fmt.Fprintln(stdout, version())
			return flag.ErrHelp
		}
		cmd, ok := cmds[args[0]]
		if !ok {
			groupUsage(stderr)
			return usage.Errorf("unknown %s command %q", name, args[0])
		}
		return cmd(ctx, args[1:])
	}
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
	if err := parseTrainFlags(fs, "rec train", args, &o.Resume, &o.Force, map[string]string{"epochs": atLeast1, "batch": atLeast1, "lr": positive, "l2": nonNeg, "workers": nonNeg,
		"checkpoint-every": nonNeg}, map[string][2]int{"epochs": {1, maxEpochs}, "batch": {1, maxBatch}}); err != nil {
		return err
	}
	var err error
	if o.Kind, err = rec.ParseKind(*kind); err != nil {
		return usage.Errorf("%v", err)
	}
	if o.Out == "" {
		o.Out = rec.DefaultOut(o.Kind, o.Seed)
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
	if o.Data, err = rec.LoadData(*data); err != nil {
		return err
	}
	o.DataName = filepath.Clean(*data)
	if err := rec.PrintSizes(stdout, o.Data); err != nil {
		return err
	}
	cut := o.PrintTo(stdout)
	start := time.Now()
	res, err := rec.Train(ctx, o)
	if errors.Is(err, rec.ErrInterrupted) {
		cut() // the epoch's bar, cut short (nothing without one)
	}
	return finishTraining(o.Out, start, err, func(session float64) {
		fmt.Fprintf(stdout, "%s: best validation MAP %.4f at epoch %d of %d; %d parameters; %.1f min (this session %.1f min); model %s\n",
			rec.KindName(o.Kind), res.BestMAP, res.BestEpoch, res.Epochs, res.Params, res.Seconds/60, session, res.Model)
	})
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
	var cfg rec.EvalConfig
	fs.StringVar(&cfg.Data, "data", defaultRecData, "MovieLens directory or ratings file (the one the models were trained on)")
	splitName := fs.String("split", "validation", "validation or test (read the test split once, at the end)")
	fs.BoolVar(&cfg.Baseline, "baseline", true, "add the most-popular baseline")
	if err := parseNoArgs(fs, "rec eval", args); err != nil {
		return err
	}
	var err error
	if cfg.Split, err = rec.ParseSplit(*splitName); err != nil {
		return usage.Errorf("%v", err)
	}
	cfg.Models = models
	out, err := rec.EvaluateModels(cfg)
	if out != nil {
		out.WriteMarkdown(stdout)
	}
	return err
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
	var cfg rec.RecommendConfig
	fs.StringVar(&cfg.Model, "model", "", "model file (runs/rec/.../model.scnn)")
	fs.StringVar(&cfg.Data, "data", defaultRecData, "MovieLens directory or ratings file: the users' histories (and u.item for titles)")
	fs.IntVar(&cfg.N, "n", 10, "items per user")
	var err error
	if cfg.Users, err = parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"n": atLeast1}); err != nil {
		return err
	}
	if cfg.Model == "" {
		return usage.Errorf("--model is required")
	}
	if len(cfg.Users) == 0 {
		return usage.Errorf("give user ids (raw ids of the ratings file)")
	}
	outs, err := rec.Recommend(cfg)
	if werr := rec.WriteRecommendations(stdout, stderr, "contactmap rec recommend", outs, len(cfg.Users)); err == nil {
		err = werr
	}
	return err
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
	var cfg rec.CompareConfig
	fs.StringVar(&cfg.Runs, "runs", "runs/rec", "directory of run directories (each with model.scnn and checkpoint.scnn)")
	fs.StringVar(&cfg.Data, "data", defaultRecData, "MovieLens directory or ratings file")
	splitName := fs.String("split", "test", "split to evaluate on (read once, after selection on validation)")
	out := fs.String("out", "", "write OUT.md and OUT.json (default RUNS/report)")
	fs.IntVar(&cfg.Resamples, "resamples", 10000, "bootstrap resamples over users")
	force := fs.Bool("force", false, "overwrite an existing OUT.md and OUT.json")
	skipBad := fs.Bool("skip-bad", false, "compare the readable runs when some run's checkpoint or model cannot be read (else it fails)")
	if err := parseNoArgs(fs, "rec compare", args); err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"resamples": atLeast1}); err != nil {
		return err
	}
	var err error
	if cfg.Split, err = rec.ParseSplit(*splitName); err != nil {
		return usage.Errorf("%v", err)
	}
	if *out == "" {
		*out = filepath.Join(cfg.Runs, "report")
	}
	if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
		return err
	}
	// Every run is read first: a run that cannot be read fails the
	// command before any evaluation (unless --skip-bad).
	bad := runcompare.BadRuns{W: stderr, Prefix: "contactmap rec compare"}
	cfg.Unreadable = func(runs []runcompare.RunDir[rec.Run]) error {
		for _, e := range runs {
			bad.Add(e.Name, e.Err)
		}
		return bad.Check(*skipBad)
	}
	cfg.Log = stderr
	res, err := rec.CompareRuns(cfg)
	if err != nil {
		return err
	}
	if err := res.WriteMarkdown(stdout); err != nil {
		return err
	}
	return res.WriteFiles(*out)
}
