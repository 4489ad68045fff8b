package ssnet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/usage"
)

// ErrUsage marks errors in what the caller asked for (no file in a
// list, an unknown split, models that cannot be evaluated together): a
// command's usage errors (internal/usage). The messages read
// "usage: ...".
var ErrUsage = usage.Err

// usageError is an ErrUsage with a message.
var usageError = usage.Errorf

// Progress is how a long stage reports: called with the stage's items
// and its name, it returns the function called after each item and the
// one called at the stage's end (either may be nil). A nil Progress
// reports nothing.
type Progress func(total int, name string) (tick, end func())

// Start begins a stage of total items: its tick and end functions,
// never nil.
func (p Progress) Start(total int, name string) (tick, end func()) {
	if p != nil {
		tick, end = p(total, name)
	}
	if tick == nil {
		tick = func() {}
	}
	if end == nil {
		end = func() {}
	}
	return tick, end
}

// ReadSetList reads comma-separated molecule files (ReadSets: each file
// a group); a list that names no file is an ErrUsage.
func ReadSetList(list string) ([]Molecule, error) {
	var files []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f != "" {
			files = append(files, filepath.Clean(f))
		}
	}
	if len(files) == 0 {
		return nil, usageError("no molecule file in %q", list)
	}
	return ReadSets(files)
}

// AttachMissingMFE attaches the MFE structures of a set's molecules
// without one (AttachMFECached: through cacheFile, "" for none, on
// runtime.GOMAXPROCS(0) goroutines), for a network with energy channels
// or the MFE baseline, reporting the folds as the stage "MFE
// structures".
func AttachMissingMFE(ctx context.Context, set []Molecule, cacheFile string, progress Progress) error {
	missing := 0 // AttachMFE folds only the molecules without one
	for k := range set {
		if set[k].MFE == nil {
			missing++
		}
	}
	tick, end := progress.Start(missing, "MFE structures")
	defer end()
	return AttachMFECached(ctx, cacheFile, runtime.GOMAXPROCS(0), tick, set)
}

// EvalReport is an evaluation of predictors on a set (rna eval): the
// set's file, its overlap with the training molecules, and a row per
// predictor.
type EvalReport struct {
	Overlaps []Overlap `json:"overlaps"`
	Rows     []EvalRow `json:"rows"`
	Set      string    `json:"set"`
	// Molecules is how many molecules the set holds.
	Molecules int `json:"-"`
}

// Markdown is the report: the protocol in a sentence, the table of every
// predictor on all molecules and on those under NearIdentical identity
// to every training molecule, and the overlap table, nearest first.
func (r *EvalReport) Markdown() string {
	var b strings.Builder
	nDis, nExact := 0, 0
	for _, o := range r.Overlaps {
		if o.Identity < NearIdentical {
			nDis++
		}
		if o.Exact {
			nExact++
		}
	}
	fmt.Fprintf(&b, "Evaluation on %s: %d molecules; means over molecules. Decoders: greedy (the paper's: the most probable pairs above %.1f, any pairs), mea (the maximum expected accuracy nested structure of canonical pairs, hairpins >= 3), mea-pk (mea and a crossing layer of pairs above 0.5). Homology transfer copies the pairs of the training molecule found by 8-mer (Jaccard) similarity and global alignment.\n\n", r.Set, r.Molecules, Threshold)
	table := func(title string, pick func(EvalRow) []Summary) {
		fmt.Fprintf(&b, "%s\n\n| predictor | group | n | PPV | sensitivity | accuracy (PPV+Sens)/2 | F1 | MCC | F1 ±1 | MCC ±1 |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", title)
		for _, row := range r.Rows {
			for _, s := range pick(row) {
				fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", row.Name, s.Group, s.N,
					s.Exact.PPV, s.Exact.Sens, s.Exact.Accuracy, s.Exact.F1, s.Exact.MCC, s.Shift.F1, s.Shift.MCC)
			}
		}
		b.WriteString("\n")
	}
	table("All molecules (the paper's protocol):", func(r EvalRow) []Summary { return r.Summaries })
	table(fmt.Sprintf("Only the %d molecules under %.0f%% identity to every training molecule:", nDis, 100*NearIdentical),
		func(r EvalRow) []Summary { return r.Disjoint })
	fmt.Fprintf(&b, "Overlap with the training set (%d identical sequences, %d at >= %.0f%% identity):\n\n| molecule | nearest training molecule | identity |\n|---|---|---:|\n",
		nExact, len(r.Overlaps)-nDis, 100*NearIdentical)
	sorted := append([]Overlap(nil), r.Overlaps...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Identity > sorted[j].Identity })
	for _, o := range sorted {
		fmt.Fprintf(&b, "| %s | %s | %.3f |\n", o.Name, o.Nearest, o.Identity)
	}
	return b.String()
}

// WriteFiles writes the report to out.json (indented JSON: the set, the
// overlaps, the rows with their per-molecule scores) and out.md
// (Markdown), each atomically.
func (r *EvalReport) WriteFiles(out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := fileio.WriteAtomic(out+".json", func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(r)
	}); err != nil {
		return err
	}
	md := r.Markdown()
	return fileio.WriteAtomic(out+".md", func(w io.Writer) error { _, err := io.WriteString(w, md); return err })
}

// PaperTable is the paper's 16S result (Maduranga et al., the RNA
// secondary structure table), for a comparison report beside ours.
const PaperTable = `
The paper's table (16S test set, 35 molecules, the paper-size networks after about 27,500 steps on a V100; one run each):

| model | parameters | PPV | sensitivity | accuracy (PPV+Sens)/2 |
|---|---:|---:|---:|---:|
| CNN | 387,798 | 0.867 | 0.831 | 0.849 |
| SCNN | 239,198 | 0.892 | 0.845 | 0.868 |
`
