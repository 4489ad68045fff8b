// Package runcompare puts two model kinds trained with several seeds side
// by side on one evaluation split: per model the mean and standard
// deviation over seeds, per seed the paired difference, and
// percentile-bootstrap 95% confidence intervals over the split's items
// (Efron and Tibshirani, An Introduction to the Bootstrap, 1993, ch. 13)
// for each model's mean and for the difference. It is shared by the three
// systems (protein chains, pipeline/compare; RNA molecules, rna/ssnet;
// recommender users, rec), which do not import one another; it also reads
// a directory of run directories (ScanRuns) and writes a comparison's
// files (Result.WriteFiles).
//
// The items are the unit of resampling: an item's value is its metric
// averaged over the seeds of a model, and the difference is taken item by
// item, so the interval says how much the comparison could move with
// another draw of test items; the spread over seeds says how much it
// moves with another training run.
package runcompare

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// Run is one trained model evaluated item by item (protein chains, RNA
// molecules, users of a recommender).
type Run struct {
	Kind     string  // model kind, e.g. "cnn" or "scnn"
	Seed     int     // training seed
	Params   int     // trainable parameters
	TrainSec float64 // training time, seconds (0 if unknown)
	Epochs   int
	// Items names the evaluation items, in the same order in every run.
	Items []string
	// Scores holds, per metric name, one value per item.
	Scores map[string][]float64
}

// Interval is a two-sided confidence interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Stats are one model's numbers for one metric.
type Stats struct {
	PerSeed []float64 `json:"per_seed"` // mean over chains, one per seed (seed order)
	Mean    float64   `json:"mean"`     // over seeds
	SD      float64   `json:"sd"`       // over seeds (n-1); 0 for one seed
	CI      Interval  `json:"ci95_chains"`
}

// Row compares the two kinds on one metric.
type Row struct {
	Metric string  `json:"metric"`
	A      Stats   `json:"a"`
	B      Stats   `json:"b"`
	Diff   Stats   `json:"diff_b_minus_a"` // PerSeed: paired B - A of the same seed
	Wins   int     `json:"seeds_b_above_a"`
	PBoot  float64 `json:"bootstrap_p_two_sided"` // 2 min(P*(d <= 0), P*(d >= 0))
}

// Result is a whole comparison.
type Result struct {
	KindA     string   `json:"kind_a"`
	KindB     string   `json:"kind_b"`
	Seeds     []int    `json:"seeds"`
	Items     int      `json:"items"`
	Resamples int      `json:"bootstrap_resamples"`
	ParamsA   int      `json:"params_a"`
	ParamsB   int      `json:"params_b"`
	TrainSecA Stats    `json:"train_seconds_a"`
	TrainSecB Stats    `json:"train_seconds_b"`
	Rows      []Row    `json:"rows"`
	Unit      string   `json:"unit"`             // what an item is ("chains", "users")
	Digits    int      `json:"digits,omitempty"` // decimals in Markdown (0: 3)
	Split     string   `json:"split"`
	Features  string   `json:"features"`
	Unpaired  []string `json:"unpaired_runs,omitempty"`
	BootSeed  uint64   `json:"bootstrap_seed"`

	// TrainTimesKnownA and B say whether every run of the side has its
	// training time (else TrainSecA or B is not its cost).
	TrainTimesKnownA bool `json:"train_times_known_a"`
	TrainTimesKnownB bool `json:"train_times_known_b"`
}

