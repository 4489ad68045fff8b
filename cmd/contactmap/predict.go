package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/contactmap/contactmap/internal/interrupt"
	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/models"
	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/pipeline/predict"
	"github.com/contactmap/contactmap/pipeline/search"
)

func runPredict(ctx context.Context, args []string) error {
	fs := newFlags("predict", helpText{
		Usage: "contactmap predict [flags] INPUT...",
		About: `Predicts protein contact maps.

INPUT is a PDB ID (1ENH_A, 1ENHA, or 1enh for every protein chain) resolved
in --pdb-dir, a PDB/mmCIF file, a FASTA file of sequences, an alignment
file (PSICOV .aln, A3M, Stockholm, or aligned FASTA with gaps; plain,
gzip or zstd; all recognised by content: a FASTA file without gaps is
sequences, unless --method plm or an alignment model such as msa is
named), or - for standard input: FASTA records when
its first line starts with '>', else inputs (IDs or files) one per line.
Flags may come before or after the inputs.

An alignment's first sequence is the query; the outputs are named by
the file's stem (1abcA.aln.gz: 1abcA.*). By default (--method network)
an alignment is predicted by the shipped MSA model, msa: one SCNN
trained on 89 protein families' alignments, whose inputs are the
alignment's plmDCA couplings, mutual information and profile
(C-beta contacts; experiments/msa-net). --method plm gives plmDCA's
scores alone (a pseudo-likelihood Potts model fitted to the alignment,
CCMpred's defaults, APC-corrected Frobenius norms calibrated to
probabilities of C-beta contacts). A model named with --model that was
trained on alignments (features --msa-dir) predicts alignment files
too; one trained without them leaves alignment files to plmDCA, with a
note. --method plm also predicts a PDB ID or structure from its
alignment in --msa-dir (then scored against the structure). Before a fit, its peak memory is estimated from the
alignment's length and depth; a fit estimated not to fit in the memory
available is refused with the estimate (--force tries it anyway). An
alignment with fewer effective sequences than columns (Neff/L < 1 at 80%
identity) gets a warning.

With --db DB, each input that is not an alignment file (a sequence, a PDB
ID, a structure) first gets an alignment by homology search (as
contactmap msa: --search, --search-bin, --db-index), written to --msa-dir
or OUT/msa and reused by later runs, and is predicted from it by the msa
network; the summary names the alignment and its depth. An alignment
with Neff/L below 0.1, where the msa network was measured no better than
the single-sequence model (experiments/msa-depth), is predicted by the
single-sequence model with a note (--strict: the chain fails).

Outputs per chain, in --out: NAME.rr (CASP RR; by default the 5L most
probable pairs with |i-j| >= 6: see --rr-max, --rr-min-sep), NAME.npy (the
full L x L float32 map),
NAME.tsv, NAME.png (heatmap); NAME is the chain ID made safe as a file name
and unique in the run. A chain whose outputs exist is skipped (--force
overwrites them). A record that looks like DNA or RNA (over 90% A, C, G,
T, U, N) gets a warning (skipped with --strict). Before each chain, its
peak memory is estimated from its length and the model; a chain
estimated not to fit in the memory available (the least of the cgroup
limit, RLIMIT_AS/RLIMIT_DATA, GOMEMLIMIT and MemAvailable) is skipped with the estimate (--force tries it anyway).
Warnings and failures go to standard error; a failed or skipped input
does not stop the others, and makes the exit status 1. The run's
summary: summary.tsv in --out (a row per input: name, length, status
ok, skipped or failed, outputs, method, the error), and on standard
error a short table of the chains predicted (none when none was) and
one failure list; standard output stays empty.`,
		Example: "contactmap predict --model scnn --out preds 1ENH_A seqs.fasta",
	})
	var cfg predict.Config
	var pf predictFlags
	pf.register(fs, "predictions", "rr,npy,png", predictFlagHelp{
		Unit:   "chains",
		Format: "outputs: any of rr, npy, tsv, png (comma-separated)",
		Model:  "a shipped model (" + strings.Join(models.Names(), ", ") + "; built into this binary; distilled: one SCNN trained on the ensemble's probabilities; ensemble: ten models, the mean of their probabilities; msa: the alignment network, for alignment files) or a model file (default " + models.Default + "); repeated: a seed ensemble, the mean of all the models' probabilities",
		Strict: "skip records that look like DNA or RNA (over 90% A, C, G, T, U, N) instead of warning; with --db, fail a chain whose alignment is too shallow for the msa network instead of predicting it by the single-sequence model",
		Force:  "overwrite existing outputs in --out, and predict chains estimated not to fit in the memory available",
	})
	fs.StringVar(&cfg.PDBDir, "pdb-dir", "data/pdb", "local PDB mirror for PDB IDs")
	fs.StringVar(&cfg.SS, "ss", "", "secondary-structure predictions (for models trained with them)")
	fs.StringVar(&cfg.MSADir, "msa-dir", "", "alignments <ID>.a3m|.aln|.fasta (for MSA models); with --db, where the search's alignments are written and reused (default OUT/msa)")
	fs.IntVar(&cfg.RRMinSep, "rr-min-sep", predict.DefaultRRMinSep, "RR files list pairs with |i-j| >= this (1: every pair)")
	cfg.RRMax = predict.DefaultRRMax
	fs.Var(&cfg.RRMax, "rr-max", "RR files keep the `kL|N` most probable pairs with |i-j| >= --rr-min-sep: kL, k per residue (5L: 5 x the chain's length, as CASP submissions and ConKit expect), N pairs (e.g. 1000), or 0 for every pair; the .npy keeps the full map")
	var sf searchFlags
	sf.bind(fs, "search this database for an alignment of each input that is not an alignment file (a FASTA file, plain or gzip, for jackhmmer and mmseqs; an HH-suite prefix for hhblits; as contactmap msa), kept in --msa-dir or OUT/msa and reused, and predict the chain from it with the msa network (docs/msa.md)")
	fs.IntVar(&cfg.PlmMaxRows, "plm-max-rows", predict.DefaultPlmMaxRows, "fit plmDCA (--method plm, and the msa network's co-evolution channel) on at most this many distinct sequences of those --plm-max-identity keeps: the query and draws of the others in proportion to their sequence weights, at the same Neff; 0: every sequence kept. The default was selected on held-out validation families after the filter (docs/msa.md): no cost at long-range top-L/5 there, 0.011 at top-L/2; on the test families the two defaults together cost 0.027 at top-L/5 against every row")
	fs.Float64Var(&cfg.PlmMaxIdentity, "plm-max-identity", predict.DefaultPlmMaxIdentity, "fit plmDCA (the same two) on the rows of an alignment that a greedy redundancy filter keeps: the query, then each row not the same, gaps included, in more than this fraction of the columns as a row kept before it (as hhfilter -id 90 before GREMLIN), the sequence weights of the rows kept; 0 or 1: every row. The default was selected on held-out validation families (docs/msa.md); with --plm-max-rows's default it takes every test query under 60 s, and costs 0.027 long-range top-L/5 on the test families against every row (--plm-max-identity 0 --plm-max-rows 0 fits every row)")
	fs.StringVar(&cfg.Method, "method", "", "predictor: network (the models; alignment files go to the shipped MSA model msa when no --model is named) or plm (plmDCA on the input's alignment, no model); default: network, and plm for alignment files where the named models read none")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"rr-min-sep": atLeast1, "plm-max-rows": nonNeg, "plm-max-identity": fraction}); err != nil {
		return err
	}
	if err := pf.check(fs); err != nil {
		return err
	}
	specs := pf.Models
	cfg.Out, cfg.Workers, cfg.Shard, cfg.Shards = pf.Out, pf.Workers, pf.shard, pf.shards
	switch cfg.Method {
	case predict.MethodAuto, predict.MethodPLM, predict.MethodNetwork:
	default:
		return usage.Errorf("--method: unknown method %q (%s)", cfg.Method, strings.Join(predict.Methods, ", "))
	}
	inputs, err := pf.inputs(pos)
	if err != nil {
		return err
	}
	if cfg.Method == predict.MethodPLM && len(specs) > 0 {
		fmt.Fprintln(stderr, "contactmap predict: warning: --model is not used by --method plm (plmDCA alone, no model)")
	}
	cfg.Models, cfg.Load = specs, models.Load
	if len(cfg.Models) == 0 {
		cfg.Models = []string{models.Default}
		if _, ok := models.Shipped[models.AlignmentDefault]; ok {
			cfg.AlignmentModels = []string{models.AlignmentDefault} // alignment files
		}
	}
	if cfg.Formats, err = predict.ParseFormats(pf.Format); err != nil {
		return usage.Errorf("%v", err)
	}
	expanded, stdin, err := predict.ReadStdin(inputs, os.Stdin, interrupt.OnForcedExit)
	defer stdin.Remove()
	if err != nil {
		return err
	}
	if len(expanded) == 0 {
		return usage.Errorf("no inputs (see -h)")
	}
	cfg.Check = predict.CheckChain(cfg.Out, cfg.Formats, pf.Force, pf.Strict)
	// The search stage (--db): alignments for the inputs that are not
	// alignment files, then the msa network on them.
	closeSearch, err := sf.stage(&cfg, pf.Strict)
	if err != nil {
		return err
	}
	defer closeSearch()
	singleNote := sf.DB == "" && len(specs) == 0 && cfg.Method != predict.MethodPLM
	cfg.Memory = &memcheck.Gate{Force: pf.Force}
	bar := progress.Count{Label: "predict", Note: "%d of %d chains' outputs written to %s (a rerun skips them)", Out: cfg.Out}
	cfg.OnStart = bar.Start
	// A long chain's network gets a bar of its own, over its layers.
	cfg.OnNetwork = func(t *predict.Target, flops float64) func(float64, bool) {
		return progress.NetworkBar(t.ID, len(t.Seq), flops)
	}
	cfg.OnDone = func(o predict.Outcome) { bar.Add(o.Err == nil) }
	// Interrupted: the chains not done are not failures; the summary
	// lists those finished, and main says the run was interrupted.
	outs, err := predict.RunInputs(ctx, cfg, expanded, stdin.File)
	bar.Finish()
	if err != nil {
		return err
	}
	if singleNote {
		predict.NoteSingleSequence(stderr, cfg, outs)
	}
	failed, total := predict.Summarize(stderr, stderr, outs, cfg)
	return listFailures(ctx, "predict", failed, total)
}

