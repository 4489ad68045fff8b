package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/outset"
	"github.com/contactmap/contactmap/internal/progress"
	shipped "github.com/contactmap/contactmap/models"
	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/pipeline/compare"
	"github.com/contactmap/contactmap/pipeline/predict"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// The bundled 16S data of the paper's RNA experiment (data/rna/README.md).
const (
	rnaTrain = "data/rna/16s-finaltrain.txt"
	rnaValid = "data/rna/16s-finalvalid.txt"
	rnaTest  = "data/rna/test/testdata.txt"
	// rnaFoldSeed holds the MFE and centroid structures of the test
	// molecules (make rna-fold-cache), so that rna eval folds none.
	rnaFoldSeed = "data/rna/test/folds.tsv.gz"
)

var rnaCommands = map[string]func(ctx context.Context, args []string) error{
	"train":   runRNATrain,
	"eval":    runRNAEval,
	"compare": runRNACompare,
	"predict": runRNAPredict,
	"dedup":   runRNADedup,
}

func rnaUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: contactmap rna <command> [flags]

RNA secondary structure with the paper's CNN and SCNN (16S rRNA data in data/rna).

commands:
  train      train a CNN or SCNN under a protocol (default or paper)
  eval       PPV, sensitivity, accuracy, F1, MCC per family, overlap with training, baseline
  compare    SCNN vs CNN over seeds: mean, sd, paired differences, bootstrap CIs
  predict    structures (BPSEQ, CT, dot-bracket, PNG) for FASTA sequences
  dedup      drop the molecules of a set similar to evaluated ones (training sets)

Example:
  contactmap rna predict seqs.fasta

Run "contactmap rna <command> -h" for a command's inputs, an example and its flags.`)
}

func runRNA(ctx context.Context, args []string) error {
	return runGroup(ctx, "rna", rnaCommands, rnaUsage, args)
}

func runRNATrain(ctx context.Context, args []string) error {
	fs := newFlags("rna train", helpText{
		Usage: "contactmap rna train [--model cnn|scnn] [--protocol default|paper] [flags]",
		About: `Trains an RNA secondary-structure CNN or SCNN under a protocol. Inputs:
training and validation molecules in the five-line format (default: the
bundled 16S data in data/rna). Outputs in --out: model.scnn,
checkpoint.scnn (resumable with --resume), train_log.tsv.`,
		Example: "contactmap rna train --model scnn --protocol default --seed 1",
	})
	var o ssnet.TrainOptions
	kind := fs.String("model", "scnn", "cnn or scnn")
	protocol := fs.String("protocol", "default", "default (minutes on 2 cores), paircrop (pair crops for long-range pairs), template (paircrop with the homology template as input), template-short (template in 1,500 steps), families (template with the energy channels, for --train of several files), families-bucketed (families with length-bucketed batches: short molecules whole, batched by length), families-noenergy (families without the energy channels) or paper (the paper's widths, 500-nt crops, 27,500 steps)")
	trainFile := fs.String("train", rnaTrain, "training molecules: files in the five-line format or dot-bracket (.dbn, .dbn.gz), comma-separated; with several, training draws each file equally often (with --resume, the run's)")
	validFile := fs.String("valid", rnaValid, "validation molecules: files as --train, comma-separated; with several, validation is the mean over the files (with --resume, the run's)")
	mfeCache := fs.String("mfe-cache", ssnet.DefaultMFECache(), "file of cached MFE structures for protocols with energy channels (\"\": fold every molecule at every start)")
	fs.StringVar(&o.Out, "out", "", "run directory (default runs/rna/<protocol>/<model>-seed<seed>)")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed (default 1; with --resume, the run's)")
	fs.IntVar(&o.Workers, "workers", 0, fmt.Sprintf("goroutines per convolution (default %d; with --resume, the run's)", runtime.GOMAXPROCS(0)))
	fs.StringVar(&o.Precision, "precision", "", "arithmetic of the convolutions and other matrix products: float32, or bfloat16 (operands rounded to bfloat16, sums and weights float32; needs a CPU with AVX512_BF16; results depend on it) (default float32; with --resume, the run's)")
	fs.BoolVar(&o.Resume, "resume", false, "continue the run in --out from its checkpoint; flags left out take the checkpoint's values, but for --model and --protocol (give the run's). "+
		"Refused when they differ from the checkpoint's: --train and --valid (the molecules' checksums; the same molecules in other files are noted), --model, --protocol, --seed, --workers, --precision. "+
		"Applied with a note: --steps, --budget (--budget 0: no limit)")
	fs.BoolVar(&o.Force, "force", false, "start a new run in an --out that holds one")
	steps := fs.Int("steps", 0, fmt.Sprintf("optimiser steps, at most %d (default: the protocol's; with --resume, the run's)", maxSteps))
	fs.DurationVar(&o.Budget, "budget", 0, "training time over all sessions of the run, e.g. 90m (0: none; with --resume, left out, the run's); then it validates, checkpoints and stops")
	fs.DurationVar(&o.CheckpointEvery, "checkpoint-every", 10*time.Minute, "longest time between checkpoints")
	if err := parseRunFlags(fs, "rna train", args, &o.Resume, &o.Force); err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"workers": nonNeg, "steps": nonNeg, "budget": nonNeg, "checkpoint-every": nonNeg}); err != nil {
		return err
	}
	if err := checkLimits(fs, map[string][2]int{"steps": {0, maxSteps}}); err != nil {
		return err
	}
	var err error
	if o.Kind, err = ssnet.ParseKind(*kind); err != nil {
		return usageError("%v", err)
	}
	if o.Protocol, err = ssnet.ProtocolByName(*protocol); err != nil {
		return usageError("%v", err)
	}
	if *steps > 0 {
		o.Protocol.Steps = *steps
	}
	if o.Out == "" {
		o.Out = filepath.Join("runs", "rna", o.Protocol.Name, fmt.Sprintf("%s-seed%d", o.Kind, max(o.Seed, 1)))
	}
	if err := checkOutDir(o.Out); err != nil {
		return err
	}
	if o.Resume { // flags left out take the checkpoint's values
		train, valid, runSteps, err := ssnet.RunData(o.Out)
		if err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		unsetOnResume(fs, map[string]func(){
			"train": func() { *trainFile = orString(train, *trainFile) },
			"valid": func() { *validFile = orString(valid, *validFile) },
			"steps": func() {
				if runSteps > 0 {
					o.Protocol.Steps = runSteps
				}
			},
		})
		if flagGiven(fs, "budget") && o.Budget == 0 {
			o.Budget = -1 // no limit, whatever the checkpoint's
		}
	}
	if o.Train, err = readSets(*trainFile); err != nil {
		return err
	}
	if o.Valid, err = readSets(*validFile); err != nil {
		return err
	}
	o.MFECache = *mfeCache
	o.DataName, o.ValidName = *trainFile, *validFile
	for _, k := range []ssnet.Kind{ssnet.CNN, ssnet.SCNN} {
		m, err := ssnet.NewModel(k, o.Protocol, 1)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s (%s protocol): %d trainable parameters\n", k, o.Protocol.Name, m.Net.Trainable())
	}
	halving := ""
	if o.Protocol.HalveEvery > 0 {
		halving = fmt.Sprintf(", learning rate halved every %d steps", o.Protocol.HalveEvery)
	}
	fmt.Fprintf(stdout, "%d training and %d validation molecules; %d steps of %d crops of %d nt, validation every %d steps%s\n",
		len(o.Train), len(o.Valid), o.Protocol.Steps, o.Protocol.Batch, o.Protocol.Crop, o.Protocol.EvalEvery, halving)
	o.OnNote = func(note string) { fmt.Fprintf(stdout, "resume: %s\n", note) }
	var bar lossBar
	bar.Start(o.Protocol.Steps, "training")
	o.OnStep = func(_ int, loss float64) { bar.Step(loss) }
	o.OnEval = func(e ssnet.EvalLog) {
		bar.Reset()
		fmt.Fprintf(stdout, "step %6d  train loss %.4f  val accuracy %.4f  val F1 %.4f  %.0fs\n", e.Step, e.TrainLoss, e.ValAcc, e.ValF1, e.Seconds)
	}
	start := time.Now()
	_, res, err := ssnet.Train(ctx, o)
	bar.Finish()
	if errors.Is(err, ssnet.ErrInterrupted) {
		return interrupted(err, o.Out)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: best validation accuracy %.4f at step %d of %d; %.1f min (this session %.1f min); model %s\n",
		o.Kind, res.BestAcc, res.BestStep, res.Steps, res.Seconds/60, time.Since(start).Minutes(), filepath.Join(o.Out, ssnet.ModelFile))
	return nil
}

