package main

import (
	"context"
	"path/filepath"
	"runtime"

	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/internal/runsummary"
	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/search"
)

func runFeatures(ctx context.Context, args []string) error {
	fs := newFlags("features", helpText{
		Usage: `contactmap features --list LIST|--chains FILE --pdb-dir DIR --out DIR [flags]
       contactmap features --merge DIR`,
		About: `Computes feature files for training and evaluation: reads a PISCES chain
list (or a chain-set file from contactmap sets), the structures from a
local PDB mirror, and writes one feature file per chain, manifest.tsv
(with the train/validation/test split) and skipped.tsv with the reason
for each chain left out. With --db, a chain without an alignment in
--msa-dir gets one from a search of its SEQRES sequence (contactmap msa).`,
		Example: "contactmap features --list data/pdb25.list --pdb-dir data/pdb --out features",
	})
	var cfg features.Config
	fs.StringVar(&cfg.List, "list", "", "PISCES chain list (plain or gzip)")
	fs.StringVar(&cfg.Chains, "chains", "", "or a chain-set file (contactmap sets): its chains, splits and structure files")
	fs.StringVar(&cfg.PDBDir, "pdb-dir", "", "local PDB mirror (divided xy/pdbXXXX.ent.gz, xy/XXXX.cif.gz, or flat)")
	fs.StringVar(&cfg.SS, "ss", "", "secondary-structure predictions: PSIPRED FASTA file, or directory of <ID>.ss2/.horiz (default: sequence-only estimate)")
	fs.StringVar(&cfg.MSADir, "msa-dir", "", "directory of alignments <ID>.a3m|.aln|.fasta; chains without one are skipped (with --db, searched and written there; default OUT/msa)")
	var sf searchFlags
	sf.bind(fs, "search this database for the alignment of each chain that has none in --msa-dir (a FASTA file, plain or gzip, for jackhmmer and mmseqs; an HH-suite prefix for hhblits; as contactmap msa), and compute MSA features from it")
	searchThreads := fs.Int("search-threads", 0, "with --db: threads of each search (--workers chains search at once); 0: the tool's default (jackhmmer --cpu 2, mmseqs every core, hhblits -cpu 2)")
	fs.BoolVar(&cfg.Plm, "plm", false, "with --msa-dir: the co-evolution channel from plmDCA (a pseudo-likelihood Potts model fitted to each alignment; minutes for deep ones) instead of mean-field DCA; feature mode msa+plm")
	fs.IntVar(&cfg.PlmThreads, "plm-threads", 1, "goroutines of each plmDCA fit (--workers chains are fitted at once)")
	fs.Float64Var(&cfg.PlmEpsilon, "plm-epsilon", 0, "stop each plmDCA fit when the objective falls by less than this fraction over 5 iterations (0: plmDCA's default, 0.01; the shipped MSA network's training features used 1e-4)")
	fs.StringVar(&cfg.Out, "out", "", "output directory")
	fs.IntVar(&cfg.MinLen, "min-len", 25, "minimum chain length (PISCES length)")
	fs.IntVar(&cfg.MaxLen, "max-len", 100, "maximum chain length (PISCES length)")
	shard := fs.String("shard", "0/1", "process shard i of n (0-based: list entries with index % n == i)")
	fs.IntVar(&cfg.Workers, "workers", runtime.GOMAXPROCS(0), "parallel chains")
	cb := fs.Bool("cb", false, "contacts by C-beta, C-alpha for glycine (CASP), instead of C-alpha (the paper)")
	cfg.Labels = pdb.DefaultContactDef
	fs.Float64Var(&cfg.Labels.Cutoff, "cutoff", pdb.ContactCutoff, "contact distance cutoff, Å")
	seed := fs.Uint64("seed", 1, "seed of the train/validation/test split")
	merge := fs.String("merge", "", "merge the shard manifests of this directory into manifest.tsv and exit")
	fs.BoolVar(&cfg.Force, "force", false, "replace the features of an --out made with other settings (another split seed, labels, chain list or mode); without it such a run is refused, and one with the same settings resumes the directory")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("features", pos); err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"min-len": atLeast1, "max-len": atLeast1, "workers": atLeast1, "cutoff": positive, "plm-threads": atLeast1, "plm-epsilon": fraction, "search-threads": nonNeg}); err != nil {
		return err
	}
	if cfg.Plm && cfg.MSADir == "" && sf.DB == "" {
		return usage.Errorf("--plm needs --msa-dir or --db: plmDCA is fitted to each chain's alignment")
	}
	if cfg.MaxLen < cfg.MinLen {
		return usage.Errorf("--max-len %d is below --min-len %d", cfg.MaxLen, cfg.MinLen)
	}
	if *merge != "" {
		rep, err := features.MergeShards(*merge)
		if err != nil {
			return err
		}
		rep.WriteSummary(stdout)
		return nil
	}
	if (cfg.List == "") == (cfg.Chains == "") || cfg.PDBDir == "" || cfg.Out == "" {
		return usage.Errorf("--list or --chains (one of them), --pdb-dir and --out are required (see -h)")
	}
	if err := checkOutDir(cfg.Out); err != nil {
		return err
	}
	if cfg.Shard, cfg.Shards, err = runsummary.ParseShard(*shard); err != nil {
		return usage.Errorf("%v", err)
	}
	s, closeSearch, err := sf.open(search.Options{Threads: *searchThreads})
	if err != nil {
		return err
	}
	defer closeSearch()
	if cfg.Search = s; s != nil && cfg.MSADir == "" {
		cfg.MSADir = filepath.Join(cfg.Out, "msa")
	}
	cfg.Seed = *seed
	if *cb {
		cfg.Labels.Atoms = pdb.CBeta
	}
	bar := progress.Count{Label: "features", Note: "%d of %d chains' feature files in %s (a rerun reuses them; the manifest is written at the end)", Out: cfg.Out}
	cfg.OnStart = bar.Start
	cfg.OnChain = func(string) { bar.Add(true) }
	rep, err := features.Run(ctx, cfg)
	bar.Finish()
	if err != nil {
		return err
	}
	return rep.WriteRun(stdout, stderr, cfg)
}
