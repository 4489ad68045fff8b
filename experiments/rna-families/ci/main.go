// Command ci adds confidence intervals over molecules to the saved scores
// of a `contactmap rna eval` (its OUT.json: every row's per-molecule
// scores and the test molecules' overlap with training), without
// predicting again: for each row, on all molecules and on those without a
// training molecule at NearIdentical (0.95) identity or more, overall and
// per family (source database), the mean PPV, sensitivity and F1 (exact
// pairs) with percentile bootstrap 95% intervals; and the paired F1
// differences of the first row (the network under its first decoder)
// minus each other row, with their intervals.
//
//	go run ./experiments/rna-families/ci experiments/rna-families/test-ts0-shipped.json > experiments/rna-families/test-ts0-shipped-ci.md
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/contactmap/contactmap/rna/ssnet"
)

type evalFile struct {
	Overlaps []ssnet.Overlap `json:"overlaps"`
	Rows     []ssnet.EvalRow `json:"rows"`
	Set      string          `json:"set"`
}

// boot returns the mean of v and the percentile bootstrap 95% interval of
// it, resampling indices with r.
func boot(v []float64, resamples int, r *rand.Rand) (mean, lo, hi float64) {
	n := len(v)
	if n == 0 {
		return 0, 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(n)
	ms := make([]float64, resamples)
	for b := range ms {
		s := 0.0
		for range n {
			s += v[r.IntN(n)]
		}
		ms[b] = s / float64(n)
	}
	slices.Sort(ms)
	return mean, ms[int(0.025*float64(resamples))], ms[int(0.975*float64(resamples))-1]
}

func main() {
	resamples := flag.Int("resamples", 10000, "bootstrap resamples over molecules")
	seed := flag.Uint64("seed", 1, "bootstrap seed")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: ci [-resamples N] [-seed S] EVAL.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "ci:", err)
		os.Exit(1)
	}
	var e evalFile
	if err := json.Unmarshal(data, &e); err != nil {
		fmt.Fprintf(os.Stderr, "ci: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	if len(e.Rows) == 0 {
		fmt.Fprintf(os.Stderr, "ci: %s: no rows\n", flag.Arg(0))
		os.Exit(1)
	}
	disjoint := ssnet.Disjoint(e.Overlaps)
	// Families in order of first appearance.
	var families []string
	for _, s := range e.Rows[0].Scores {
		if !slices.Contains(families, s.Family) {
			families = append(families, s.Family)
		}
	}
	fmt.Printf("Confidence intervals for %s (%s): percentile bootstrap 95%% intervals over molecules, %d resamples, seed %d (`go run ./experiments/rna-families/ci %s`). Exact pairs; means over molecules.\n",
		flag.Arg(0), e.Set, *resamples, *seed, flag.Arg(0))
	for _, subset := range []struct {
		title string
		keep  func(ssnet.MolScore) bool
	}{
		{"All molecules", func(ssnet.MolScore) bool { return true }},
		{fmt.Sprintf("Molecules without a training molecule at %.0f%% identity or more", 100*ssnet.NearIdentical), func(s ssnet.MolScore) bool { return disjoint[s.Name] }},
	} {
		fmt.Printf("\n## %s\n\n", subset.title)
		fmt.Println("| predictor | group | n | PPV [95% CI] | sensitivity [95% CI] | F1 [95% CI] |")
		fmt.Println("|---|---|---:|---|---|---|")
		groups := []string{"all"}
		if len(families) > 1 {
			groups = append(groups, families...)
		}
		for _, row := range e.Rows {
			for _, g := range groups {
				var ppv, sens, f1 []float64
				for _, s := range row.Scores {
					if subset.keep(s) && (g == "all" || s.Family == g) {
						ppv = append(ppv, s.Exact.PPV)
						sens = append(sens, s.Exact.Sens)
						f1 = append(f1, s.Exact.F1)
					}
				}
				if len(f1) == 0 {
					continue
				}
				r := rand.New(rand.NewPCG(*seed, 1))
				cell := func(v []float64) string {
					m, lo, hi := boot(v, *resamples, r)
					return fmt.Sprintf("%.3f [%.3f, %.3f]", m, lo, hi)
				}
				fmt.Printf("| %s | %s | %d | %s | %s | %s |\n", row.Name, g, len(f1), cell(ppv), cell(sens), cell(f1))
			}
		}
		// Paired F1 differences: the first row minus each other row.
		first := e.Rows[0]
		fmt.Printf("\nPaired F1 differences, %s minus each row, over the same molecules:\n\n", first.Name)
		fmt.Println("| minus | group | n | mean difference [95% CI] | first row ahead on |")
		fmt.Println("|---|---|---:|---|---:|")
		for _, row := range e.Rows[1:] {
			other := map[string]float64{}
			for _, s := range row.Scores {
				other[s.Name] = s.Exact.F1
			}
			for _, g := range groups {
				var d []float64
				ahead := 0
				for _, s := range first.Scores {
					o, ok := other[s.Name]
					if !ok || !subset.keep(s) || g != "all" && s.Family != g {
						continue
					}
					d = append(d, s.Exact.F1-o)
					if s.Exact.F1 > o {
						ahead++
					}
				}
				if len(d) == 0 {
					continue
				}
				r := rand.New(rand.NewPCG(*seed, 2))
				m, lo, hi := boot(d, *resamples, r)
				fmt.Printf("| %s | %s | %d | %+.3f [%+.3f, %+.3f] | %d of %d |\n", strings.TrimPrefix(row.Name, "baseline: "), g, len(d), m, lo, hi, ahead, len(d))
			}
		}
	}
}
