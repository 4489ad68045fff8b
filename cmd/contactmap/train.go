package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/contactmap/contactmap/internal/usage"
	shipped "github.com/contactmap/contactmap/models"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/train"
	"github.com/contactmap/contactmap/scnn/loop"
)

func runTrain(ctx context.Context, args []string) error {
	fs := newFlags("train", helpText{
		Usage: "contactmap train --features DIR --model cnn|scnn [--config default|paper] [--resume | --force] [flags]",
		About: `Trains a CNN or SCNN contact model on feature files (contactmap
features): early stopping on the validation loss, checkpoints for
--resume. Outputs in --out: model.scnn, checkpoint, train_log.tsv and
the learning curves.`,
		Example: "contactmap train --features features --model scnn --seed 1",
	})
	var o train.Options
	fs.StringVar(&o.Features, "features", "features", "feature directory (with manifest.tsv; with --resume, the run's)")
	fs.StringVar(&o.Out, "out", "", "run directory (model, checkpoint, log, plot); default runs/<model>")
	kind := fs.String("model", "scnn", "cnn or scnn")
	config := fs.String("config", "default", "default (small, trains in minutes) or paper (the paper's parameter budget)")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed of initialisation and data order, >= 1 (default 1; with --resume, the checkpoint's)")
	fs.IntVar(&o.MaxEpochs, "epochs", 40, fmt.Sprintf("maximum epochs, at most %d (with --resume, the run's)", maxEpochs))
	fs.IntVar(&o.Patience, "patience", 6, fmt.Sprintf("stop after this many epochs without a better validation loss, at most %d (with --resume, the run's)", maxEpochs))
	fs.DurationVar(&o.Budget, "budget", 0, "stop once the run's training time (all sessions, validation included) reaches this, e.g. 90m (--resume with a larger one continues the run; left out, the run's); 0: no limit")
	fs.DurationVar(&o.CheckpointEvery, "checkpoint-every", 10*time.Minute, "write the checkpoint at least this often, inside epochs too (0: every 10 minutes)")
	fs.Float64Var(&o.LR, "lr", 0, "learning rate (default: 1e-3 CNN, 2e-3 SCNN; with --resume, the run's)")
	fs.IntVar(&o.Workers, "workers", 0, fmt.Sprintf("goroutines per convolution; results depend on it (default %d, the CPUs; with --resume, the checkpoint's)", runtime.GOMAXPROCS(0)))
	fs.StringVar(&o.Precision, "precision", "", "arithmetic of the convolutions and other matrix products: float32, or bfloat16 (operands rounded to bfloat16, sums and weights float32; needs a CPU with AVX512_BF16; results depend on it) (default float32; with --resume, the checkpoint's)")
	fs.BoolVar(&o.Resume, "resume", false, "continue the run in --out from its checkpoint (a killed or interrupted run); flags left out take the checkpoint's values, but for --model and --config (give the run's). "+
		"Refused when they differ from the checkpoint's: --features (the chains and their checksums; the same data moved is noted), --model, --config, --seed, --lr, --workers, --precision, --teacher, --label-weight. "+
		"Applied with a note: --epochs, --patience, --budget (--budget 0: no limit)")
	fs.BoolVar(&o.Force, "force", false, "start a new run in an --out that holds one, replacing it")
	var teachers multiFlag
	fs.Var(&teachers, "teacher", "distil: learn the mean contact probability of these models (a shipped model, e.g. ensemble, or a model file; repeatable) instead of the labels alone; give it again with --resume")
	labelWeight := fs.Float64("label-weight", 0, "with --teacher, the labels' share of the loss, 0-1 (0: the teacher alone)")
	if err := parseTrainFlags(fs, "train", args, &o.Resume, &o.Force, map[string]string{"epochs": atLeast1, "patience": atLeast1, "budget": nonNeg,
		"checkpoint-every": nonNeg, "lr": nonNeg, "workers": nonNeg}, map[string][2]int{"epochs": {1, maxEpochs}, "patience": {1, maxEpochs}}); err != nil {
		return err
	}
	if o.Resume { // flags left out take the checkpoint's values
		unsetOnResume(fs, map[string]func(){
			"features": func() { o.Features = "" },
			"epochs":   func() { o.MaxEpochs = 0 },
			"patience": func() { o.Patience = 0 },
		})
		if flagGiven(fs, "budget") && o.Budget == 0 {
			o.Budget = -1 // no limit, whatever the checkpoint's
		}
	}
	if *labelWeight < 0 || *labelWeight > 1 || *labelWeight != *labelWeight {
		return usage.Errorf("--label-weight %v: want a value in [0, 1]", *labelWeight)
	}
	if len(teachers) == 0 && *labelWeight != 0 {
		return usage.Errorf("--label-weight needs --teacher")
	}
	var err error
	if len(teachers) > 0 {
		if o.Teacher, err = train.LoadTeacher(teachers, *labelWeight, shipped.Load, stdout); err != nil {
			return err
		}
	}
	if o.Arch, err = model.ArchByName(model.Kind(*kind), *config); err != nil {
		return usage.Errorf("%v", err)
	}
	if o.Out == "" {
		o.Out = filepath.Join("runs", *kind)
	}
	if err := checkOutDir(o.Out); err != nil {
		return err
	}
	if err := train.PrintSizes(stdout, *config); err != nil {
		return err
	}
	o.PrintTo(stdout)
	start := time.Now()
	res, err := train.Train(ctx, o)
	return finishTraining(o.Out, start, err, func(session float64) {
		fmt.Fprintf(stdout, "%s: %s; best epoch %d of %d; %d parameters; %.1f min (this session %.1f min); model %s\n",
			*kind, res.Stop, res.BestEpoch, res.Epochs, res.Params, res.Seconds/60, session, res.Model)
	})
}

// finishTraining ends a training command started at start, whose run
// returned err: an interrupt (loop.ErrInterrupted) says how to continue
// the run in out, which depends on whether it has a checkpoint (one
// stopped while preparing its data, before its first step, has none,
// and a --resume would be refused); another error is the command's; a
// finished run prints its line, given this session's minutes.
func finishTraining(out string, start time.Time, err error, line func(session float64)) error {
	switch {
	case errors.Is(err, loop.ErrInterrupted) && exists(filepath.Join(out, loop.CheckpointFile)):
		return fmt.Errorf("%w in %s; continue with --resume", err, out)
	case errors.Is(err, loop.ErrInterrupted):
		return fmt.Errorf("%w in %s; nothing was checkpointed yet, so run the same command again to start it", err, out)
	case err != nil:
		return err
	}
	line(time.Since(start).Minutes())
	return nil
}

// Upper bounds of the training commands' counts (checkLimits): beyond
// them step counts or allocations overflow, or a run could never end.
const (
	maxEpochs = 1_000_000     // --epochs, --patience
	maxSteps  = 1_000_000_000 // rna train --steps
	maxBatch  = 1 << 20       // rec train --batch
)

func runEval(ctx context.Context, args []string) error {
	fs := newFlags("eval", helpText{
		Usage: "contactmap eval --model M [--model M...] [--ensemble GLOB] --features DIR [--split test] [flags]",
		About: `Evaluates contact models, seed ensembles and the baselines on a split of
a feature directory: PPV, sensitivity, accuracy and top-L/k precision by
range. Inputs: shipped model names or model files, and a feature
directory (contactmap features). Outputs: a table on standard output,
OUT.md and OUT.json with --out.`,
		Example: "contactmap eval --model scnn --model cnn --features features --split test",
	})
	var models multiFlag
	fs.Var(&models, "model", "a shipped model ("+strings.Join(shipped.Names(), ", ")+"; an ensemble is scored as one predictor) or a model file (repeatable)")
	var ensembles multiFlag
	fs.Var(&ensembles, "ensemble", "a glob of model files scored as one predictor, the mean of their probabilities (repeatable; quote it)")
	feat := fs.String("features", "features", "feature directory")
	split := fs.String("split", "test", "train, validation, test or all")
	out := fs.String("out", "", "write OUT.md and OUT.json")
	force := fs.Bool("force", false, "overwrite an existing OUT.md and OUT.json")
	baselines := fs.Bool("baselines", true, "add the near-diagonal and random baselines")
	byLong := fs.Bool("sort", false, "list the predictors by long-range top-L/5 precision, best first")
	if err := parseNoArgs(fs, "eval", args); err != nil {
		return err
	}
	if len(models) == 0 && len(ensembles) == 0 && !*baselines {
		return usage.Errorf("nothing to evaluate: give --model")
	}
	if *out != "" {
		if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
			return err
		}
	}
	rep, err := train.Evaluate(train.EvalConfig{Features: *feat, Split: *split, Models: models, Load: shipped.Load, LogOf: shipped.RepoFile,
		Ensembles: ensembles, Baselines: *baselines, SortByLong: *byLong, Log: stderr})
	if err != nil {
		return err
	}
	if err := rep.Markdown(stdout); err != nil {
		return err
	}
	if *out != "" {
		return train.WriteReport(*out, rep)
	}
	return nil
}