// readSets reads comma-separated molecule files (ssnet.ReadSets: each
// file a group).
func readSets(list string) ([]ssnet.Molecule, error) {
	var files []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f != "" {
			files = append(files, filepath.Clean(f))
		}
	}
	if len(files) == 0 {
		return nil, usageError("no molecule file in %q", list)
	}
	return ssnet.ReadSets(files)
}

// attachMFE attaches the MFE structures of a set's molecules without one
// (for a network with energy channels, or rna eval's MFE baseline),
// through the cache file (if any), with a progress bar.
func attachMFE(ctx context.Context, set []ssnet.Molecule, cacheFile string) error {
	missing := 0 // AttachMFE folds only the molecules without one
	for k := range set {
		if set[k].MFE == nil {
			missing++
		}
	}
	bar := progress.New(missing, "MFE structures")
	defer bar.Finish()
	return ssnet.AttachMFECached(ctx, cacheFile, runtime.GOMAXPROCS(0), func() { bar.Add(1) }, set)
}

// rnaSplitFile maps a split name to its bundled file.
func rnaSplitFile(split string) (string, error) {
	switch split {
	case "test":
		return rnaTest, nil
	case "validation", "valid":
		return rnaValid, nil
	case "train":
		return rnaTrain, nil
	}
	return "", usageError("unknown split %q (train, validation or test)", split)
}

func runRNAEval(ctx context.Context, args []string) error {
	fs := newFlags("rna eval", helpText{
		Usage: "contactmap rna eval [--model M...] [--split test] [flags]",
		About: `Evaluates RNA models under each decoder, and the model-free baselines
(stacking; MFE; homology transfer from the training molecules): PPV,
sensitivity, accuracy, F1 and MCC per family and overall, on all
molecules and on those under 95% identity to every training molecule,
with the overlap table. Inputs: shipped model names or model files, and a
split (or --set, a five-line file).`,
		Example: "contactmap rna eval --model rna-scnn --split test --out report",
	})
	var models multiFlag
	fs.Var(&models, "model", "a shipped RNA model ("+strings.Join(shipped.RNANames(), ", ")+") or a model file (repeatable)")
	split := fs.String("split", "test", "train, validation or test (read the test split once, at the end)")
	setFile := fs.String("set", "", "molecules to evaluate (five-line format or dot-bracket; default: the split's bundled file)")
	trainFile := fs.String("train", "", "training molecules (comma-separated files), for the overlap analysis, homology transfer and template networks (default: the training files of the shipped models given, which must share them, in training's order; else "+rnaTrain+")")
	mfeCache := fs.String("mfe-cache", ssnet.DefaultMFECache(), "file of cached MFE structures, for networks with energy channels and the MFE baseline")
	centroidCache := fs.String("centroid-cache", ssnet.DefaultCentroidCache(), "file of cached centroid structures, for the centroid baseline (\"\": fold every molecule)")
	foldSeed := fs.String("fold-seed", rnaFoldSeed, "file of read-only MFE and centroid structures looked up before the caches (the bundled test molecules', built by make rna-fold-cache; \"\": none)")
	baseline := fs.Bool("baseline", true, "add the model-free baselines: stacking (most stacked canonical pairs, hairpins >= 3), MFE (Turner 2004, RNAfold defaults) and homology transfer from the --train molecules")
	decoders := fs.String("decoders", "greedy,mea,mea-pk", "decoders of the models' probabilities, comma-separated: greedy (the paper's, at 0.5), mea (nested MEA), mea-pk (MEA and a crossing layer)")
	out := fs.String("out", "", "write OUT.md and OUT.json")
	force := fs.Bool("force", false, "overwrite an existing OUT.md and OUT.json")
	workers := fs.Int("workers", 0, "goroutines per convolution")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("rna eval", pos); err != nil {
		return err
	}
	if *out != "" {
		if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
			return err
		}
	}
	var ds []ssnet.Decoder
	for _, name := range strings.Split(*decoders, ",") {
		d, err := ssnet.ParseDecoder(strings.TrimSpace(name))
		if err != nil {
			return usageError("--decoders: %v", err)
		}
		ds = append(ds, d)
	}
	if err := checkRanges(fs, map[string]string{"workers": nonNeg}); err != nil {
		return err
	}
	file := *setFile
	if file == "" {
		if file, err = rnaSplitFile(*split); err != nil {
			return err
		}
	}
	if *trainFile == "" {
		if *trainFile, err = rnaEvalTrain(models); err != nil {
			return err
		}
	}
	set, err := ssnet.ReadSet(file)
	if err != nil {
		return err
	}
	seed := ssnet.NewFoldSeed()
	if *foldSeed != "" {
		if seed, err = ssnet.ReadFoldSeed(*foldSeed); err != nil {
			return err
		}
		if seed.Stale {
			fmt.Fprintf(stderr, "contactmap rna eval: %s holds the folds of another rna/fold (fingerprint %s, now %s): not used; make rna-fold-cache rebuilds it\n", *foldSeed, seed.Fingerprint, ssnet.FoldFingerprint())
		}
	}
	train, err := readSets(*trainFile)
	if err != nil {
		return err
	}
	overlaps := ssnet.Overlaps(set, train)
	disjoint := ssnet.Disjoint(overlaps)
	// The training molecules are the references of homology transfer and
	// of the template networks; evaluating the training split itself
	// would find every molecule as its own template.
	sameAsTrain := false
	for _, f := range strings.Split(*trainFile, ",") {
		sameAsTrain = sameAsTrain || filepath.Clean(file) == filepath.Clean(strings.TrimSpace(f))
	}
	refs := ssnet.TemplateRefs(train)
	var rows []ssnet.EvalRow
	addRow := func(name string, params int, scores []ssnet.MolScore) {
		rows = append(rows, ssnet.NewEvalRow(name, params, scores, disjoint))
	}
	eval := func(name string, pred ssnet.Predictor) error {
		bar := progress.New(len(set), name)
		scores, err := ssnet.Evaluate(set, pred, func() { bar.Add(1) })
		bar.Finish()
		if err != nil {
			return err
		}
		addRow(name, 0, scores)
		return nil
	}
	templated := false
	for _, path := range models {
		m, _, err := shipped.LoadRNA(path)
		if err != nil {
			return err
		}
		r := m.Record
		if r.UsesTemplates() && !templated {
			if sameAsTrain {
				return usageError("%s takes homology templates from the training molecules; evaluate it on another split than the training file", path)
			}
			if err := ssnet.AttachTemplates(ctx, set, refs, false, 0); err != nil {
				return err
			}
			templated = true
		}
		if r.UsesEnergy() && ssnet.AttachSeededMFE(set, seed.MFE) > 0 {
			if err := attachMFE(ctx, set, *mfeCache); err != nil {
				return err
			}
		}
		name := fmt.Sprintf("%s %s seed %d", r.Kind, r.Protocol, r.Seed)
		bar := progress.New(len(set), name)
		scores, err := ssnet.EvaluateDecoders(set, m, *workers, ds, func() { bar.Add(1) })
		bar.Finish()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for k, d := range ds {
			addRow(fmt.Sprintf("%s, %s", name, d), m.Net.Trainable(), scores[k])
		}
	}
	if *baseline {
		if err := eval("baseline: stacking", ssnet.BaselinePredictor()); err != nil {
			return err
		}
		// The MFE baseline reads the attached structures (from the seed,
		// the cache, or folded once for the model and the baseline).
		if ssnet.AttachSeededMFE(set, seed.MFE) > 0 {
			if err := attachMFE(ctx, set, *mfeCache); err != nil {
				return err
			}
		}
		if err := eval("baseline: MFE (Turner 2004)", ssnet.MFEPredictor()); err != nil {
			return err
		}
		centroids := ssnet.NewCentroidCache()
		if *centroidCache != "" {
			if centroids, err = ssnet.ReadCentroidCache(*centroidCache); err != nil {
				return err
			}
		}
		centroids.WithSeed(seed.Centroid)
		if err := eval("baseline: centroid (Turner 2004 ensemble)", ssnet.CachedCentroidPredictor(centroids)); err != nil {
			return err
		}
		if *centroidCache != "" && centroids.Changed() {
			if err := centroids.Write(*centroidCache); err != nil {
				return err
			}
		}
		if sameAsTrain {
			fmt.Fprintln(stderr, "contactmap rna eval: no homology baseline on the training molecules themselves")
		} else if err := eval("baseline: homology transfer", ssnet.HomologyPredictor(refs)); err != nil {
			return err
		}
	}
	var b strings.Builder
	writeRNAReport(&b, file, set, overlaps, rows)
	fmt.Fprint(stdout, b.String())
	if *out != "" {
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
			return err
		}
		if err := fileio.WriteAtomic(*out+".json", func(w io.Writer) error {
			return encodeJSON(w, map[string]any{"set": file, "overlaps": overlaps, "rows": rows})
		}); err != nil {
			return err
		}
		return fileio.WriteAtomic(*out+".md", func(w io.Writer) error { _, err := io.WriteString(w, b.String()); return err })
	}
	return nil
}

