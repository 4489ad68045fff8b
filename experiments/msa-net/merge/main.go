// Command merge adds families to a report of experiments/msa-net/eval and
// repeats one of its paired comparisons on the union: for a method whose
// runs a report left out of some families (freecontact's PSICOV mode
// stopped at a time limit), a later report on just those families (made
// by eval with -plm, -mf and -seq feature directories of only them)
// completes its row without rebuilding every family's features.
//
// Both reports' runs of kinds -a and -b are joined family by family (a
// family already in the base keeps the base's scores), and the
// comparison -b minus -a is made on the families both kinds have, as
// eval makes it (pipeline/compare: 95% percentile bootstrap over
// families, 10,000 resamples, seed 1):
//
//	go run ./experiments/msa-net/merge -base experiments/msa-net/baselines-all.json \
//	  -add /tmp/fam2/report.json -a 'freecontact PSICOV' -b plmDCA -out experiments/msa-net/psicov-all
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/contactmap/contactmap/experiments/internal/shellquote"
	"github.com/contactmap/contactmap/pipeline/compare"
)

// metrics are the rows compared (eval's first three).
var metrics = []string{"long top-L/5", "long top-L/2", "long top-L/1"}

type report struct {
	Split string        `json:"split"`
	Runs  []compare.Run `json:"runs"`
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("msa-net merge: ")
	base := flag.String("base", "", "the report whose runs are completed (eval's OUT.json)")
	add := flag.String("add", "", "a report on further families")
	a := flag.String("a", "freecontact PSICOV", "kind A of the comparison")
	b := flag.String("b", "plmDCA", "kind B (the comparison is B minus A)")
	out := flag.String("out", "", "write OUT.md and OUT.json")
	resamples := flag.Int("resamples", 10000, "bootstrap resamples over families")
	flag.Parse()
	if *base == "" || *add == "" || *out == "" {
		log.Fatal("-base, -add and -out are required")
	}
	if err := run(*base, *add, *a, *b, *out, *resamples); err != nil {
		log.Fatal(err)
	}
}

func read(path string) (*report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r report
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// kindRun is the one run of kind k in r.
func kindRun(r *report, path, k string) (compare.Run, error) {
	var found []compare.Run
	for _, run := range r.Runs {
		if run.Kind == k {
			found = append(found, run)
		}
	}
	if len(found) != 1 {
		return compare.Run{}, fmt.Errorf("%s: %d runs of kind %q, want one (a model-free method)", path, len(found), k)
	}
	return found[0], nil
}

// join adds to base the items of more that base lacks, with their
// scores of every metric base has.
func join(base, more compare.Run) (compare.Run, []string, error) {
	out := base
	out.Items = slices.Clone(base.Items)
	out.Scores = map[string][]float64{}
	for m, v := range base.Scores {
		out.Scores[m] = slices.Clone(v)
	}
	var added []string
	for i, it := range more.Items {
		if slices.Contains(base.Items, it) {
			continue
		}
		out.Items = append(out.Items, it)
		for m := range out.Scores {
			v, ok := more.Scores[m]
			if !ok || len(v) != len(more.Items) {
				return compare.Run{}, nil, fmt.Errorf("%s: no %q score for %s", more.Kind, m, it)
			}
			out.Scores[m] = append(out.Scores[m], v[i])
		}
		added = append(added, it)
	}
	return out, added, nil
}

func run(basePath, addPath, a, b, out string, resamples int) error {
	base, err := read(basePath)
	if err != nil {
		return err
	}
	more, err := read(addPath)
	if err != nil {
		return err
	}
	var runs []compare.Run
	var md strings.Builder
	fmt.Fprintf(&md, "# %s vs %s on the families of two reports\n\n`go run ./experiments/msa-net/merge %s`\n\n", b, a, shellquote.Join(os.Args[1:]))
	for _, k := range []string{a, b} {
		rb, err := kindRun(base, basePath, k)
		if err != nil {
			return err
		}
		rm, err := kindRun(more, addPath, k)
		if err != nil {
			return err
		}
		j, added, err := join(rb, rm)
		if err != nil {
			return err
		}
		fmt.Fprintf(&md, "- %s: %d families from %s, %d added from %s (%s)\n", k, len(rb.Items), basePath, len(added), addPath, strings.Join(added, ", "))
		runs = append(runs, j)
	}
	// The families both kinds have.
	keep := map[string]bool{}
	for _, it := range runs[0].Items {
		keep[it] = slices.Contains(runs[1].Items, it)
	}
	for i := range runs {
		runs[i] = only(runs[i], keep)
	}
	res, err := compare.Compare(runs, metrics, a, b, resamples, 1)
	if err != nil {
		return err
	}
	res.Unit, res.Split, res.Features = "families", base.Split, "both reports"
	md.WriteString("\n")
	if err := res.Markdown(&md); err != nil {
		return err
	}
	if err := os.WriteFile(out+".md", []byte(md.String()), 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(struct {
		Runs       []compare.Run   `json:"runs"`
		Comparison *compare.Result `json:"comparison"`
	}{runs, res}, "", " ")
	if err != nil {
		return err
	}
	fmt.Print(md.String())
	return os.WriteFile(out+".json", js, 0o644)
}

// only keeps the items of r that keep marks.
func only(r compare.Run, keep map[string]bool) compare.Run {
	out := r
	out.Items = nil
	out.Scores = map[string][]float64{}
	for i, it := range r.Items {
		if !keep[it] {
			continue
		}
		out.Items = append(out.Items, it)
		for m, v := range r.Scores {
			out.Scores[m] = append(out.Scores[m], v[i])
		}
	}
	return out
}
