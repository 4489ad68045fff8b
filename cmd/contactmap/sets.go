package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/contactmap/contactmap/internal/progress"
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
		return usageError("--max-len %d is below --min-len %d", o.MaxLen, o.MinLen)
	}
	if err := checkOutDir(*out); err != nil {
		return err
	}
	if err := refuseOverwrite(*force, filepath.Join(*out, "extended.tsv"), filepath.Join(*out, "long.tsv")); err != nil {
		return err
	}
	manifest, err := features.ReadManifest(filepath.Join(*base, "manifest.tsv"))
	if err != nil {
		return fmt.Errorf("sets: %w (run make features first)", err)
	}
	var baseChains []sets.Member
	for _, e := range manifest {
		c, err := features.ReadFile(filepath.Join(*base, e.File))
		if err != nil {
			return fmt.Errorf("sets: %w", err)
		}
		baseChains = append(baseChains, sets.Member{Chain: sets.Chain{ID: e.ID, PDB: e.PDB, Chain: e.Chain, Seq: c.Seq, Resolved: e.Resolved}, Split: e.Split})
	}
	scan := func(dirs ...string) ([]sets.Chain, []sets.Skip, error) {
		files, err := sets.Files(dirs...)
		if err != nil {
			return nil, nil, err
		}
		bar := progress.New(len(files), "reading structures")
		chains, skips := sets.Scan(files, features.MinResolved, features.MinResolvedFraction, o.Workers, func() { bar.Add(1) })
		bar.Finish()
		return chains, skips, ctx.Err()
	}
	pool, skips, err := scan(*pdbDir)
	if err != nil {
		return err
	}
	var bar *progress.Bar
	stage := ""
	o.Progress = func(s string, done, total int) {
		if s != stage {
			if bar != nil {
				bar.Finish()
			}
			bar, stage = progress.New(total, s), s
		}
		bar.Add(1)
	}
	finish := func() {
		if bar != nil {
			bar.Finish()
			bar, stage = nil, ""
		}
	}
	ext, extOut, err := sets.Extend(baseChains, pool, o)
	finish()
	if err != nil {
		return err
	}
	longPool := pool
	if *extra != "" {
		more, moreSkips, err := scan(*extra)
		if err != nil {
			return err
		}
		longPool, skips = append(append([]sets.Chain(nil), pool...), more...), append(skips, moreSkips...)
	}
	var trained []sets.Chain
	for _, m := range ext {
		if m.Split == sets.Train || m.Split == sets.Validation {
			trained = append(trained, m.Chain)
		}
	}
	long, longOut, err := sets.LengthSet(trained, longPool, o)
	finish()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("sets: %w", err)
	}
	for _, w := range []struct {
		name string
		fn   func(string) error
	}{
		{"extended.tsv", func(p string) error { return sets.Write(p, ext) }},
		{"extended-excluded.tsv", func(p string) error { return sets.WriteExcluded(p, extOut) }},
		{"long.tsv", func(p string) error { return sets.Write(p, long) }},
		{"long-excluded.tsv", func(p string) error { return sets.WriteExcluded(p, longOut) }},
		{"skipped.tsv", func(p string) error { return sets.WriteSkips(p, skips) }},
	} {
		if err := w.fn(filepath.Join(*out, w.name)); err != nil {
			return fmt.Errorf("sets: %w", err)
		}
	}
	count := func(ms []sets.Member) map[string]int {
		n := map[string]int{}
		for _, m := range ms {
			n[m.Split]++
		}
		return n
	}
	reasons := func(ex []sets.Excluded) string {
		n := map[string]int{}
		for _, e := range ex {
			n[e.Reason]++
		}
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s := ""
		for _, k := range keys {
			s += fmt.Sprintf("\n  %5d %s", n[k], k)
		}
		return s
	}
	ce := count(ext)
	fmt.Fprintf(stdout, "%d chains read from %s (%d chains or files skipped: %s)\n", len(pool), *pdbDir, len(skips), filepath.Join(*out, "skipped.tsv"))
	fmt.Fprintf(stdout, "extended set %s: %d training chains (length %d-%d, no alignment at E < %g with >= %.0f%% identity to the base's %d validation and %d test chains, near-duplicates at >= %.0f%% removed)\n",
		filepath.Join(*out, "extended.tsv"), ce[sets.Train], o.MinLen, o.MaxLen, o.MaxEValue, 100*o.MaxIdentity, ce[sets.Validation], ce[sets.Test], 100*o.Duplicate)
	fmt.Fprintf(stdout, "left out:%s\n", reasons(extOut))
	fmt.Fprintf(stdout, "length-generalisation set %s: %d chains longer than %d (no alignment at E < %g with >= %.0f%% identity to the %d training and validation chains)\n",
		filepath.Join(*out, "long.tsv"), len(long), o.MaxLen, o.MaxEValue, 100*o.MaxIdentity, len(trained))
	fmt.Fprintf(stdout, "left out:%s\n", reasons(longOut))
	return nil
}
