// Package compare puts two protein contact model kinds trained with
// several seeds side by side on one evaluation split: the comparison
// itself (Run, Compare, Result) is internal/runcompare's, shared with the
// RNA and recommender systems; this package gives it the protein chains'
// items and metrics (ChainRun, Metrics) and the runs to compare: the run
// directories of a comparison (ScanDir, EvaluateDirs) or two named sets
// of model files (SideRuns), evaluated on one split (CompareChains).
//
// The chains are the unit of resampling: a chain's value is its metric
// averaged over the seeds of a model, and the difference is taken chain by
// chain, so the interval says how much the comparison could move with
// another draw of test chains; the spread over seeds says how much it
// moves with another training run.
package compare

import (
	"fmt"

	"github.com/contactmap/contactmap/internal/runcompare"
	"github.com/contactmap/contactmap/pipeline/metrics"
)

// The comparison's types and functions (package runcompare).
type (
	// Run is one trained model evaluated item by item.
	Run = runcompare.Run
	// Result is a whole comparison.
	Result = runcompare.Result
	// Row compares the two kinds on one metric.
	Row = runcompare.Row
	// Stats are one model's numbers for one metric.
	Stats = runcompare.Stats
	// Interval is a two-sided confidence interval.
	Interval = runcompare.Interval
	// RunState says what a run directory holds.
	RunState = runcompare.RunState
	// RunDir is one directory of a directory of runs.
	RunDir[T any] = runcompare.RunDir[T]
)

// The states of a run directory.
const (
	NoRun      = runcompare.NoRun
	Training   = runcompare.Training
	Finished   = runcompare.Finished
	Unreadable = runcompare.Unreadable
)

// Compare compares kind b against kind a on the named metrics over the
// seeds both have (runcompare.Compare).
func Compare(runs []Run, metricNames []string, a, b string, resamples int, seed uint64) (*Result, error) {
	return runcompare.Compare(runs, metricNames, a, b, resamples, seed)
}

// ScanRuns reads the run directories under dir with read
// (runcompare.ScanRuns).
func ScanRuns[T any](dir string, read func(path string) (T, RunState, error)) ([]RunDir[T], error) {
	return runcompare.ScanRuns(dir, read)
}

// OnlyItems returns the runs restricted to the items keep marks
// (runcompare.OnlyItems).
func OnlyItems(runs []Run, keep map[string]bool) []Run {
	return runcompare.OnlyItems(runs, keep)
}

// Metric names one per-chain score of a contact map.
type Metric struct {
	Name string
	Of   func(metrics.ChainMetrics) float64
}

// ChainRun returns a run's items and scores from the metrics of every
// chain of a split (in order), under the names of Metrics.
func ChainRun(r Run, chains []metrics.ChainMetrics) Run {
	r.Items = make([]string, len(chains))
	r.Scores = map[string][]float64{}
	for i, c := range chains {
		r.Items[i] = c.ID
	}
	for _, m := range Metrics() {
		v := make([]float64, len(chains))
		for i, c := range chains {
			v[i] = m.Of(c)
		}
		r.Scores[m.Name] = v
	}
	return r
}

// MetricNames returns the names of ms, in order.
func MetricNames(ms []Metric) []string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return names
}

// Metrics are the contact-map scores compared: top-L/k precision by
// range, then the paper's threshold accuracy with its two halves.
func Metrics() []Metric {
	var ms []Metric
	for _, r := range []metrics.Range{metrics.Long, metrics.Medium, metrics.Short} {
		for _, f := range []metrics.Fraction{metrics.TopL5, metrics.TopL2, metrics.TopL1} {
			ms = append(ms, Metric{
				Name: fmt.Sprintf("%s top-L/%d", r, metrics.TopFractions[f]),
				Of:   func(c metrics.ChainMetrics) float64 { return c.TopL[r][f] },
			})
		}
	}
	return append(ms,
		Metric{"accuracy (PPV+Sens)/2 at 0.5", func(c metrics.ChainMetrics) float64 { return c.Accuracy }},
		Metric{"PPV at 0.5", func(c metrics.ChainMetrics) float64 { return c.PPV }},
		Metric{"sensitivity at 0.5", func(c metrics.ChainMetrics) float64 { return c.Sens }},
	)
}
