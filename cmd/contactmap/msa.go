package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/progress"
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

The hits are filtered here, as hhfilter does: --min-coverage, --max-identity,
--max-depth; the tools' own output filters are off (MMseqs2 --filter-msa 0,
HHblits -all).

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
	scratch := flag.NewFlagSet("msa", flag.ContinueOnError)
	pf.register(scratch, "msas", "a3m", predictFlagHelp{
		Unit:   "queries",
		Format: "alignment format: a3m (insertions in lower case), aln (PSICOV: the query's columns) or sto (Stockholm)",
		Force:  "redo queries whose alignment exists in --out",
	})
	outHelp := map[string]string{"out": "output directory: NAME.a3m (--format), NAME.log and " + search.ManifestName + ".tsv (with --shard i/n, " + search.ManifestName + ".shard-i-of-n.tsv)"}
	for _, n := range []string{"out", "force", "workers", "ids", "shard", "format"} {
		f := scratch.Lookup(n)
		usage := f.Usage
		if h, ok := outHelp[n]; ok {
			usage = h
		}
		fs.Var(f.Value, n, usage)
	}
	var opt search.Options
	var filter search.Filter
	var tool, pdbDir string
	fs.StringVar(&opt.DB, "db", "", "database: a FASTA file (plain or gzip) for jackhmmer and mmseqs, an HH-suite database prefix for hhblits (required)")
	fs.StringVar(&opt.DBIndex, "db-index", "", "mmseqs: directory of the database and index (built there once where absent); default DB.mmseqs beside --db")
	fs.StringVar(&tool, "search", string(search.DefaultTool), "search tool: jackhmmer (Debian hmmer), mmseqs (mmseqs2) or hhblits (hhsuite); jackhmmer is the default, measured best on validation (experiments/msa-search)")
	fs.StringVar(&opt.Bin, "search-bin", "", "the search tool's program (default: its name on PATH)")
	fs.IntVar(&opt.Iterations, "iterations", 0, "search iterations; 0: the tool's default (jackhmmer -N 5, mmseqs --num-iterations 1, hhblits -n 2)")
	fs.Float64Var(&opt.EValue, "evalue", search.DefaultEValue, "inclusion E-value (jackhmmer --incE/--incdomE, mmseqs -e, hhblits -e; 0.001 is each tool's default)")
	fs.IntVar(&opt.Threads, "threads", 0, "threads of each search; 0: the tool's default (jackhmmer --cpu 2, mmseqs every core, hhblits -cpu 2)")
	fs.Float64Var(&filter.MinCoverage, "min-coverage", 0, "keep hits covering at least this fraction of the query's columns (hhfilter -cov/100; 0 keeps all, as jackhmmer does)")
	fs.Float64Var(&filter.MaxIdentity, "max-identity", 1, "keep hits at most this identical to the query over the columns they cover (1 keeps all)")
	fs.IntVar(&filter.MaxDepth, "max-depth", 0, "keep at most this many rows, the query's included, the best first in the tool's order; 0 keeps all (mmseqs's prefilter passes on the larger of this and 10000 hits, --max-seqs)")
	fs.StringVar(&pdbDir, "pdb-dir", "data/pdb", "local PDB mirror for PDB IDs")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"iterations": nonNeg, "evalue": positive, "threads": nonNeg, "min-coverage": fraction, "max-identity": fraction, "max-depth": nonNeg}); err != nil {
		return err
	}
	if err := pf.check(fs); err != nil {
		return err
	}
	if opt.Tool, err = search.ParseTool(tool); err != nil {
		return usageError("--search: %v", err)
	}
	format := strings.ToLower(strings.TrimSpace(pf.Format))
	switch format {
	case "a3m", "aln", "sto":
	default:
		return usageError("--format: unknown alignment format %q (%s)", pf.Format, strings.Join(search.Formats, ", "))
	}
	if opt.DB == "" {
		return usageError("--db: no database given (a FASTA file for jackhmmer and mmseqs, an HH-suite prefix for hhblits)")
	}
	inputs, err := pf.inputs(pos)
	if err != nil {
		return err
	}
	inputs, cleanup, err := msaStdin(inputs)
	defer cleanup()
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		return usageError("no inputs (see -h)")
	}
	opt.MaxSeqs = max(filter.MaxDepth, search.DefaultMaxSeqs)
	s, err := search.New(opt)
	if err != nil {
		return err
	}
	defer s.Close()
	onForcedExit(func() { s.Close() })

	jobs := msaJobs(inputs, pdbDir)
	var mine []search.Job
	for i, j := range jobs {
		if i%pf.shards == pf.shard {
			mine = append(mine, j)
		}
	}
	if err := os.MkdirAll(pf.Out, 0o755); err != nil {
		return err
	}
	cfg := search.Config{Out: pf.Out, Format: format, Force: pf.Force, Workers: pf.Workers, Filter: filter}
	bar := progress.New(len(mine), "msa")
	done := 0
	results := search.Run(ctx, s, cfg, mine, func(r search.Result) {
		bar.Add(1)
		if r.Status == search.StatusOK {
			done++
		}
		setFinished("%d of %d alignments written to %s (a rerun skips them)", done, len(mine), pf.Out)
	})
	bar.Finish()
	manifest := filepath.Join(pf.Out, search.ManifestName+".tsv")
	if pf.shards > 1 {
		manifest = filepath.Join(pf.Out, fmt.Sprintf("%s.shard-%d-of-%d.tsv", search.ManifestName, pf.shard, pf.shards))
	}
	interrupted := ctx.Err() != nil
	var kept []search.Result
	for _, r := range results {
		if !(interrupted && errors.Is(r.Err, context.Canceled)) {
			kept = append(kept, r)
		}
	}
	if err := search.WriteManifest(manifest, s, cfg, kept); err != nil {
		fmt.Fprintf(stderr, "warning: manifest not written: %v\n", err)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	var failed []failure
	rows := 0
	for _, r := range kept {
		switch r.Status {
		case search.StatusFailed:
			failed = append(failed, failure{Name: r.ID, Err: r.Err})
			continue
		case search.StatusSkipped:
			fmt.Fprintf(stderr, "%s: %s exists: skipped (--force redoes it)\n", r.ID, r.File)
			continue
		}
		if rows == 0 {
			fmt.Fprintln(tw, "query\tlength\tdepth\tNeff/L\tseconds\tfile")
		}
		rows++
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.1f\t%s\n", r.ID, r.L, r.Depth, r.NeffL, r.Seconds, r.File)
	}
	tw.Flush()
	if interrupted {
		return fmt.Errorf("msa: %w", context.Canceled)
	}
	return listFailures(stderr, failed, len(mine))
}