// rnaEvalTrain is rna eval's default --train: the training files of the
// shipped models among specs (their references, RNAModel.Refs, read from
// the files they were trained on), which must be the same files in the
// same order; rnaTrain when no shipped model is given.
func rnaEvalTrain(specs []string) (string, error) {
	train, from := "", ""
	for _, spec := range specs {
		m, err := shipped.ShippedRNA(spec)
		if err != nil {
			continue // a model file
		}
		files := strings.Join(m.Refs, ",")
		if train != "" && files != train {
			return "", usageError("%s and %s were trained on different files (%s; %s): evaluate them separately or give --train", from, spec, train, files)
		}
		train, from = files, spec
	}
	if train == "" {
		train = rnaTrain
	}
	return train, nil
}

func writeRNAReport(b *strings.Builder, file string, set []ssnet.Molecule, overlaps []ssnet.Overlap, rows []ssnet.EvalRow) {
	nDis, nExact := 0, 0
	for _, o := range overlaps {
		if o.Identity < ssnet.NearIdentical {
			nDis++
		}
		if o.Exact {
			nExact++
		}
	}
	fmt.Fprintf(b, "Evaluation on %s: %d molecules; means over molecules. Decoders: greedy (the paper's: the most probable pairs above %.1f, any pairs), mea (the maximum expected accuracy nested structure of canonical pairs, hairpins >= 3), mea-pk (mea and a crossing layer of pairs above 0.5). Homology transfer copies the pairs of the training molecule found by 8-mer (Jaccard) similarity and global alignment.\n\n", file, len(set), ssnet.Threshold)
	table := func(title string, pick func(ssnet.EvalRow) []ssnet.Summary) {
		fmt.Fprintf(b, "%s\n\n| predictor | group | n | PPV | sensitivity | accuracy (PPV+Sens)/2 | F1 | MCC | F1 ±1 | MCC ±1 |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", title)
		for _, r := range rows {
			for _, s := range pick(r) {
				fmt.Fprintf(b, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", r.Name, s.Group, s.N,
					s.Exact.PPV, s.Exact.Sens, s.Exact.Accuracy, s.Exact.F1, s.Exact.MCC, s.Shift.F1, s.Shift.MCC)
			}
		}
		b.WriteString("\n")
	}
	table("All molecules (the paper's protocol):", func(r ssnet.EvalRow) []ssnet.Summary { return r.Summaries })
	table(fmt.Sprintf("Only the %d molecules under %.0f%% identity to every training molecule:", nDis, 100*ssnet.NearIdentical),
		func(r ssnet.EvalRow) []ssnet.Summary { return r.Disjoint })
	fmt.Fprintf(b, "Overlap with the training set (%d identical sequences, %d at >= %.0f%% identity):\n\n| molecule | nearest training molecule | identity |\n|---|---|---:|\n",
		nExact, len(overlaps)-nDis, 100*ssnet.NearIdentical)
	sorted := append([]ssnet.Overlap(nil), overlaps...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Identity > sorted[j].Identity })
	for _, o := range sorted {
		fmt.Fprintf(b, "| %s | %s | %.3f |\n", o.Name, o.Nearest, o.Identity)
	}
}

// runRNACompare evaluates every finished run under --runs on the test
// molecules once and compares the SCNN runs with the CNN runs.
func runRNACompare(ctx context.Context, args []string) error {
	fs := newFlags("rna compare", helpText{
		Usage: "contactmap rna compare [--runs DIR] [flags]",
		About: `Compares RNA SCNN with CNN runs over seeds, and each kind with the
model-free baselines (stacking, MFE, homology transfer): evaluates every
finished run under --runs (a directory per run with model.scnn and
checkpoint.scnn) on one split under one decoder and reports the mean,
sd, paired differences and bootstrap confidence intervals over
molecules, on all molecules and on those without a near-identical
training molecule. A run whose checkpoint or model cannot be read is
named with the reason and fails the command unless --skip-bad. Outputs: a
table on standard output, OUT.md and OUT.json.`,
		Example: "contactmap rna compare --runs runs/rna/default",
	})
	runsDir := fs.String("runs", "runs/rna/default", "directory of run directories")
	split := fs.String("split", "test", "split to evaluate on")
	out := fs.String("out", "", "write OUT.md and OUT.json (default RUNS/report)")
	resamples := fs.Int("resamples", 10000, "bootstrap resamples over molecules")
	force := fs.Bool("force", false, "overwrite existing reports (OUT.md, OUT.json and the OUT-SUFFIX ones)")
	trainFile := fs.String("train", rnaTrain, "training molecules (comma-separated files), for the overlap of the test set, homology transfer and template networks")
	mfeCache := fs.String("mfe-cache", ssnet.DefaultMFECache(), "file of cached MFE structures, for networks with energy channels")
	skipBad := fs.Bool("skip-bad", false, "compare the readable runs when some run's checkpoint or model cannot be read (else it fails)")
	decoderName := fs.String("decoder", string(ssnet.Greedy), "decoder of the runs' probabilities: greedy (the paper's), mea or mea-pk")
	setFile := fs.String("set", "", "molecules to evaluate (five-line format; default: the split's bundled file; --split then names the scores' cache)")
	withBaselines := fs.Bool("baselines", true, "also compare each kind with the model-free baselines (stacking; MFE; homology transfer from --train)")
	against := fs.String("against", "", "a second directory of runs (another precision or recipe, say): each kind under --runs is compared with the same kind here, paired by seed, instead of SCNN with CNN and the baselines (differences: --runs minus --against; the sides labelled by the directories' names; OUT-KIND and OUT-disjoint-KIND files)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("rna compare", pos); err != nil {
		return err
	}
	decoder, err := ssnet.ParseDecoder(*decoderName)
	if err != nil {
		return usageError("--decoder: %v", err)
	}
	if err := checkRanges(fs, map[string]string{"resamples": atLeast1}); err != nil {
		return err
	}
	if report := *out; !*force {
		if report == "" {
			report = filepath.Join(*runsDir, "report")
		}
		if err := refuseOverwrite(false, reportFiles(report)...); err != nil {
			return err
		}
	}
	file := *setFile
	if file == "" {
		if file, err = rnaSplitFile(*split); err != nil {
			return err
		}
	}
	set, err := ssnet.ReadSet(file)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(*runsDir, "report")
	}
	// Every run is read first: a run that cannot be read fails the
	// command before any evaluation (unless --skip-bad).
	var bad badRuns
	finished := func(dir string) ([]compare.RunDir[ssnet.Run], error) {
		dirs, err := ssnet.ScanRuns(dir)
		if err != nil {
			return nil, fmt.Errorf("rna compare: %w", err)
		}
		var ok []compare.RunDir[ssnet.Run]
		for _, d := range dirs {
			name := d.Name // --against's runs by their path
			if dir != *runsDir {
				name = filepath.Join(dir, d.Name)
			}
			switch d.State {
			case compare.Unreadable:
				bad.add("rna compare", name, d.Err)
			case compare.Training:
				fmt.Fprintf(stderr, "rna compare: %s: still training (%d steps), left out\n", name, d.Run.Steps)
			case compare.Finished:
				ok = append(ok, d)
			}
		}
		return ok, nil
	}
	ok, err := finished(*runsDir)
	if err != nil {
		return err
	}
	var okB []compare.RunDir[ssnet.Run]
	if *against != "" {
		if okB, err = finished(*against); err != nil {
			return err
		}
	}
	if err := bad.check(*skipBad); err != nil {
		return err
	}
	all := append(append([]compare.RunDir[ssnet.Run](nil), ok...), okB...)
	train, err := readSets(*trainFile)
	if err != nil {
		return err
	}
	refs := ssnet.TemplateRefs(train)
	for _, f := range all {
		if f.Run.Model.Record.UsesTemplates() {
			if err := ssnet.AttachTemplates(ctx, set, refs, false, 0); err != nil {
				return err
			}
			break
		}
	}
	for _, f := range all {
		if f.Run.Model.Record.UsesEnergy() {
			if err := attachMFE(ctx, set, *mfeCache); err != nil {
				return err
			}
			break
		}
	}
	score := func(ok []compare.RunDir[ssnet.Run]) ([]compare.Run, error) {
		var runs []compare.Run
		for _, f := range ok {
			r, err := ssnet.ScoreRun(f.Path, f.Run, *split, set, decoder)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
			mr := f.Run.Model.Record
			fmt.Fprintf(stderr, "rna compare: %s: %s seed %d (best step %d)\n", f.Path, mr.Kind, mr.Seed, mr.Step)
		}
		return runs, nil
	}
	runs, err := score(ok)
	if err != nil {
		return err
	}
	disjoint := ssnet.Disjoint(ssnet.Overlaps(set, train))
	var outs []ssnet.Comparison
	if *against != "" {
		runsB, err := score(okB)
		if err != nil {
			return err
		}
		if outs, err = ssnet.CompareSides(runs, runsB, filepath.Base(filepath.Clean(*runsDir)), filepath.Base(filepath.Clean(*against)), disjoint, *split, file, *resamples); err != nil {
			return err
		}
		if len(outs) == 0 {
			return fmt.Errorf("rna compare: no kind with finished runs in both %s and %s", *runsDir, *against)
		}
	} else {
		var baselines []compare.Run
		if *withBaselines {
			if baselines, err = ssnet.BaselineRuns(set, refs); err != nil {
				return err
			}
		}
		if outs, err = ssnet.CompareRuns(runs, baselines, disjoint, *split, file, *resamples); err != nil {
			return err
		}
		if len(outs) == 0 {
			return fmt.Errorf("rna compare: no finished run in %s", *runsDir)
		}
	}
	fmt.Fprintf(stdout, "Decoder: %s.\n\n", decoder)
	for _, o := range outs {
		if err := o.Result.Markdown(stdout); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		extra := ""
		if o.Suffix == "" && *against == "" { // SCNN against CNN on all molecules
			extra = paperRNATable
		}
		if err := refuseOverwrite(*force, reportFiles(*out+o.Suffix)...); err != nil {
			return err
		}
		if err := o.Result.WriteFiles(*out+o.Suffix, extra); err != nil {
			return err
		}
	}
	return nil
}

