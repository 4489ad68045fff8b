package features

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
)

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