// Compare compares kind b against kind a on the named metrics over the
// seeds both have (runs of a seed only one kind has are listed in Unpaired
// and left out). Every run must cover the same items in the same order
// and have every metric. resamples bootstrap draws use a generator seeded
// with seed.
func Compare(runs []Run, metricNames []string, a, b string, resamples int, seed uint64) (*Result, error) {
	byKey := map[string]Run{}
	seedSet := map[int]bool{}
	for _, r := range runs {
		if r.Kind != a && r.Kind != b {
			return nil, fmt.Errorf("compare: run of kind %q, want %q or %q", r.Kind, a, b)
		}
		key := fmt.Sprintf("%s/%d", r.Kind, r.Seed)
		if _, dup := byKey[key]; dup {
			return nil, fmt.Errorf("compare: two runs of %s seed %d", r.Kind, r.Seed)
		}
		byKey[key] = r
		seedSet[r.Seed] = true
	}
	res := &Result{KindA: a, KindB: b, Resamples: resamples, BootSeed: seed, Unit: "items"}
	for s := range seedSet {
		_, okA := byKey[fmt.Sprintf("%s/%d", a, s)]
		_, okB := byKey[fmt.Sprintf("%s/%d", b, s)]
		switch {
		case okA && okB:
			res.Seeds = append(res.Seeds, s)
		case okA:
			res.Unpaired = append(res.Unpaired, fmt.Sprintf("%s seed %d", a, s))
		default:
			res.Unpaired = append(res.Unpaired, fmt.Sprintf("%s seed %d", b, s))
		}
	}
	sort.Ints(res.Seeds)
	sort.Strings(res.Unpaired)
	if len(res.Seeds) == 0 {
		return nil, fmt.Errorf("compare: no seed has both a %s and a %s run", a, b)
	}
	var ra, rb []Run
	for _, s := range res.Seeds {
		ra = append(ra, byKey[fmt.Sprintf("%s/%d", a, s)])
		rb = append(rb, byKey[fmt.Sprintf("%s/%d", b, s)])
	}
	ids := ra[0].Items
	for _, r := range append(slices.Clone(ra), rb...) {
		if !slices.Equal(r.Items, ids) {
			return nil, fmt.Errorf("compare: %s seed %d was evaluated on other items than %s seed %d", r.Kind, r.Seed, a, res.Seeds[0])
		}
		for _, m := range metricNames {
			if len(r.Scores[m]) != len(ids) {
				return nil, fmt.Errorf("compare: %s seed %d has %d values of %q for %d items", r.Kind, r.Seed, len(r.Scores[m]), m, len(ids))
			}
		}
	}
	res.Items = len(ids)
	res.ParamsA, res.ParamsB = ra[0].Params, rb[0].Params
	res.TrainSecA = seedStats(ra, func(r Run) float64 { return r.TrainSec })
	res.TrainSecB = seedStats(rb, func(r Run) float64 { return r.TrainSec })
	known := func(rs []Run) bool {
		for _, r := range rs {
			if r.TrainSec <= 0 {
				return false
			}
		}
		return true
	}
	res.TrainTimesKnownA, res.TrainTimesKnownB = known(ra), known(rb)

	// One set of resampled chain indices serves every metric, so the
	// intervals of different metrics come from the same draws.
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	draws := make([][]int, resamples)
	for i := range draws {
		d := make([]int, len(ids))
		for j := range d {
			d[j] = rng.IntN(len(ids))
		}
		draws[i] = d
	}
	for _, m := range metricNames {
		row := Row{Metric: m}
		xa, xb := chainMeans(ra, m), chainMeans(rb, m)
		d := make([]float64, len(xa))
		for i := range d {
			d[i] = xb[i] - xa[i]
		}
		row.A = metricStats(ra, m, xa, draws)
		row.B = metricStats(rb, m, xb, draws)
		row.Diff.PerSeed = make([]float64, len(res.Seeds))
		for i := range res.Seeds {
			row.Diff.PerSeed[i] = row.B.PerSeed[i] - row.A.PerSeed[i]
			if row.Diff.PerSeed[i] > 0 {
				row.Wins++
			}
		}
		row.Diff.Mean, row.Diff.SD = meanSD(row.Diff.PerSeed)
		boots := bootMeans(d, draws)
		row.Diff.CI = percentileCI(boots)
		le, ge := 0, 0
		for _, v := range boots {
			if v <= 0 {
				le++
			}
			if v >= 0 {
				ge++
			}
		}
		row.PBoot = min(1, 2*float64(min(le, ge))/float64(max(len(boots), 1)))
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// chainMeans is each item's metric averaged over the runs (seeds).
func chainMeans(runs []Run, m string) []float64 {
	x := make([]float64, len(runs[0].Items))
	for _, r := range runs {
		for i, v := range r.Scores[m] {
			x[i] += v / float64(len(runs))
		}
	}
	return x
}

func metricStats(runs []Run, m string, x []float64, draws [][]int) Stats {
	s := seedStats(runs, func(r Run) float64 {
		v := 0.0
		for _, c := range r.Scores[m] {
			v += c
		}
		return v / float64(len(r.Items))
	})
	s.CI = percentileCI(bootMeans(x, draws))
	return s
}

func seedStats(runs []Run, f func(Run) float64) Stats {
	var s Stats
	for _, r := range runs {
		s.PerSeed = append(s.PerSeed, f(r))
	}
	s.Mean, s.SD = meanSD(s.PerSeed)
	return s
}

// meanSD returns the mean and the sample standard deviation (n-1).
func meanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// bootMeans is the mean of x over each draw of indices.
func bootMeans(x []float64, draws [][]int) []float64 {
	out := make([]float64, len(draws))
	for i, d := range draws {
		s := 0.0
		for _, j := range d {
			s += x[j]
		}
		out[i] = s / float64(len(d))
	}
	return out
}

// percentileCI is the 2.5th to 97.5th percentile of v (linear
// interpolation between order statistics); zero for no values.
func percentileCI(v []float64) Interval {
	if len(v) == 0 {
		return Interval{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	q := func(p float64) float64 {
		pos := p * float64(len(s)-1)
		i := int(pos)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (pos-float64(i))*(s[i+1]-s[i])
	}
	return Interval{q(0.025), q(0.975)}
}

// Markdown writes the comparison as one table and a few lines around it.
func (r *Result) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s vs %s on the %s split of %s: %d %s, seeds %v", strings.ToUpper(r.KindB), strings.ToUpper(r.KindA), r.Split, r.Features, r.Items, r.Unit, r.Seeds)
	fmt.Fprintf(&b, " (%s %d parameters, %s %d).\n\n", strings.ToUpper(r.KindA), r.ParamsA, strings.ToUpper(r.KindB), r.ParamsB)
	fmt.Fprintf(&b, "Mean ± sd over seeds of the per-item mean; [95%% CI] percentile bootstrap over the split's %s (%d resamples) of the seed-averaged per-item values; paired difference %s − %s per seed (mean ± sd, seeds where %s is higher), its bootstrap CI and two-sided bootstrap p.\n\n",
		r.Unit, r.Resamples, strings.ToUpper(r.KindB), strings.ToUpper(r.KindA), strings.ToUpper(r.KindB))
	fmt.Fprintf(&b, "| metric | %s | %s | %s − %s | 95%% CI of the difference | p | seeds %s > %s |\n", strings.ToUpper(r.KindA), strings.ToUpper(r.KindB), strings.ToUpper(r.KindB), strings.ToUpper(r.KindA), strings.ToUpper(r.KindB), strings.ToUpper(r.KindA))
	b.WriteString("|---|---|---|---|---|---:|---:|\n")
	digits := r.Digits
	if digits == 0 {
		digits = 3
	}
	f := fmt.Sprintf("%%.%df", digits)
	for _, row := range r.Rows {
		fmt.Fprintf(&b, strings.NewReplacer("%.3f", f, "%+.3f", "%+"+f[1:]).Replace("| %s | %.3f ± %.3f [%.3f, %.3f] | %.3f ± %.3f [%.3f, %.3f] | %+.3f ± %.3f | [%+.3f, %+.3f] | %.3f | %d/%d |\n"), row.Metric,
			row.A.Mean, row.A.SD, row.A.CI.Lo, row.A.CI.Hi, row.B.Mean, row.B.SD, row.B.CI.Lo, row.B.CI.Hi,
			row.Diff.Mean, row.Diff.SD, row.Diff.CI.Lo, row.Diff.CI.Hi, row.PBoot, row.Wins, len(r.Seeds))
	}
	// A side whose runs' times are not all known (0) has none.
	trainTime := func(s Stats, known bool) string {
		if !known {
			return "unknown"
		}
		return fmt.Sprintf("%.0f ± %.0f s", s.Mean, s.SD)
	}
	fmt.Fprintf(&b, "| training time | %s | %s | | | | |\n", trainTime(r.TrainSecA, r.TrainTimesKnownA), trainTime(r.TrainSecB, r.TrainTimesKnownB))
	if len(r.Unpaired) > 0 {
		fmt.Fprintf(&b, "\nLeft out (no run of the other kind with the same seed): %s.\n", strings.Join(r.Unpaired, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
