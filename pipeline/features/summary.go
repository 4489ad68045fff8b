package features

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/contactmap/contactmap/pipeline/search"
	"github.com/contactmap/contactmap/pipeline/sets"
)

// WriteRun writes what the run of cfg did, as the features command
// prints it: the warnings of its chains on errw, then on w the chains
// written, already present and skipped, and the summary (WriteSummary).
// A run in which no chain gave features, and some were skipped, is an
// error.
func (rep *Report) WriteRun(w, errw io.Writer, cfg Config) error {
	for _, warn := range rep.Warnings {
		fmt.Fprintf(errw, "warning: %s: %s\n", warn.ID, warn.Text)
	}
	chains := "1 chain"
	if n := len(rep.Entries) + len(rep.Skips); n != 1 {
		chains = fmt.Sprintf("%d chains", n)
	}
	fmt.Fprintf(w, "%s: %d written, %d already present, %d skipped (see %s/skipped%s.tsv)\n",
		chains, rep.Written, rep.Reused, len(rep.Skips), cfg.Out, cfg.ShardSuffix())
	if len(rep.Searches) > 0 {
		failed := 0
		for _, r := range rep.Searches {
			if r.Status == search.StatusFailed {
				failed++
			}
		}
		fmt.Fprintf(w, "alignments searched: %d with %s (%d failed), in %s (see %s)\n", len(rep.Searches), cfg.Search.Tool(), failed,
			cfg.MSADir, search.ManifestFile(cfg.MSADir, cfg.Shard, cfg.Shards))
	}
	rep.WriteSummary(w)
	if len(rep.Entries) == 0 && len(rep.Skips) > 0 {
		return fmt.Errorf("no chain gave features (%d skipped; see %s/skipped%s.tsv)", len(rep.Skips), cfg.Out, cfg.ShardSuffix())
	}
	return nil
}

// SetsBase reads the chains of a feature directory (its manifest.tsv and
// feature files) as the base of package sets: each chain with its split,
// held out from the sets where it is a validation or test chain.
func SetsBase(dir string) ([]sets.Member, error) {
	manifest, err := ReadManifest(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return nil, fmt.Errorf("sets: %w (run make features first)", err)
	}
	var base []sets.Member
	for _, e := range manifest {
		c, err := ReadFile(filepath.Join(dir, e.File))
		if err != nil {
			return nil, fmt.Errorf("sets: %w", err)
		}
		base = append(base, sets.Member{Chain: sets.Chain{ID: e.ID, PDB: e.PDB, Chain: e.Chain, Seq: c.Seq, Resolved: e.Resolved}, Split: e.Split})
	}
	return base, nil
}

// WriteSummary writes the report's summary to w, as the features command
// prints it: the chains per split (train, validation, test, total), the
// chains per feature mode, and where chains were skipped, their count
// per reason, the most frequent first.
func (rep *Report) WriteSummary(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	splits := map[string]int{}
	modes := map[string]int{}
	for _, e := range rep.Entries {
		splits[e.Split]++
		modes[e.Mode.String()]++
	}
	modeNames := make([]string, 0, len(modes))
	for m := range modes {
		modeNames = append(modeNames, m)
	}
	sort.Strings(modeNames)
	fmt.Fprintln(tw, "split\tchains\t")
	for _, s := range []string{Train, Validation, Test} {
		fmt.Fprintf(tw, "%s\t%d\t\n", s, splits[s])
	}
	fmt.Fprintf(tw, "total\t%d\t\n", len(rep.Entries))
	tw.Flush()
	for _, m := range modeNames {
		fmt.Fprintf(w, "feature mode %s: %d chains\n", m, modes[m])
	}
	if len(rep.Skips) == 0 {
		return
	}
	reasons := map[string]int{}
	for _, s := range rep.Skips {
		reasons[s.Reason]++
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		return reasons[keys[a]] > reasons[keys[b]] || reasons[keys[a]] == reasons[keys[b]] && keys[a] < keys[b]
	})
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "skipped\treason")
	for _, k := range keys {
		fmt.Fprintf(tw, "%d\t%s\n", reasons[k], k)
	}
	tw.Flush()
}
