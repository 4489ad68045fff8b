package sets

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/contactmap/contactmap/internal/progress"
)

// Config is one build of the extended training set and the
// length-generalisation set from the structures on disk.
type Config struct {
	// Base holds the chains of the base split: its validation and test
	// chains are held out of the extended set.
	Base     []Member
	PDBDir   string // the pool of candidate chains
	ExtraDir string // more structure files for the length-generalisation set; "" for none
	// Out is the directory the sets go to: extended.tsv, long.tsv, the
	// chains left out of each with why (extended-excluded.tsv,
	// long-excluded.tsv) and the chains and files skipped (skipped.tsv).
	Out string
	// A structure's chain is a candidate when at least MinResolved of its
	// positions, and MinResolvedFraction of them, have C-alpha
	// coordinates (Scan).
	MinResolved         int
	MinResolvedFraction float64
	// Options are the thresholds; a nil Progress draws a progress bar per
	// stage (package progress).
	Options
}

// Outcome is what Run built and wrote.
type Outcome struct {
	Config
	Pool        int        // chains read from PDBDir
	Skips       int        // chains and files skipped, in skipped.tsv
	Extended    []Member   // the extended set: base chains and unrelated pool chains
	ExtendedOut []Excluded // pool chains left out of it
	Long        []Member   // the length-generalisation set
	LongOut     []Excluded // chains left out of it
	Trained     int        // training and validation chains the long set is screened against
}

// Run builds the extended training set (Extend) from the base chains and
// the chains of PDBDir, then the length-generalisation set (LengthSet)
// from those chains and ExtraDir's against the extended set's training
// and validation chains, and writes both to Out. A cancelled ctx stops it
// after reading a directory of structures.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	o := cfg.Options
	scan := func(dirs ...string) ([]Chain, []Skip, error) {
		files, err := Files(dirs...)
		if err != nil {
			return nil, nil, err
		}
		bar := progress.New(len(files), "reading structures")
		chains, skips := Scan(files, cfg.MinResolved, cfg.MinResolvedFraction, o.Workers, func() { bar.Add(1) })
		bar.Finish()
		return chains, skips, ctx.Err()
	}
	pool, skips, err := scan(cfg.PDBDir)
	if err != nil {
		return nil, err
	}
	finish := func() {}
	if o.Progress == nil {
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
		finish = func() {
			if bar != nil {
				bar.Finish()
				bar, stage = nil, ""
			}
		}
	}
	out := &Outcome{Config: cfg, Pool: len(pool)}
	out.Extended, out.ExtendedOut, err = Extend(cfg.Base, pool, o)
	finish()
	if err != nil {
		return nil, err
	}
	longPool := pool
	if cfg.ExtraDir != "" {
		more, moreSkips, err := scan(cfg.ExtraDir)
		if err != nil {
			return nil, err
		}
		longPool, skips = append(append([]Chain(nil), pool...), more...), append(skips, moreSkips...)
	}
	var trained []Chain
	for _, m := range out.Extended {
		if m.Split == Train || m.Split == Validation {
			trained = append(trained, m.Chain)
		}
	}
	out.Trained, out.Skips = len(trained), len(skips)
	out.Long, out.LongOut, err = LengthSet(trained, longPool, o)
	finish()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("sets: %w", err)
	}
	for _, w := range []struct {
		name string
		fn   func(string) error
	}{
		{"extended.tsv", func(p string) error { return Write(p, out.Extended) }},
		{"extended-excluded.tsv", func(p string) error { return WriteExcluded(p, out.ExtendedOut) }},
		{"long.tsv", func(p string) error { return Write(p, out.Long) }},
		{"long-excluded.tsv", func(p string) error { return WriteExcluded(p, out.LongOut) }},
		{"skipped.tsv", func(p string) error { return WriteSkips(p, skips) }},
	} {
		if err := w.fn(filepath.Join(cfg.Out, w.name)); err != nil {
			return nil, fmt.Errorf("sets: %w", err)
		}
	}
	return out, nil
}

// Summary writes what the sets hold and why chains were left out.
func (o *Outcome) Summary(w io.Writer) {
	splits := map[string]int{}
	for _, m := range o.Extended {
		splits[m.Split]++
	}
	reasons := func(ex []Excluded) string {
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
	fmt.Fprintf(w, "%d chains read from %s (%d chains or files skipped: %s)\n", o.Pool, o.PDBDir, o.Skips, filepath.Join(o.Out, "skipped.tsv"))
	fmt.Fprintf(w, "extended set %s: %d training chains (length %d-%d, no alignment at E < %g with >= %.0f%% identity to the base's %d validation and %d test chains, near-duplicates at >= %.0f%% removed)\n",
		filepath.Join(o.Out, "extended.tsv"), splits[Train], o.MinLen, o.MaxLen, o.MaxEValue, 100*o.MaxIdentity, splits[Validation], splits[Test], 100*o.Duplicate)
	fmt.Fprintf(w, "left out:%s\n", reasons(o.ExtendedOut))
	fmt.Fprintf(w, "length-generalisation set %s: %d chains longer than %d (no alignment at E < %g with >= %.0f%% identity to the %d training and validation chains)\n",
		filepath.Join(o.Out, "long.tsv"), len(o.Long), o.MaxLen, o.MaxEValue, 100*o.MaxIdentity, o.Trained)
	fmt.Fprintf(w, "left out:%s\n", reasons(o.LongOut))
}
