package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/internal/runcompare"
	"github.com/contactmap/contactmap/internal/usage"
	shipped "github.com/contactmap/contactmap/models"
	rnapredict "github.com/contactmap/contactmap/rna/predict"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// rnaProtocolHelp is rna train's --protocol help: every protocol of
// ssnet.Protocols, each with what it is (TestRNAProtocolHelp).
const rnaProtocolHelp = "default (minutes on 2 cores), paircrop (pair crops for long-range pairs), template (paircrop with the homology template as input), template-short (template in 1,500 steps), families (template with the energy channels, for --train of several files), families-bucketed (families with length-bucketed batches: short molecules whole, batched by length), families-noenergy (families without the energy channels), families-ensemble (families with the pair probabilities of the Turner 2004 ensemble as a further channel), families-ensemble-mutate (families-ensemble with structure-preserving mutants, channels computed afresh, for half of the training windows of molecules up to 200 nt), families-ensemble-global (families-ensemble with the channel of molecules up to 600 nt from the global partition function, not the 200-nt band), families-ensemble-prior (families-ensemble whose output is a correction of the ensemble's pair probabilities: their log-odds added to the logits), families-ensemble-notemplate (families-ensemble with every homology template dropped, in training and at inference), families-ensemble-long (families-ensemble in 6,000 steps, the learning rate halved every 2,000), families-ensemble-global-hybrid (families-ensemble-global whose logits are the pair bonuses of the Turner 2004 ensemble, trained by its conditional likelihood on 128-nt windows), families-ensemble-global-hybrid-whole (the hybrid on whole molecules of at most 200 nt), families-ensemble-temps (families-ensemble with two further channels, the ensemble at 25 and at 50 C), families-ensemble-clusters (families-ensemble with each file's molecules drawn by the weight 1/sqrt of their cluster's size, --clusters), families-ensemble-clusters-pooled (the same over the files pooled) or paper (the paper's widths, 500-nt crops, 27,500 steps)"

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
	protocol := fs.String("protocol", "default", rnaProtocolHelp)
	trainFile := fs.String("train", ssnet.TrainFile, "training molecules: files in the five-line format or dot-bracket (.dbn, .dbn.gz), comma-separated; with several, training draws each file equally often (with --resume, the run's)")
	validFile := fs.String("valid", ssnet.ValidFile, "validation molecules: files as --train, comma-separated; with several, validation is the mean over the files (with --resume, the run's)")
	mfeCache := fs.String("mfe-cache", ssnet.DefaultMFECache(), "file of cached MFE structures for protocols with energy channels (\"\": fold every molecule at every start)")
	ensembleCache := fs.String("ensemble-cache", ssnet.DefaultEnsembleCache(), "file of cached ensemble channels (pair probabilities) for protocols with the ensemble channel (\"\": compute every molecule's at every start); appended as they are computed")
	clusters := fs.String("clusters", "", "a families clustering of the training molecules (tab-separated, a header with name and cluster columns, as experiments/rna-holdout/clusters.tsv) for the protocols that weigh the draws by cluster")
	fs.StringVar(&o.Out, "out", "", "run directory (default runs/rna/<protocol>/<model>-seed<seed>)")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed (default 1; with --resume, the run's)")
	fs.IntVar(&o.Workers, "workers", 0, fmt.Sprintf("goroutines per convolution (default %d; with --resume, the run's)", runtime.GOMAXPROCS(0)))
	fs.StringVar(&o.Precision, "precision", "", "arithmetic of the convolutions and other matrix products: float32, or bfloat16 (operands rounded to bfloat16, sums and weights float32; needs a CPU with AVX512_BF16; results depend on it) (default float32; with --resume, the run's)")
	fs.BoolVar(&o.Resume, "resume", false, "continue the run in --out from its checkpoint; flags left out take the checkpoint's values, but for --model and --protocol (give the run's). "+
		"Refused when they differ from the checkpoint's: --train and --valid (the molecules' checksums; the same molecules in other files are noted), --model, --protocol, --seed, --workers, --precision, --clusters (the training molecules' clusters). "+
		"Applied with a note: --steps, --budget (--budget 0: no limit)")
	fs.BoolVar(&o.Force, "force", false, "start a new run in an --out that holds one")
	steps := fs.Int("steps", 0, fmt.Sprintf("optimiser steps, at most %d (default: the protocol's; with --resume, the run's)", maxSteps))
	fs.DurationVar(&o.Budget, "budget", 0, "training time over all sessions of the run, e.g. 90m (0: none; with --resume, left out, the run's); then it validates, checkpoints and stops")
	fs.DurationVar(&o.CheckpointEvery, "checkpoint-every", 10*time.Minute, "longest time between checkpoints")
	if err := parseTrainFlags(fs, "rna train", args, &o.Resume, &o.Force, map[string]string{"workers": nonNeg, "steps": nonNeg, "budget": nonNeg, "checkpoint-every": nonNeg},
		map[string][2]int{"steps": {0, maxSteps}}); err != nil {
		return err
	}
	var err error
	if o.Kind, err = ssnet.ParseKind(*kind); err != nil {
		return usage.Errorf("%v", err)
	}
	if o.Protocol, err = ssnet.ProtocolByName(*protocol); err != nil {
		return usage.Errorf("%v", err)
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
	if err := o.ReadData(*trainFile, *validFile); err != nil {
		return err
	}
	o.MFECache = *mfeCache
	o.EnsembleCache = *ensembleCache
	if *clusters != "" {
		if !o.Protocol.ClusterWeights {
			return usage.Errorf("--clusters: --protocol %s does not weigh the training draws by cluster", o.Protocol.Name)
		}
		if o.Clusters, err = ssnet.ReadClusters(*clusters); err != nil {
			return err
		}
		o.ClustersName = *clusters
	} else if o.Protocol.ClusterWeights {
		return usage.Errorf("--protocol %s weighs the training draws by cluster: give --clusters", o.Protocol.Name)
	}
	// The preparation (MFE structures, ensemble channels) shows bars of
	// its own; the loss bar starts with the first step.
	o.Progress = progress.Ticker
	var bar progress.LossBar
	started := false
	step := func(loss float64) {
		if !started {
			bar.Start(o.Protocol.Steps, "training")
			started = true
		}
		bar.Step(loss)
	}
	if err := o.PrintTo(stdout, step, bar.Reset); err != nil {
		return err
	}
	start := time.Now()
	_, res, err := ssnet.Train(ctx, o)
	bar.Finish()
	return finishTraining(o.Out, start, err, func(session float64) {
		fmt.Fprintf(stdout, "%s: best validation accuracy %.4f at step %d of %d; %.1f min (this session %.1f min); model %s\n",
			o.Kind, res.BestAcc, res.BestStep, res.Steps, res.Seconds/60, session, filepath.Join(o.Out, ssnet.ModelFile))
	})
}

func runRNAEval(ctx context.Context, args []string) error {
	fs := newFlags("rna eval", helpText{
		Usage: "contactmap rna eval [--model M...] [--split test] [flags]",
		About: `Evaluates RNA models under each decoder, and the model-free baselines
(stacking; MFE; the centroid and MEA of the Turner 2004 ensemble;
homology transfer from the training molecules): PPV, sensitivity,
accuracy, F1 and MCC per family and overall, on all
molecules and on those under 95% identity to every training molecule,
with the overlap table. Inputs: shipped model names or model files, and a
split (or --set, a five-line file).`,
		Example: "contactmap rna eval --model rna-scnn --split test --out report",
	})
	var models multiFlag
	fs.Var(&models, "model", "a shipped RNA model ("+strings.Join(shipped.RNANames(), ", ")+") or a model file (repeatable: a row each); models joined by + are one ensemble row, the mean of their probabilities")
	split := fs.String("split", "test", "train, validation or test (read the test split once, at the end)")
	setFile := fs.String("set", "", "molecules to evaluate (five-line format or dot-bracket; default: the split's bundled file)")
	trainFile := fs.String("train", "", "training molecules (comma-separated files), for the overlap analysis, homology transfer and template networks (default: the training files of the shipped models given, which must share them, in training's order; else "+ssnet.TrainFile+")")
	mfeCache := fs.String("mfe-cache", ssnet.DefaultMFECache(), "file of cached MFE structures, for networks with energy channels and the MFE baseline")
	centroidCache := fs.String("centroid-cache", ssnet.DefaultCentroidCache(), "file of cached centroid structures, for the centroid baseline (\"\": fold every molecule)")
	ensembleCache := fs.String("ensemble-cache", ssnet.DefaultEnsembleCache(), "file of cached ensemble channels (pair probabilities), for networks with the ensemble channel (\"\": compute every molecule's); appended as they are computed")
	foldSeed := fs.String("fold-seed", ssnet.FoldSeedFile, "file of read-only MFE, centroid and MEA structures looked up before the caches (the bundled test molecules', built by make rna-fold-cache; \"\": none)")
	baseline := fs.Bool("baseline", true, "add the model-free baselines: stacking (most stacked canonical pairs, hairpins >= 3), MFE (Turner 2004, RNAfold defaults), the centroid and MEA (gamma 1) of the Turner 2004 ensemble, and homology transfer from the --train molecules")
	decoders := fs.String("decoders", "greedy,mea,mea-pk", "decoders of the models' probabilities, comma-separated: greedy (the paper's, at 0.5), mea (nested MEA), mea-pk (MEA and a crossing layer)")
	out := fs.String("out", "", "write OUT.md and OUT.json")
	force := fs.Bool("force", false, "overwrite an existing OUT.md and OUT.json")
	workers := fs.Int("workers", 0, "goroutines per convolution")
	db := fs.String("db", "", "a FASTA file of RNA sequences (plain or gzip) searched by nhmmer for each molecule's homologs, as rna predict --db: a row per model and decoder with the consensus, and with --baseline the model-free consensus row")
	searchBin := fs.String("search-bin", "", "with --db: nhmmer's program (default: nhmmer on PATH)")
	if err := parseNoArgs(fs, "rna eval", args); err != nil {
		return err
	}
	if *out != "" {
		if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
			return err
		}
	}
	var err error
	cfg := rnapredict.EvalConfig{Models: models, Train: *trainFile, DefaultTrain: ssnet.TrainFile, Set: *setFile, Split: *split, MFECache: *mfeCache, CentroidCache: *centroidCache,
		EnsembleCache: *ensembleCache, FoldSeed: *foldSeed, Baselines: *baseline, Workers: *workers, Shipped: shipped.RNAShipped(), Log: stderr, Progress: progress.Ticker}
	closeSearch, err := rnaHomologs(*db, *searchBin, &cfg.Homologs, &cfg.HomologsFrom)
	if err != nil {
		return err
	}
	defer closeSearch()
	if cfg.Decoders, err = ssnet.ParseDecoders(*decoders); err != nil {
		return usage.Errorf("--decoders: %v", err)
	}
	if err := checkRanges(fs, map[string]string{"workers": nonNeg}); err != nil {
		return err
	}
	report, err := rnapredict.Eval(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, report.Markdown())
	if *out != "" {
		return report.WriteFiles(*out)
	}
	return nil
}