// searchFlags are the flags of the search stage (--db) of predict and
// features.
type searchFlags struct {
	DB, DBIndex, Tool, Bin string
}

// bind defines the flags on fs; db is --db's usage.
func (sf *searchFlags) bind(fs *flag.FlagSet, db string) {
	fs.StringVar(&sf.DB, "db", "", db)
	fs.StringVar(&sf.Tool, "search", string(search.DefaultTool), "with --db: the search tool, jackhmmer (Debian hmmer), mmseqs (mmseqs2) or hhblits (hhsuite)")
	fs.StringVar(&sf.Bin, "search-bin", "", "with --db: the search tool's program (default: its name on PATH)")
	fs.StringVar(&sf.DBIndex, "db-index", "", "with --db and --search mmseqs: directory of the database and index (default DB.mmseqs beside --db)")
}

// open is the searcher of the flags and opt (the tool's other settings):
// nil without --db, where the other search flags are refused. close
// removes its files.
func (sf *searchFlags) open(opt search.Options) (s *search.Searcher, close func(), err error) {
	close = func() {}
	if sf.DB == "" {
		for i, set := range []bool{sf.Tool != string(search.DefaultTool), sf.Bin != "", sf.DBIndex != "", opt.Threads != 0} {
			if set {
				return nil, close, usage.Errorf("--%s is for the search stage: give --db too", []string{"search", "search-bin", "db-index", "search-threads"}[i])
			}
		}
		return nil, close, nil
	}
	if opt.Tool, err = search.ParseTool(sf.Tool); err != nil {
		return nil, close, usage.Errorf("--search: %v", err)
	}
	opt.Bin, opt.DB, opt.DBIndex = sf.Bin, sf.DB, sf.DBIndex
	if s, err = search.New(opt); err != nil {
		return nil, close, err
	}
	close = func() { s.Close() }
	interrupt.OnForcedExit(close)
	return s, close, nil
}

// stage sets cfg.Search from the flags (predict.NewSearch): nothing
// without --db. close removes the searcher's files.
func (sf *searchFlags) stage(cfg *predict.Config, strict bool) (close func(), err error) {
	s, close, err := sf.open(search.Options{})
	if s == nil || err != nil {
		return close, err
	}
	st := predict.NewSearch(cfg, s, strict)
	bar := progress.Count{Label: "search", Note: "%d of %d alignments written to %s (a rerun reuses them)", Out: st.Config.Out}
	st.OnStart = func(n int) {
		if n > 0 {
			bar.Start(n)
		}
	}
	st.OnDone = func(r search.Result) { bar.Add(r.Status == search.StatusOK) }
	cfg.Search = st
	return close, nil
}