// msaJobs resolves the inputs into queries (as predict resolves them:
// PDB IDs in the mirror, structure and FASTA files; an alignment file's
// query) and names their outputs as predict does: the ID made safe
// (predict.SafeName) and unique in the run ignoring case, "_2", "_3" for
// later ones; the manifest's name is not taken. An input that resolves
// to nothing is one failed job.
func msaJobs(inputs []string, pdbDir string) []search.Job {
	var jobs []search.Job
	for _, a := range inputs {
		if empty, err := emptyFile(a); err == nil && empty {
			jobs = append(jobs, search.Job{ID: a, Arg: a, Err: errors.New("empty input: no sequence")})
			continue
		}
		ts, err := predict.Resolve(a, pdbDir)
		if err != nil {
			jobs = append(jobs, search.Job{ID: a, Arg: a, Err: err})
			continue
		}
		for _, t := range ts {
			jobs = append(jobs, search.Job{ID: t.ID, Arg: a, Seq: t.Seq, Err: t.Err})
		}
	}
	taken := map[string]bool{search.ManifestName: true}
	for i := range jobs {
		base := predict.SafeName(jobs[i].ID)
		name := base
		for k := 2; taken[strings.ToLower(name)]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		if name != jobs[i].ID && jobs[i].Err == nil {
			fmt.Fprintf(stderr, "%s: written as %s.*\n", jobs[i].ID, name)
		}
		taken[strings.ToLower(name)] = true
		jobs[i].Name = name
	}
	return jobs
}

// msaStdin replaces "-" by standard input's FASTA records (in a
// temporary file, removed by cleanup) or its inputs, one per line.
func msaStdin(inputs []string) (out []string, cleanup func(), err error) {
	cleanup = func() {}
	read := false
	for _, a := range inputs {
		if a != "-" {
			out = append(out, a)
			continue
		}
		if read {
			continue
		}
		read = true
		data, err := fileio.ReadText(os.Stdin, stdinFASTABytes, 1<<24)
		if err != nil {
			return nil, cleanup, fmt.Errorf("standard input: %w", err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return nil, cleanup, fmt.Errorf("standard input: empty input: give FASTA records, or inputs (PDB IDs, files) one per line")
		}
		if !predict.LooksLikeFASTA(data) {
			more, err := readIDs(bytes.NewReader(data))
			if err != nil {
				return nil, cleanup, fmt.Errorf("standard input: %w", err)
			}
			out = append(out, more...)
			continue
		}
		tmp, err := os.MkdirTemp("", "contactmap-stdin-")
		if err != nil {
			return nil, cleanup, err
		}
		cleanup = func() { os.RemoveAll(tmp) }
		onForcedExit(cleanup)
		p := filepath.Join(tmp, "standard-input.fasta")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return nil, cleanup, err
		}
		out = append(out, p)
	}
	return out, cleanup, nil
}