// runRNACompare evaluates every finished run under --runs on the test
// molecules once and compares the SCNN runs with the CNN runs.
func runRNACompare(ctx context.Context, args []string) error {
	fs := newFlags("rna compare", helpText{
		Usage: "contactmap rna compare [--runs DIR] [flags]",
		About: `Compares RNA SCNN with CNN runs over seeds, and each kind with the
model-free baselines (stacking, MFE, centroid, MEA, homology transfer): evaluates every
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
	trainFile := fs.String("train", ssnet.TrainFile, "training molecules (comma-separated files), for the overlap of the test set, homology transfer and template networks")
	mfeCache := fs.String("mfe-cache", ssnet.DefaultMFECache(), "file of cached MFE structures, for networks with energy channels")
	skipBad := fs.Bool("skip-bad", false, "compare the readable runs when some run's checkpoint or model cannot be read (else it fails)")
	decoderName := fs.String("decoder", string(ssnet.Greedy), "decoder of the runs' probabilities: greedy (the paper's), mea or mea-pk")
	setFile := fs.String("set", "", "molecules to evaluate (five-line format; default: the split's bundled file; --split then names the scores' cache)")
	withBaselines := fs.Bool("baselines", true, "also compare each kind with the model-free baselines (stacking; MFE; centroid; MEA; homology transfer from --train)")
	against := fs.String("against", "", "a second directory of runs (another precision or recipe, say): each kind under --runs is compared with the same kind here, paired by seed, instead of SCNN with CNN and the baselines (differences: --runs minus --against; the sides labelled by the directories' names; OUT-KIND and OUT-disjoint-KIND files)")
	if err := parseNoArgs(fs, "rna compare", args); err != nil {
		return err
	}
	var err error
	cfg := ssnet.CompareConfig{Runs: *runsDir, Against: *against, Split: *split, Set: *setFile, Train: *trainFile, MFECache: *mfeCache,
		Resamples: *resamples, Baselines: *withBaselines, Log: stderr, Progress: progress.Ticker}
	if cfg.Decoder, err = ssnet.ParseDecoder(*decoderName); err != nil {
		return usage.Errorf("--decoder: %v", err)
	}
	if err := checkRanges(fs, map[string]string{"resamples": atLeast1}); err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(*runsDir, "report")
	}
	if err := refuseOverwrite(*force, reportFiles(*out)...); err != nil {
		return err
	}
	bad := runcompare.BadRuns{W: stderr, Prefix: "contactmap rna compare"}
	cfg.Unreadable = bad.Add
	cfg.Scanned = func() error { return bad.Check(*skipBad) }
	outs, err := ssnet.RunCompare(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Decoder: %s.\n\n", cfg.Decoder)
	return ssnet.WriteComparisons(stdout, outs, *out, *against != "", func(md, json string) error { return refuseOverwrite(*force, md, json) })
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

` + ssnet.MethodsHelp + `
The default, ` + shipped.DefaultRNA + `, is the mean of the pair
probabilities of three seeds of one recipe (the families SCNN with the
McCaskill base-pair probabilities of the Turner 2004 ensemble as a
further input, from the global partition function of every RNA of at
most 600 nt). The recipe was selected on RNA families held out of
training (experiments/rna-holdout, trials.md: trained without them, F1
0.522 over five seeds against the centroid's 0.494 on their 1,057
molecules), its global rule and its three seeds on a second held-out
split with 394 RNAs over 200 nt (trials 10 and 12: the rule +0.006
[+0.004, +0.009] over the 200-nt band, the three seeds +0.0017
[+0.0004, +0.0030] over one, +0.031 over the centroid). Trained on all families,
it was checked once on the 16S test set (0.861) and bpRNA TS0 (0.731),
within 0.01 of the defaults before it (rna-scnn-bpp-global: 0.867,
0.728; rna-scnn-bpp: 0.870, 0.728). On a family with no relative among
its references, expect about what --method centroid gives: on the
ArchiveII family folds (each family held out of training, one network
per fold) the recipe under the global rule scored F1 0.550 against the
centroid's 0.547, and on the 925 RNAs of the second split whose
homology transfer gets no pair right it is +0.0030 [-0.0021, +0.0082]
over the centroid (trials.md, "After trials 21-23").

With --db FASTA (RNA sequences, plain or gzip: Rfam's or RNAcentral's
sequences, or your own), each molecule's homologs are searched by nhmmer
(HMMER, Debian package hmmer; --search-bin names another program), at
most 20 covering half of the molecule and under 90% identical to it and
to each other, and each is folded; the network's pair probabilities are
averaged with the homologs' Turner 2004 ensembles through nhmmer's
alignment (package rna/consensus: TurboFold's idea, in one pass) and
decoded by MEA with gamma 2. A molecule whose template the network
sees, or of more than 600 nt, is predicted by the network alone. This
was selected and judged on the families held out of training
(experiments/rna-holdout, trials 16-17), each molecule searched against
16,532 sequences that hold other members of its family: F1 0.521 (five
seeds of the recipe) against 0.478 for the network alone, +0.043
[+0.037, +0.050], and the centroid's 0.450. --method consensus is the
same without the network (0.507). On ArchiveII's ten family folds
(each family's model trained without it; its other members in the
database as sequences) the family-fold mean F1 is 0.635 against 0.550
for the network alone, and --method consensus scores 0.637: on families
never seen, the gain is the homologs', not the network's. Each
molecule's homologs are counted in the summary's method column.

The references of a shipped model (used by a network with template
channels) are its own training files, in training's order, built into
the binary:
` + shipped.RNAShipped().RefsHelp() + `
Those of a model file and of --method homology are the 16S training set,
built in (` + shipped.RNARefs16S + `). --refs replaces them.

` + rnapredict.OutputsHelp,
		Example: "contactmap rna predict --out preds seqs.fasta data/rna/test/5S/d.5.e.M.fossilis.nopct",
	})
	var pf predictFlags
	pf.register(fs, filepath.Join("predictions", "rna"), "bpseq,ct,db,png,svg", predictFlagHelp{
		Unit:   "molecules",
		Format: "output formats: bpseq, ct, db (dot-bracket), png (pair probabilities and arc diagram), svg (structure drawing)",
		Model:  "a shipped RNA model (" + strings.Join(shipped.RNANames(), ", ") + ") or a model file (default " + shipped.DefaultRNA + ", itself an ensemble of three); repeated, or joined by +: an ensemble, the structure decoded from the mean of the models' probabilities",
		Strict: "refuse, instead of warning of them, records with IUPAC ambiguity codes, records that look like DNA (T and no U), and molecules outside the training lengths of the --model networks",
		Force:  "overwrite existing outputs, and predict molecules whose memory estimate exceeds the memory available",
	})
	threads := fs.Int("threads", 0, "goroutines of each molecule's convolutions and folds (default: the CPUs divided by --workers); results do not depend on it")
	method := fs.String("method", ssnet.MethodNetwork, ssnet.MethodNames())
	decoderName := fs.String("decoder", "", "decoder of the network's probabilities: greedy (the paper's, pairs above 0.5), mea (nested maximum expected accuracy, canonical pairs) or mea-pk (mea and a crossing layer) (default: the shipped model's own, "+shipped.RNAShipped().DecodersHelp()+"; greedy for a model file)")
	refsFile := fs.String("refs", "", "reference molecules of known structure for homology transfer and template networks (five-line format or dot-bracket, comma-separated files; default: a shipped model's own training files, built in; else the built-in 16S training set)")
	maxSpan := fs.Int("max-span", 0, "for --method mfe, centroid and mea-pf: the largest base-pair span j-i+1 (0: none), as RNAfold --maxBPspan and RNAplfold -L; memory and time grow linearly with the length, so that long RNAs fold (50,000 nt with --max-span 200 in under 1 GB; the pair map and PNG still take 8 bytes a pair: leave png out of --format for such lengths)")
	db := fs.String("db", "", "a FASTA file of RNA sequences (plain or gzip) searched by nhmmer for each molecule's homologs: the network (or --method consensus) predicts from the consensus of their ensembles with its own (see above)")
	searchBin := fs.String("search-bin", "", "with --db: nhmmer's program (default: nhmmer on PATH)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	cfg := rnapredict.Config{Method: *method, Models: pf.Models, Refs: *refsFile, MaxSpan: *maxSpan, Threads: *threads, Stdin: os.Stdin,
		Shipped: shipped.RNAShipped(), OnNetwork: progress.NetworkBar, OnFold: progress.FoldBar}
	closeSearch, err := rnaHomologs(*db, *searchBin, &cfg.Homologs, &cfg.HomologsFrom)
	if err != nil {
		return err
	}
	defer closeSearch()
	if flagGiven(fs, "decoder") {
		if cfg.Decoder, err = ssnet.ParseDecoder(*decoderName); err != nil {
			return usage.Errorf("--decoder: %v", err)
		}
	}
	if _, ok := ssnet.MethodNamed(*method); !ok {
		return usage.Errorf("--method %q: %s", *method, ssnet.MethodNames())
	}
	if err := checkRanges(fs, map[string]string{"threads": nonNeg, "max-span": nonNeg}); err != nil {
		return err
	}
	if err := pf.check(fs); err != nil {
		return err
	}
	cfg.Out, cfg.Force, cfg.Strict, cfg.Workers, cfg.Shard, cfg.Shards = pf.Out, pf.Force, pf.Strict, pf.Workers, pf.shard, pf.shards
	names, err := pf.inputs(pos)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usage.Errorf("give FASTA, dot-bracket, CT or BPSEQ files, or - for standard input")
	}
	if cfg.Formats, err = ssnet.ParseFormats(pf.Format); err != nil {
		return usage.Errorf("--format: %v", err)
	}
	// Flags the method does not read: said, not silently dropped.
	for _, name := range rnapredict.Unused(*method) {
		if flagGiven(fs, name) {
			fmt.Fprintf(stderr, "contactmap rna predict: warning: --%s is not used by --method %s\n", name, *method)
		}
	}
	bar := progress.Count{Label: "predicting", Note: "%d of %d molecules predicted into %s", Out: pf.Out, OKOnly: true}
	cfg.OnStart = func(n int, from string) {
		noun := "molecules"
		if n == 1 {
			noun = "molecule"
		}
		fmt.Fprintf(stderr, "rna predict: %d %s with %s\n", n, noun, from)
		bar.Start(n)
	}
	cfg.OnDone = func(o rnapredict.Outcome) { bar.Add(o.Err == nil) }
	outs, err := rnapredict.Run(ctx, cfg, names)
	bar.Finish()
	if err != nil {
		return err
	}
	failed, total := rnapredict.Summarize(stderr, stderr, outs, cfg, ctx.Err() != nil)
	return listFailures(ctx, "rna predict", failed, total)
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
		return usage.Errorf("give one SET file")
	case *against == "" || *out == "":
		return usage.Errorf("--against and --out are required")
	case !(*maxID > 0 && *maxID <= 1):
		return usage.Errorf("--max-identity %v: want a value in (0, 1]", *maxID)
	case !strings.HasSuffix(strings.TrimSuffix(*out, ".gz"), ".dbn"):
		return usage.Errorf("--out %s: want a .dbn or .dbn.gz file", *out)
	}
	if exists(*out) && !*force {
		return fmt.Errorf("%s exists: not overwritten (give --force to overwrite, or another --out)", *out)
	}
	return ssnet.Dedup(stdout, pos[0], *against, *out, *maxID)
}
