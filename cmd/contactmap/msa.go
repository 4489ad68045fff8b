package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/contactmap/contactmap/internal/interrupt"
	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/pipeline/predict"
	"github.com/contactmap/contactmap/pipeline/search"
)

// runMSA is "contactmap msa": an alignment per query sequence, by a
// homology search tool run as a subprocess (pipeline/search).
func runMSA(ctx context.Context, args []string) error {
	fs := newFlags("msa", helpText{
		Usage: "contactmap msa --db DB [flags] INPUT...",
		About: `Builds a multiple sequence alignment for each query sequence by homology
search with jackhmmer (HMMER), MMseqs2 or HHblits (HH-suite), run as
subprocesses found on PATH (or --search-bin).

INPUT is a FASTA file of sequences (plain, gzip or zstd), a PDB ID
(1ENH_A, 1ENHA, or 1enh for every protein chain) resolved in --pdb-dir
(the chain's SEQRES), a structure file, or - for standard input (FASTA
records, or inputs one per line); --ids adds inputs from a file.

--db is the database searched: a FASTA file (plain or gzip) for jackhmmer
and MMseqs2, an HH-suite database prefix (UniRef30_2023_02) for HHblits.
MMseqs2 builds its database and index beside the FASTA once (DB.mmseqs/),
or in --db-index DIR. The default tool is jackhmmer, chosen by measured
trials on the validation families (experiments/msa-search: the msa
network's long-range top-L/5 0.762 from its alignments against 0.603 from
MMseqs2's, 7 s a search; docs/msa.md).

The hits are filtered here, as hhfilter does: --min-coverage,
--max-identity, --max-pair-identity, --max-depth; the tools' own output
filters are off (MMseqs2 --filter-msa 0, HHblits -all).

Outputs per query, in --out: NAME.a3m (or .aln, .sto: --format), the
query first, named as predict names its outputs; NAME.log, the tool's
standard output and error. manifest.tsv has a row per query: query,
length, depth (rows, the query's included), Neff/L (effective sequences
at 80% identity over the length), status ok/skipped/failed, tool,
version, database, seconds, settings, file and error. A query whose
alignment exists is skipped (--force redoes it); a query that fails is
listed at the end and the others go on.`,
		Example: "contactmap msa --db uniref50.fasta.gz --search jackhmmer --out msas 1ENH_A seqs.fasta",
	})
	var pf predictFlags
	pf.register(fs, "msas", "a3m", predictFlagHelp{
		Unit:   "queries",
		Format: "alignment format: a3m (insertions in lower case), aln (PSICOV: the query's columns) or sto (Stockholm)",
		Force:  "redo queries whose alignment exists in --out",
		Out:    "output directory: NAME.a3m (--format), NAME.log and " + search.ManifestName + ".tsv (with --shard i/n, " + search.ManifestName + ".shard-i-of-n.tsv)",
	})
	var opt search.Options
	var filter search.Filter
	var sf searchFlags
	var pdbDir string
	fs.StringVar(&sf.DB, "db", "", "database: a FASTA file (plain or gzip) for jackhmmer and mmseqs, an HH-suite database prefix for hhblits (required)")
	fs.StringVar(&sf.DBIndex, "db-index", "", "mmseqs: directory of the database and index (built there once where absent); default DB.mmseqs beside --db")
	fs.StringVar(&sf.Tool, "search", string(search.DefaultTool), "search tool: jackhmmer (Debian hmmer), mmseqs (mmseqs2) or hhblits (hhsuite); jackhmmer is the default, measured best on validation (experiments/msa-search)")
	fs.StringVar(&sf.Bin, "search-bin", "", "the search tool's program (default: its name on PATH)")
	fs.IntVar(&opt.Iterations, "iterations", 0, "search iterations; 0: the tool's default (jackhmmer -N 5, mmseqs --num-iterations 1, hhblits -n 2)")
	fs.Float64Var(&opt.EValue, "evalue", search.DefaultEValue, "inclusion E-value (jackhmmer --incE/--incdomE, mmseqs -e, hhblits -e; 0.001 is each tool's default)")
	fs.IntVar(&opt.Threads, "threads", 0, "threads of each search; 0: the tool's default (jackhmmer --cpu 2, mmseqs every core, hhblits -cpu 2)")
	fs.Float64Var(&filter.MinCoverage, "min-coverage", 0, "keep hits covering at least this fraction of the query's columns (hhfilter -cov/100; 0 keeps all, as jackhmmer does)")
	fs.Float64Var(&filter.MaxIdentity, "max-identity", 1, "keep hits at most this identical to the query over the columns they cover (1 keeps all)")
	fs.Float64Var(&filter.MaxPairIdentity, "max-pair-identity", 1, "drop hits the same as a row kept before them (the query first, then the tool's order) in more than this fraction of the query's columns, gaps included: hhfilter -id/100's redundancy filter (0.9 as GREMLIN's users run it; 1 keeps all)")
	fs.IntVar(&filter.MaxDepth, "max-depth", 0, "keep at most this many rows, the query's included, the best first in the tool's order; 0 keeps all (mmseqs's prefilter passes on the larger of this and 10000 hits, --max-seqs)")
	fs.StringVar(&pdbDir, "pdb-dir", "data/pdb", "local PDB mirror for PDB IDs")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"iterations": nonNeg, "evalue": positive, "threads": nonNeg, "min-coverage": fraction, "max-identity": fraction, "max-pair-identity": fraction, "max-depth": nonNeg}); err != nil {
		return err
	}
	if err := pf.check(fs); err != nil {
		return err
	}
	format := strings.ToLower(strings.TrimSpace(pf.Format))
	if !slices.Contains(search.Formats, format) {
		return usage.Errorf("--format: unknown alignment format %q (%s)", pf.Format, strings.Join(search.Formats, ", "))
	}
	if sf.DB == "" {
		return usage.Errorf("--db: no database given (a FASTA file for jackhmmer and mmseqs, an HH-suite prefix for hhblits)")
	}
	inputs, err := pf.inputs(pos)
	if err != nil {
		return err
	}
	inputs, stdin, err := predict.ReadStdin(inputs, os.Stdin, interrupt.OnForcedExit)
	defer stdin.Remove()
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		return usage.Errorf("no inputs (see -h)")
	}
	opt.MaxSeqs = max(filter.MaxDepth, search.DefaultMaxSeqs)
	s, closeSearch, err := sf.open(opt)
	if err != nil {
		return err
	}
	defer closeSearch()
	mine := search.Shard(predict.SearchJobs(inputs, pdbDir, stderr), pf.shard, pf.shards)
	if err := os.MkdirAll(pf.Out, 0o755); err != nil {
		return err
	}
	cfg := search.Config{Out: pf.Out, Format: format, Force: pf.Force, Workers: pf.Workers, Filter: filter}
	bar := progress.Count{Label: "msa", Note: "%d of %d alignments written to %s (a rerun skips them)", Out: pf.Out}
	bar.Start(len(mine))
	results := search.Finished(search.Run(ctx, s, cfg, mine, func(r search.Result) { bar.Add(r.Status == search.StatusOK) }))
	bar.Finish()
	if err := search.WriteManifest(search.ManifestFile(pf.Out, pf.shard, pf.shards), s, cfg, results); err != nil {
		fmt.Fprintf(stderr, "warning: manifest not written: %v\n", err)
	}
	failed := search.Report(stdout, stderr, results)
	if ctx.Err() != nil {
		return fmt.Errorf("msa: %w", context.Canceled)
	}
	return listFailures(ctx, "msa", failed, len(mine))
}