// paperRNATable is the paper's 16S result (Maduranga et al., RNA
// secondary structure table), for the report beside ours.
const paperRNATable = `
The paper's table (16S test set, 35 molecules, the paper-size networks after about 27,500 steps on a V100; one run each):

| model | parameters | PPV | sensitivity | accuracy (PPV+Sens)/2 |
|---|---:|---:|---:|---:|
| CNN | 387,798 | 0.867 | 0.831 | 0.849 |
| SCNN | 239,198 | 0.892 | 0.845 | 0.868 |
`

// rnaInput is one molecule to predict, with its known structure if the
// input file had one.
type rnaInput struct {
	Name, Seq string
	Known     *rna.Structure
	Ambiguous int  // IUPAC ambiguity codes read as N
	DNA       bool // a FASTA record with T and no U
}

// readRNAInputs reads FASTA, dot-bracket, CT and BPSEQ files (plain,
// gzip or zstd; the format told by the extension where it names one, else
// by content: rnaFormat), and standard input ("-", any of them). Bad
// records, and inputs that are empty or hold no record, are returned as
// errors beside the good ones.
func readRNAInputs(args []string, stdin io.Reader) ([]rnaInput, []error) {
	var out []rnaInput
	var errs []error
	for _, a := range args {
		name, ext := a, rnaExt(a)
		var r io.ReadCloser
		var err error
		if a == "-" {
			name, ext = "standard input", ""
			if r, err = fileio.NewReader(stdin); err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
		} else {
			r, err = fileio.Open(a) // decompresses; its errors name the file
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// Bounded: a gzip bomb or gigabytes of zeros are refused after a
		// bounded read, binary data by its first block.
		data, err := fileio.ReadText(r, rna.MaxTotal, rna.MaxLine)
		r.Close()
		if err == nil && fileio.IsBinary(data[:min(len(data), fileio.SniffSize)]) {
			err = fmt.Errorf("binary data, not an RNA sequence or structure file")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		if len(bytes.TrimSpace(data)) == 0 {
			errs = append(errs, fmt.Errorf("%s: empty input: no sequence to predict", name))
			continue
		}
		got, bad := readRNAFile(data, name, rnaFormat(data, ext))
		if len(got) == 0 && len(bad) == 0 {
			bad = []error{fmt.Errorf("%s: no FASTA record (a record starts with a '>' line)", name)}
		}
		out, errs = append(out, got...), append(errs, bad...)
	}
	return out, errs
}

// rnaExt is the lower-case extension of a file name, a compression
// suffix aside.
func rnaExt(name string) string { return filepath.Ext(uncompressedName(strings.ToLower(name))) }

// uncompressedName is name without a compression suffix (.gz, .zst).
func uncompressedName(name string) string {
	for _, z := range []string{".gz", ".zst"} {
		name = strings.TrimSuffix(name, z)
	}
	return name
}

// rnaFormat is the format of an RNA input: its extension's (.ct and
// .nopct: CT; .bpseq; .dbn and .db: dot-bracket), else its content's:
// dot-bracket where a line after a '>' header holds only structure
// characters, CT where the first line is a count and a name and the
// second has six fields, BPSEQ where the first line has three fields
// "index base partner", and FASTA otherwise.
func rnaFormat(data []byte, ext string) string {
	switch ext {
	case ".ct", ".nopct":
		return "ct"
	case ".bpseq":
		return "bpseq"
	case ".dbn", ".db":
		return "dbn"
	}
	var lines []string // the first 64 lines that are not blank or '#' comments
	for rest := string(data); rest != "" && len(lines) < 64; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		if t := strings.TrimSpace(l); t != "" && t[0] != '#' {
			lines = append(lines, t)
		}
	}
	if len(lines) == 0 {
		return "fasta"
	}
	if lines[0][0] == '>' {
		for _, l := range lines[1:] {
			if l[0] != '>' && strings.Trim(l, ".()[]{}<>") == "" {
				return "dbn"
			}
		}
		return "fasta"
	}
	isInt := func(s string) bool { _, err := strconv.Atoi(s); return err == nil }
	f := strings.Fields(lines[0])
	switch {
	case len(f) == 3 && isInt(f[0]) && len(f[1]) == 1 && isInt(f[2]):
		return "bpseq"
	case len(f) >= 1 && isInt(f[0]) && len(lines) > 1 && len(strings.Fields(lines[1])) >= 6:
		return "ct"
	}
	return "fasta"
}

// readRNAFile reads one input in the format given (rnaFormat). A CT,
// BPSEQ or dot-bracket input is scored against its own structure.
func readRNAFile(data []byte, name, format string) ([]rnaInput, []error) {
	switch format {
	case "ct", "bpseq":
		read := rna.ReadCT
		if format == "bpseq" {
			read = rna.ReadBPSEQ
		}
		s, err := read(bytes.NewReader(data), name)
		if err != nil {
			return nil, []error{err}
		}
		// RNA STRAND names a record by its file name: drop the extension.
		base := uncompressedName(filepath.Base(name))
		s.Name = strings.TrimSuffix(s.Name, filepath.Ext(base))
		if s.Name == "" {
			s.Name = strings.TrimSuffix(base, filepath.Ext(base))
		}
		return []rnaInput{{Name: s.Name, Seq: s.Seq, Known: s}}, nil
	case "dbn":
		ss, err := rna.ReadDBN(bytes.NewReader(data), name)
		var out []rnaInput
		for _, s := range ss {
			out = append(out, rnaInput{Name: s.Name, Seq: s.Seq, Known: s})
		}
		if err != nil {
			return out, []error{err}
		}
		return out, nil
	}
	seqs, bad := rna.ReadFASTA(bytes.NewReader(data), name)
	out := make([]rnaInput, len(seqs))
	for i, q := range seqs {
		out[i] = rnaInput{Name: q.Name, Seq: q.Seq, Ambiguous: q.Ambiguous}
	}
	return checkFASTALetters(data, name, out, bad)
}

// proteinFraction is the share of letters of a record's raw sequence
// that are not A, C, G, U, T or N (either case) from which rna predict
// takes it for a protein. IUPAC codes (R Y K M S W B D H V) are letters
// of amino acids too, and count against it: a protein spelt in them
// reads as RNA, but no real RNA is mostly ambiguity codes.
const proteinFraction = 0.5

// fastaLetters is one record of a FASTA file as rna.ReadFASTA reads it,
// for checkFASTALetters.
type fastaLetters struct {
	name   string
	other  float64 // share of its letters not A, C, G, U, T or N
	dna    bool    // T and no U
	readOK bool    // rna.ReadFASTA returns it (else an error)
}

// checkFASTALetters refuses the records of a FASTA file that look like
// proteins (over proteinFraction of their letters not A, C, G, U, T or
// N), with an error saying so in place of rna.ReadFASTA's (an invalid
// base) or of the molecule (a protein in IUPAC-compatible letters), and
// marks the records that look like DNA. The records are read again,
// by the same reader and bounds, and matched to rna.ReadFASTA's results
// in order; where they do not match (a file the reader stopped in),
// the results are returned as they are.
func checkFASTALetters(data []byte, path string, seqs []rnaInput, bad []error) ([]rnaInput, []error) {
	fr := fileio.NewFASTAReader(bytes.NewReader(data))
	fr.CRLines, fr.Unit = true, "nt"
	fr.MaxSeq, fr.MaxRecords, fr.MaxTotal, fr.MaxHeader = rna.MaxSequence, rna.MaxRecords, rna.MaxTotal, rna.MaxLine
	var recs []fastaLetters
	nOK, protein := 0, false
	for {
		rec, err := fr.Read()
		if err != nil {
			break
		}
		var r fastaLetters
		if f := strings.Fields(rec.Name + " " + rec.Desc); len(f) > 0 {
			r.name = f[0]
		}
		letters, other, t, u := 0, 0, 0, 0
		for _, c := range rec.Seq {
			lc := c | ('a' - 'A')
			if lc < 'a' || lc > 'z' {
				continue
			}
			letters++
			switch lc {
			case 'a', 'c', 'g', 'n':
			case 't':
				t++
			case 'u':
				u++
			default:
				other++
			}
		}
		if letters > 0 {
			r.other = float64(other) / float64(letters)
		}
		r.dna = t > 0 && u == 0
		seq, err := rna.NormalizeSequence(string(rec.Seq))
		r.readOK = err == nil && seq != ""
		if r.readOK {
			nOK++
		}
		protein = protein || r.other > proteinFraction
		recs = append(recs, r)
	}
	if !protein && !slices.ContainsFunc(recs, func(r fastaLetters) bool { return r.dna }) {
		return seqs, bad
	}
	if nOK != len(seqs) || len(recs)-nOK > len(bad) {
		return seqs, bad // not the records rna.ReadFASTA read
	}
	var out []rnaInput
	var errs []error
	si, bi := 0, 0
	for k, r := range recs {
		var in rnaInput
		var err error
		if r.readOK {
			in, si = seqs[si], si+1
		} else {
			err, bi = bad[bi], bi+1
		}
		if r.other > proteinFraction {
			errs = append(errs, fmt.Errorf("%s: record %d (%s): this looks like a protein sequence (%.0f%% of its letters are not A, C, G, U, T or N): use contactmap predict", path, k+1, r.name, 100*r.other))
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		in.DNA = r.dna
		out = append(out, in)
	}
	return out, append(errs, bad[bi:]...)
}

func runRNAPredict(ctx context.Context, args []string) error {
	fs := newFlags("rna predict", helpText{
		Usage: "contactmap rna predict [flags] INPUT...",
		About: `Predicts RNA secondary structures.

INPUT is a FASTA file, a dot-bracket file (records of three lines:
>name, sequence, structure; as bpRNA's .dbn and this command's .db), a CT
file or a BPSEQ file (plain, gzip or zstd; the format by the extension
.ct, .nopct, .bpseq, .dbn or .db, else by content), or - for standard
input, and the inputs listed in --ids. Letters are read
case-insensitively, T as U (a FASTA record with T and no U gets a
warning: DNA); IUPAC ambiguity codes (R Y K M S W B D H V) are read as
N, with a warning giving their count per record. A FASTA record whose
letters are mostly (over half) not A, C, G, U, T or N looks like a
protein and is refused (contactmap predict takes it). A dot-bracket, CT
or BPSEQ input is scored against its own structure.

--method chooses the predictor: network (the default: the --model
network, decoded by --decoder: a shipped model's own decoder unless
given, greedy for a model file), homology (model-free: the pairs of the
most similar reference molecule of known structure, carried over a
global alignment; strong when the references hold a homolog, as the 16S
training set does for a 16S rRNA, and useless when they hold none, as for
5S rRNA, RNase P or group I introns), mfe (model-free: the minimum free
energy structure under the Turner 2004 parameters with RNAfold's default
options, package rna/fold), centroid (model-free: the pairs of
probability above 1/2 in the Turner 2004 ensemble, as RNAfold -p;
the PNG shows the pair probabilities), mea-pf (model-free: the maximum
expected accuracy structure of those probabilities, as RNAfold --MEA),
or stacking (model-free: the most stacked canonical pairs).

The references of a shipped model (used by a network with template
channels) are its own training files, in training's order, built into
the binary:
` + rnaRefsHelp() + `
Those of a model file and of --method homology are the 16S training set,
built in (` + shipped.RNARefs16S + `). --refs replaces them.

Outputs per molecule, in --out: NAME.bpseq, NAME.ct, NAME.db (dot-bracket),
NAME.png (the pair probabilities, an arc diagram of the structure under
them), NAME.svg (the structure drawn in RNAplot's simple radial layout,
numbered every 10 bases), written as a set (all replaced or none);
existing outputs are not overwritten without --force. A
molecule whose estimated memory exceeds the memory available is skipped
(--force tries it anyway; with --workers N, N molecules are predicted at
once, each checked alone). A molecule outside the training lengths of
the --model networks, and a network prediction with no base pair, get a
warning. --strict refuses what is otherwise warned of.

The run's summary: a short table of the molecules predicted on
standard error (none when none was), summary.tsv in --out (a row per molecule:
name, length, status ok, skipped or failed, outputs, method, the
structure's energy, the error), and on standard error the warnings and
one failure list, each error once. A failed input does not stop the
others, and makes the exit status 1.`,
		Example: "contactmap rna predict --out preds seqs.fasta data/rna/test/5S/d.5.e.M.fossilis.nopct",
	})
	var pf predictFlags
	pf.register(fs, filepath.Join("predictions", "rna"), "bpseq,ct,db,png,svg", predictFlagHelp{
		Unit:   "molecules",
		Format: "output formats: bpseq, ct, db (dot-bracket), png (pair probabilities and arc diagram), svg (structure drawing)",
		Model:  "a shipped RNA model (" + strings.Join(shipped.RNANames(), ", ") + ") or a model file (default " + shipped.DefaultRNA + "); repeated: an ensemble, the structure decoded from the mean of the models' probabilities",
		Strict: "refuse, instead of warning of them, records with IUPAC ambiguity codes, records that look like DNA (T and no U), and molecules outside the training lengths of the --model networks",
		Force:  "overwrite existing outputs, and predict molecules whose memory estimate exceeds the memory available",
	})
	threads := fs.Int("threads", 0, "goroutines of each molecule's convolutions and folds (default: the CPUs divided by --workers); results do not depend on it")
	method := fs.String("method", "network", "network, homology, mfe, centroid, mea-pf or stacking")
	decoderName := fs.String("decoder", "", "decoder of the network's probabilities: greedy (the paper's, pairs above 0.5), mea (nested maximum expected accuracy, canonical pairs) or mea-pk (mea and a crossing layer) (default: the shipped model's own, "+rnaDecodersHelp()+"; greedy for a model file)")
	refsFile := fs.String("refs", "", "reference molecules of known structure for homology transfer and template networks (five-line format or dot-bracket, comma-separated files; default: a shipped model's own training files, built in; else the built-in 16S training set)")
	maxSpan := fs.Int("max-span", 0, "for --method mfe, centroid and mea-pf: the largest base-pair span j-i+1 (0: none), as RNAfold --maxBPspan and RNAplfold -L; memory and time grow linearly with the length, so that long RNAs fold (50,000 nt with --max-span 200 in under 1 GB; the pair map and PNG still take 8 bytes a pair: leave png out of --format for such lengths)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	specs := []string(pf.Models)
	if len(specs) == 0 {
		specs = []string{shipped.DefaultRNA}
	}
	// The (first) shipped model's own decoder unless --decoder is given.
	decoder := shipped.RNADefaultDecoder(specs[0])
	if flagGiven(fs, "decoder") {
		if decoder, err = ssnet.ParseDecoder(*decoderName); err != nil {
			return usageError("--decoder: %v", err)
		}
	}
	switch *method {
	case "network", "homology", "stacking", "mfe", "centroid", "mea-pf":
	default:
		return usageError("--method %q: network, homology, mfe, centroid, mea-pf or stacking", *method)
	}
	if err := checkRanges(fs, map[string]string{"threads": nonNeg, "max-span": nonNeg}); err != nil {
		return err
	}
	if err := pf.check(fs); err != nil {
		return err
	}
	workers := *threads // per molecule
	if workers == 0 {
		workers = max(1, runtime.GOMAXPROCS(0)/pf.Workers)
	}
	names, err := pf.inputs(pos)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usageError("give FASTA, dot-bracket, CT or BPSEQ files, or - for standard input")
	}
	fmts, err := ssnet.ParseFormats(pf.Format)
	if err != nil {
		return usageError("--format: %v", err)
	}
	// Flags the method does not read: said, not silently dropped.
	unused := map[string]bool{"model": *method != "network", "decoder": *method != "network",
		"refs": *method != "network" && *method != "homology", "max-span": *method != "mfe" && *method != "centroid" && *method != "mea-pf"}
	for _, name := range []string{"model", "decoder", "refs", "max-span"} {
		if unused[name] && flagGiven(fs, name) {
			fmt.Fprintf(stderr, "contactmap rna predict: warning: --%s is not used by --method %s\n", name, *method)
		}
	}
	var nets []rnaNet
	from := *method
	if *method == "network" {
		var froms []string
		for _, spec := range specs {
			m, f, err := shipped.LoadRNA(spec)
			if err != nil {
				return err
			}
			nets = append(nets, rnaNet{Spec: spec, Model: m})
			froms = append(froms, f)
		}
		from = strings.Join(froms, " + ")
		if len(nets) > 1 {
			from = fmt.Sprintf("an ensemble of %d networks (the mean of their probabilities): %s", len(nets), from)
		}
	}
	// The references: a shipped network's own (its training files, in
	// training's order); for a model file and homology transfer, the 16S
	// training set (RNARefsFor of a name not shipped); --refs for all.
	// Read once per set of files.
	refSets := map[string]*homology.Index{}
	loadRefs := func(of string) (*homology.Index, []ssnet.Molecule, string, error) {
		var mols []ssnet.Molecule
		var name string
		var err error
		if *refsFile == "" {
			mols, name, err = shipped.RNARefsFor(of)
		} else if mols, err = readSets(*refsFile); err != nil {
			return nil, nil, "", fmt.Errorf("--refs: %w", err)
		} else {
			name = *refsFile
		}
		if err != nil {
			return nil, nil, "", err
		}
		if idx, ok := refSets[name]; ok {
			return idx, mols, name, nil
		}
		idx := ssnet.TemplateRefs(mols)
		refSets[name] = idx
		from += fmt.Sprintf("; %d reference molecules from %s", len(mols), name)
		return idx, mols, name, nil
	}
	var refs *homology.Index // of --method homology
	if *method == "homology" {
		if refs, _, _, err = loadRefs(""); err != nil {
			return err
		}
	}
	for i := range nets {
		n := &nets[i]
		if n.Model.Record.UsesTemplates() {
			if n.Refs, _, _, err = loadRefs(n.Spec); err != nil {
				return err
			}
		}
		// What a shipped network was trained on: its training files
		// (its references, built in), their lengths.
		if sm, err := shipped.ShippedRNA(n.Spec); err == nil {
			mols, _, err := shipped.RNARefsFor(n.Spec)
			if err != nil {
				return err
			}
			n.Train = rnaTrainingOf(sm.Refs, mols)
		} else {
			n.Train.What = n.Model.Record.Data
		}
	}
	if len(nets) > 0 {
		from += fmt.Sprintf("; decoder %s", decoder)
	}
	if err := os.MkdirAll(pf.Out, 0o755); err != nil {
		return err
	}
	if err := fileio.CheckWritable(pf.Out); err != nil {
		return err
	}
	// Temporary files of killed runs go; a live run's stay.
	if err := outset.RemoveStale(pf.Out); err != nil {
		return err
	}
	all, readErrs := readRNAInputs(names, os.Stdin)
	// Names: the same in every shard, unique in the run.
	jobs := make([]rnaJob, len(all))
	used := map[string]int{}
	for i, in := range all {
		base := predict.SafeName(in.Name)
		key := strings.ToLower(base)
		j := rnaJob{in: in}
		if n := used[key]; n > 0 {
			j.warnings = append(j.warnings, fmt.Sprintf("name used before; writing %s_%d", base, n+1))
			base = fmt.Sprintf("%s_%d", base, n+1)
		}
		used[key]++
		j.base = base
		jobs[i] = j
	}
	var mine []*rnaJob
	for i := range jobs {
		if i%pf.shards == pf.shard {
			mine = append(mine, &jobs[i])
		}
	}
	if pf.shard != 0 {
		readErrs = nil // reported by shard 0
	}
	fmt.Fprintf(stderr, "rna predict: %s with %s\n", count(len(mine), "molecule"), from)
	o := rnaPredictOptions{method: *method, nets: nets, refs: refs, decoder: decoder, workers: workers, span: *maxSpan,
		fmts: fmts, out: pf.Out, force: pf.Force, strict: pf.Strict}
	bar := progress.New(len(mine), "predicting")
	queue := make(chan *rnaJob)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < min(pf.Workers, max(1, len(mine))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				predictRNAJob(ctx, o, j)
				mu.Lock()
				bar.Add(1)
				if j.err == nil {
					done++
					setFinished("%d of %d molecules predicted into %s", done, len(mine), pf.Out)
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range mine {
		if ctx.Err() != nil {
			j.err = ctx.Err()
			continue
		}
		queue <- j
	}
	close(queue)
	wg.Wait()
	bar.Finish()
	interrupted := ctx.Err() != nil
	return summarizeRNA(stderr, stderr, mine, readErrs, pf, *method, interrupted)
}

// rnaNet is one network of rna predict's --model, with the references
// its template channels search and what it was trained on.
type rnaNet struct {
	Spec  string
	Model *ssnet.Model
	Refs  *homology.Index // nil for a network without template channels
	Train rnaTraining
}

// rnaTraining is what an RNA network was trained on, for the warnings
// of rna predict: the molecules (16S rRNA, bpRNA TR0's families) and
// their lengths (0, 0: unknown, for a model file).
type rnaTraining struct {
	What     string
	Min, Max int
}

func (t rnaTraining) String() string {
	if t.Max == 0 {
		return t.What
	}
	return fmt.Sprintf("%s of %s-%s nt", t.What, thousands(t.Min), thousands(t.Max))
}

// rnaTrainingOf describes a shipped network's training molecules: its
// reference files (shipped.RNAModel.Refs) and their molecules.
func rnaTrainingOf(files []string, mols []ssnet.Molecule) rnaTraining {
	var t rnaTraining
	var what []string
	for _, f := range files {
		switch f {
		case shipped.RNARefs16S:
			what = append(what, "16S rRNA")
		case shipped.RNARefsTR0Dedup:
			fams := map[string]bool{}
			for _, m := range mols {
				if m.Family != "" {
					fams[m.Family] = true
				}
			}
			names := make([]string, 0, len(fams))
			for f := range fams {
				names = append(names, f)
			}
			sort.Strings(names)
			what = append(what, "bpRNA TR0 ("+strings.Join(names, ", ")+")")
		default:
			what = append(what, f)
		}
	}
	t.What = strings.Join(what, " and ")
	for i, m := range mols {
		if l := len(m.Seq); i == 0 || l < t.Min {
			t.Min = l
		}
		t.Max = max(t.Max, len(m.Seq))
	}
	return t
}

// rnaPredictOptions are what rna predict does to each molecule.
type rnaPredictOptions struct {
	method        string
	nets          []rnaNet
	refs          *homology.Index // --method homology
	decoder       ssnet.Decoder
	workers, span int // per molecule
	fmts          []ssnet.Format
	out           string
	force, strict bool
}

// rnaJob is one molecule of rna predict and what became of it.
type rnaJob struct {
	in       rnaInput
	base     string // its outputs' name in the run
	warnings []string
	s        *rna.Structure
	files    []string
	err      error
}

// predictRNAJob checks a molecule (outputs there, --strict, memory, the
// networks' training lengths), predicts it and writes its outputs,
// recording warnings and the error in j.
func predictRNAJob(ctx context.Context, o rnaPredictOptions, j *rnaJob) {
	in := j.in
	warn := func(format string, a ...any) { j.warnings = append(j.warnings, fmt.Sprintf(format, a...)) }
	// What --strict refuses, else a warning.
	var doubts []string
	if in.Ambiguous > 0 {
		doubts = append(doubts, fmt.Sprintf("%d IUPAC ambiguity codes (R Y K M S W B D H V) read as N", in.Ambiguous))
	}
	if in.DNA {
		doubts = append(doubts, "its letters hold T and no U: a DNA sequence, read as RNA (T as U)")
	}
	if o.method == "network" {
		if t := netsTraining(o.nets); t.Max > 0 && (len(in.Seq) < t.Min || len(in.Seq) > t.Max) {
			doubts = append(doubts, fmt.Sprintf("length %s nt is outside the training lengths of %s (%s): the prediction is an extrapolation", thousands(len(in.Seq)), netNames(o.nets), t))
		}
	}
	for _, d := range doubts {
		if o.strict {
			j.err = skipError{fmt.Errorf("%s: refused under --strict", d)}
			return
		}
		warn("%s", d)
	}
	err := checkOutputs(o.out, j.base, fmtExts(o.fmts), o.force)
	if err != nil {
		j.err = skipError{err}
		return
	}
	// The folds of mfe, centroid and mea-pf (fold.MemoryEstimate),
	// beside the pair map and the PNG, before any allocation.
	warning, err := checkRNAMemory(o.method, len(in.Seq), o.span, o.fmts, o.force)
	if warning != "" {
		warn("%s", warning)
	}
	if err == nil && len(o.nets) > 0 {
		// The network's pass, and beside it the probability map, the
		// decoder's table, the template channels (full and packed)
		// and the PNG: about 32 bytes a pair (and an ensemble's mean, 8).
		// A network with energy channels also folds the sequence
		// (fold.FoldBytes: 16 bytes a pair).
		l := int64(len(in.Seq))
		extra := 32 * l * l
		if len(o.nets) > 1 {
			extra += 8 * l * l
		}
		var specs []pairnet.Spec
		energy := false
		for _, n := range o.nets {
			specs = append(specs, n.Model.Net.Spec)
			energy = energy || n.Model.Record.UsesEnergy()
		}
		if energy {
			extra += fold.DefaultParams().FoldBytes(len(in.Seq))
		}
		warning, err = checkMemory("", specs, len(in.Seq), o.workers, extra, o.force)
		if warning != "" {
			warn("%s", warning)
		}
	}
	var p []float32
	var s *rna.Structure
	if err == nil {
		p, s, err = predictRNA(ctx, in, o.method, o.nets, o.refs, o.decoder, o.workers, o.span, slices.Contains(o.fmts, ssnet.PNG))
	}
	if err == nil {
		j.files, err = ssnet.WriteOutputs(ctx, o.out, j.base, s, p, in.Known, o.fmts)
	}
	if err != nil {
		j.err = err
		return
	}
	j.s = s
	if len(o.nets) > 0 && len(s.Pairs()) == 0 {
		// Nothing found is said: a network far from its training
		// molecules (the 16S network on a tRNA) may predict no pair.
		try := "try --method centroid"
		if len(o.nets) > 1 || o.nets[0].Spec != shipped.DefaultRNA {
			try = "try the default " + shipped.DefaultRNA + " or --method centroid"
		}
		var trained []string
		for _, n := range o.nets {
			if t := n.Train.String(); t != "" {
				trained = append(trained, n.Spec+" was trained on "+t)
			}
		}
		if len(trained) > 0 {
			try = strings.Join(trained, "; ") + "; " + try
		}
		warn("the network predicted no base pair (%s)", try)
	}
}

// netsTraining is the training lengths of the networks together (an
// ensemble's: the widest), and what they were trained on; Max 0 when a
// network's are unknown.
func netsTraining(nets []rnaNet) rnaTraining {
	var t rnaTraining
	var what []string
	for i, n := range nets {
		if n.Train.Max == 0 {
			return rnaTraining{}
		}
		if i == 0 || n.Train.Min < t.Min {
			t.Min = n.Train.Min
		}
		t.Max = max(t.Max, n.Train.Max)
		if !slices.Contains(what, n.Train.What) {
			what = append(what, n.Train.What)
		}
	}
	t.What = strings.Join(what, "; ")
	return t
}

// netNames names the networks of --model: "rna-scnn-16s", "rna-scnn +
// rna-scnn-16s".
func netNames(nets []rnaNet) string {
	var n []string
	for _, x := range nets {
		n = append(n, x.Spec)
	}
	return strings.Join(n, " + ")
}

// summarizeRNA prints rna predict's warnings (in the molecules' order),
// the table of the molecules predicted (none when none was) and the
// failure list, each error once, and writes the run's summary.tsv; it
// returns the command's error. An interrupted run lists what finished
// and returns the interruption; the molecules not done are not failures.
func summarizeRNA(w, errw io.Writer, jobs []*rnaJob, readErrs []error, pf predictFlags, method string, interrupted bool) error {
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "molecule\tL\tpairs\tPPV\tsensitivity\tF1\toutputs")
	var failed []failure
	for _, e := range readErrs {
		failed = append(failed, failure{"", e})
	}
	var rows []summaryRow
	ok := 0
	for _, j := range jobs {
		if interrupted && j.err != nil && errors.Is(j.err, context.Canceled) {
			continue
		}
		for _, m := range j.warnings {
			fmt.Fprintf(errw, "warning: %s: %s\n", j.in.Name, m)
		}
		row := summaryRow{Name: j.in.Name, Length: len(j.in.Seq), Outputs: j.files, Method: rnaMethod(method, pf), Err: j.err}
		if j.s != nil && j.s.Energy != nil {
			row.Energy = fmt.Sprintf("%.2f", j.s.Energy.DeltaG)
		}
		rows = append(rows, row)
		if j.err != nil {
			failed = append(failed, failure{j.in.Name, j.err})
			continue
		}
		ok++
		score := "-\t-\t-"
		if j.in.Known != nil {
			c := rna.Compare(j.s, j.in.Known, false)
			score = fmt.Sprintf("%.3f\t%.3f\t%.3f", c.PPV, c.Sens, c.F1)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", j.in.Name, len(j.in.Seq), len(j.s.Pairs()), score, filepath.Join(pf.Out, j.base)+".*")
	}
	tw.Flush()
	if ok > 0 {
		w.Write(table.Bytes())
	}
	fmt.Fprintf(w, "%s predicted into %s\n", count(ok, "molecule"), pf.Out)
	if !interrupted || ok > 0 {
		saveSummary(errw, summaryFile(pf.Out, pf.shard, pf.shards), rows, true)
	}
	err := listFailures(errw, failed, len(rows)+len(readErrs))
	if interrupted {
		return fmt.Errorf("rna predict: %w", context.Canceled)
	}
	return err
}

// rnaMethod is the predictor of a molecule for the summary: the method,
// and for the network its models and decoder.
func rnaMethod(method string, pf predictFlags) string {
	if method != "network" {
		return method
	}
	specs := []string(pf.Models)
	if len(specs) == 0 {
		specs = []string{shipped.DefaultRNA}
	}
	return "network " + strings.Join(specs, "+")
}

// flagGiven reports whether the flag was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// rnaDecodersHelp lists each shipped RNA model's default decoder, for
// the help text.
func rnaDecodersHelp() string {
	var b []string
	for _, name := range shipped.RNANames() {
		b = append(b, name+": "+string(shipped.RNADefaultDecoder(name)))
	}
	return strings.Join(b, ", ")
}

// rnaRefsHelp lists each shipped RNA model's reference files, for the
// help text.
func rnaRefsHelp() string {
	var b []string
	for _, name := range shipped.RNANames() {
		m, err := shipped.ShippedRNA(name)
		if err != nil {
			continue
		}
		b = append(b, "  "+name+": "+strings.Join(m.Refs, ", "))
	}
	return strings.Join(b, "\n")
}

// predictRNA predicts one molecule by a method: its pair map (the
// network's probabilities, an ensemble's mean, or 1 at each predicted pair for the
// model-free methods; nil unless wantMap, the PNG's only use of it) and
// its structure. The folds (mfe, centroid, mea-pf) limit the pairs to
// span bases (0: none), stop when ctx is done, and give the structure
// its Turner 2004 energy (rna.Energy): the MFE, or the centroid's or MEA
// structure's own with the ensemble free energy.
func predictRNA(ctx context.Context, in rnaInput, method string, nets []rnaNet, refs *homology.Index, d ssnet.Decoder, workers, span int, wantMap bool) ([]float32, *rna.Structure, error) {
	var s *rna.Structure
	var err error
	switch method {
	case "homology": // ranked as the baseline rows of rna eval rank
		s, _, err = refs.WithRank(ssnet.HomologyRank).Predict(in.Name, in.Seq, nil)
	case "stacking":
		s, err = rna.StackingBaseline(in.Name, in.Seq)
	case "mfe":
		var energy float64
		if s, energy, err = fold.DefaultParams().WithMaxSpan(span).FoldContext(ctx, in.Seq, workers); err == nil {
			s.Name = in.Name
			s.Energy = &rna.Energy{Kind: rna.EnergyMFE, DeltaG: energy}
		}
	case "centroid", "mea-pf":
		// The ensemble's pair probabilities are the map.
		p := fold.DefaultParams().WithMaxSpan(span)
		e, err := p.PartitionContext(ctx, in.Seq, workers)
		if err != nil {
			return nil, nil, err
		}
		en := &rna.Energy{Kind: rna.EnergyCentroid, Ensemble: e.FreeEnergy}
		if method == "centroid" {
			s, en.Score = e.Centroid()
		} else {
			en.Kind = rna.EnergyMEA
			if s, en.Score, err = e.MEA(1); err != nil {
				return nil, nil, err
			}
		}
		if en.DeltaG, err = p.Eval(s.Seq, s.Pairs()); err != nil {
			return nil, nil, fmt.Errorf("energy of the %s structure: %w", en.Kind, err)
		}
		s.Name, s.Energy = in.Name, en
		if !wantMap {
			return nil, s, nil
		}
		return e.Probabilities(), s, nil
	default:
		var p []float32
		var sum []float64 // an ensemble's
		// A long molecule's networks get a bar of their own, over their
		// layers; an interrupt stops them between two layers.
		// The templates are searched first, out of the bar's time.
		works, all := make([]float64, len(nets)), 0.0
		ts := make([]*homology.Template, len(nets))
		for i, n := range nets {
			works[i] = n.Model.Net.Spec.InferenceFLOPs(1, len(in.Seq))
			all += works[i]
			if n.Model.Record.UsesTemplates() {
				tm := n.Refs.Search(in.Seq, nil)
				ts[i] = &tm
			}
		}
		// The energy channels' MFE fold, once for all the members, with a
		// bar of its own over a long molecule (it ran silent before the
		// network's bar: 16 s at 3,000 nt).
		var mfe []int
		for _, n := range nets {
			if n.Model.Record.UsesEnergy() {
				var err error
				if mfe, err = foldWithBar(ctx, in.Name, in.Seq, workers); err != nil {
					return nil, nil, err
				}
				break
			}
		}
		report := networkBar(in.Name, len(in.Seq), all)
		end := func() {
			if report != nil {
				report(-1, true)
				report = nil
			}
		}
		defer end() // stopped by an error
		for i, n := range nets {
			var m []int
			if n.Model.Record.UsesEnergy() {
				m = mfe
			}
			q, err := n.Model.ProbabilitiesAfterMFE(in.Seq, ts[i], m, workers, membersAfter(ctx, report, works, i))
			if err != nil {
				if len(nets) > 1 {
					err = fmt.Errorf("%s: %w", n.Spec, err)
				}
				return nil, nil, err
			}
			if len(nets) == 1 {
				p = q
				break
			}
			if sum == nil {
				sum = make([]float64, len(q))
			}
			for k, v := range q {
				sum[k] += float64(v)
			}
		}
		end() // before the decoder
		if sum != nil {
			p = make([]float32, len(sum))
			for k, v := range sum {
				p[k] = float32(v / float64(len(nets)))
			}
		}
		s, err = d.Decode(in.Name, in.Seq, p)
		return p, s, err
	}
	if err != nil {
		return nil, nil, err
	}
	if !wantMap {
		return nil, s, nil
	}
	l := len(in.Seq)
	p := make([]float32, l*l)
	for _, pr := range s.Pairs() {
		p[pr[0]*l+pr[1]], p[pr[1]*l+pr[0]] = 1, 1
	}
	return p, s, nil
}

// fmtExts lists the file extensions of RNA output formats.
func fmtExts(fmts []ssnet.Format) []string {
	ext := make([]string, len(fmts))
	for i, f := range fmts {
		ext[i] = string(f)
	}
	return ext
}

func runRNADedup(ctx context.Context, args []string) error {
	fs := newFlags("rna dedup", helpText{
		Usage: "contactmap rna dedup --against FILES --out OUT SET",
		About: `Drops from a set of molecules (a training set) those similar to any
molecule of --against (the validation and test molecules): identity
over the shorter sequence, from the best local alignment with each of
the 5 molecules sharing the most 8-mers (so a fragment counts), at --max-identity or more (the bpRNA
split used 80% with CD-HIT-EST). Writes the kept molecules to OUT in
dot-bracket records (.dbn, gzip-compressed when OUT ends in .gz) and
lists the dropped ones with their nearest molecule on standard output.
SET is a five-line or dot-bracket file.`,
		Example: "contactmap rna dedup --against data/rna/16s-finalvalid.txt,data/rna/test/testdata.txt --out tr0-dedup.dbn.gz TR0.dbn.gz",
	})
	against := fs.String("against", "", "molecules the kept ones must not resemble (comma-separated files)")
	out := fs.String("out", "", "output file (.dbn or .dbn.gz)")
	maxID := fs.Float64("max-identity", 0.8, "identity over the shorter sequence from which a molecule is dropped (0-1)")
	force := fs.Bool("force", false, "overwrite --out")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usageError("give one SET file")
	case *against == "" || *out == "":
		return usageError("--against and --out are required")
	case !(*maxID > 0 && *maxID <= 1):
		return usageError("--max-identity %v: want a value in (0, 1]", *maxID)
	case !strings.HasSuffix(strings.TrimSuffix(*out, ".gz"), ".dbn"):
		return usageError("--out %s: want a .dbn or .dbn.gz file", *out)
	}
	if exists(*out) && !*force {
		return fmt.Errorf("%s exists: not overwritten (give --force to overwrite, or another --out)", *out)
	}
	set, err := ssnet.ReadSet(pos[0])
	if err != nil {
		return err
	}
	ref, err := readSets(*against)
	if err != nil {
		return err
	}
	kept, dropped := ssnet.FilterSimilar(set, ref, *maxID)
	var buf bytes.Buffer
	for _, m := range kept {
		db, err := rna.DotBracket(m.Structure)
		if err != nil {
			return fmt.Errorf("rna dedup: %s: %s: %w", pos[0], m.Name, err)
		}
		fmt.Fprintf(&buf, ">%s\n%s\n%s\n", m.Name, m.Seq, db)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	if err := fileio.WriteAtomic(*out, func(w io.Writer) error {
		if strings.HasSuffix(*out, ".gz") {
			zw := gzip.NewWriter(w)
			if _, err := zw.Write(buf.Bytes()); err != nil {
				return err
			}
			return zw.Close()
		}
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "| dropped | nearest | identity (over the shorter) |\n|---|---|---:|")
	for _, o := range dropped {
		fmt.Fprintf(stdout, "| %s | %s | %.3f |\n", o.Name, o.Nearest, o.Identity)
	}
	fmt.Fprintf(stdout, "%s: kept %d of %d molecules (%d at identity >= %.2f to %s) in %s\n", pos[0], len(kept), len(set), len(dropped), *maxID, *against, *out)
	return nil
}
