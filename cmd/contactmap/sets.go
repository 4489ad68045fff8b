package main

import (
	"context"
	"path/filepath"

	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/sets"
)

// runSets builds the extended training set and the length-generalisation
// set (package sets) from a base feature directory's split and the
// structures on disk.
func runSets(ctx context.Context, args []string) error {
	fs := newFlags("sets", helpText{
		Usage: "contactmap sets [--features DIR] [--pdb-dir DIR] [--out DIR] [flags]",
		About: `Builds the extended training set and the length-generalisation set from
the structures on disk: chains of --pdb-dir (and --extra-dir) with no
significant alignment to the base feature directory's validation and test
chains, near-duplicates removed. Outputs in --out: extended.tsv, long.tsv,
the excluded chains with reasons, skipped.tsv.`,
		Example: "contactmap sets --features features --pdb-dir data/pdb --out sets",
	})
	base := fs.String("features", "features", "base feature directory: its manifest's validation and test chains are held out")
	pdbDir := fs.String("pdb-dir", "data/pdb", "PDB mirror: the pool of candidate chains")
	extra := fs.String("extra-dir", "data/msa", "more structure files for the length-generalisation set (\"\" for none)")
	out := fs.String("out", "sets", "output directory")
	force := fs.Bool("force", false, "overwrite the sets already in --out")
	o := sets.DefaultOptions
	fs.Float64Var(&o.MaxIdentity, "max-identity", o.MaxIdentity, "two chains are related when their local alignment is significant and has at least this identity")
	fs.Float64Var(&o.MaxEValue, "max-evalue", o.MaxEValue, "E-value (against the whole reference set) below which a local alignment is significant")
	fs.Float64Var(&o.Duplicate, "duplicate", o.Duplicate, "identity from which two chains of a set are near-duplicates")
	fs.IntVar(&o.MinLen, "min-len", o.MinLen, "shortest training chain")
	fs.IntVar(&o.MaxLen, "max-len", o.MaxLen, "longest training chain; the length-generalisation set is longer")
	fs.IntVar(&o.Workers, "workers", o.Workers, "parallel alignments")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("sets", pos); err != nil {
		return err
	}
	if err := checkRanges(fs, map[string]string{"max-identity": fraction, "max-evalue": positive, "duplicate": fraction,
		"min-len": atLeast1, "max-len": atLeast1, "workers": atLeast1}); err != nil {
		return err
	}
	if o.MaxLen < o.MinLen {
		return usage.Errorf("--max-len %d is below --min-len %d", o.MaxLen, o.MinLen)
	}
	if err := checkOutDir(*out); err != nil {
		return err
	}
	if err := refuseOverwrite(*force, filepath.Join(*out, "extended.tsv"), filepath.Join(*out, "long.tsv")); err != nil {
		return err
	}
	cfg := sets.Config{PDBDir: *pdbDir, ExtraDir: *extra, Out: *out, Options: o,
		MinResolved: features.MinResolved, MinResolvedFraction: features.MinResolvedFraction}
	if cfg.Base, err = features.SetsBase(*base); err != nil {
		return err
	}
	res, err := sets.Run(ctx, cfg)
	if err != nil {
		return err
	}
	res.Summary(stdout)
	return nil
}
