package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/metrics"
)

// run builds a run whose chains have long-range top-L/5 precisions v.
func run(kind string, seed int, v ...float64) Run {
	r := Run{Kind: kind, Seed: seed, Params: 10, TrainSec: float64(seed)}
	var chains []metrics.ChainMetrics
	for i, x := range v {
		var c metrics.ChainMetrics
		c.ID = string(rune('a' + i))
		c.TopL[metrics.Long][metrics.TopL5] = x
		chains = append(chains, c)
	}
	return ChainRun(r, chains)
}

func TestCompareHandExample(t *testing.T) {
	runs := []Run{
		run("cnn", 1, 0.1, 0.2, 0.3), run("scnn", 1, 0.2, 0.3, 0.4),
		run("cnn", 2, 0.3, 0.2, 0.1), run("scnn", 2, 0.3, 0.2, 0.4),
		run("cnn", 3, 0.5, 0.5, 0.5), // no SCNN seed 3: left out
	}
	res, err := Compare(runs, MetricNames(Metrics()), "cnn", "scnn", 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Seeds) != 2 || res.Items != 3 || len(res.Unpaired) != 1 {
		t.Fatalf("seeds %v items %d unpaired %v", res.Seeds, res.Items, res.Unpaired)
	}
	row := res.Rows[0]
	if row.Metric != "long top-L/5" {
		t.Fatalf("first row %q", row.Metric)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	// CNN per seed 0.2, 0.2; SCNN 0.3, 0.3 -> diff 0.1 in both seeds.
	if !near(row.A.Mean, 0.2) || !near(row.A.SD, 0) || !near(row.B.Mean, 0.3) || !near(row.Diff.Mean, 0.1) || row.Wins != 2 {
		t.Fatalf("row %+v", row)
	}
	// Seed-averaged per-chain differences: 0.05, 0.05, 0.2. The bootstrap
	// mean lies between the smallest and largest, and the interval
	// contains the sample mean 0.1.
	if row.Diff.CI.Lo < 0.05-1e-12 || row.Diff.CI.Hi > 0.2+1e-12 || row.Diff.CI.Lo > 0.1 || row.Diff.CI.Hi < 0.1 {
		t.Fatalf("diff CI %+v", row.Diff.CI)
	}
	// Every per-chain difference is positive: no resample reaches 0.
	if row.PBoot != 0 {
		t.Fatalf("p = %v", row.PBoot)
	}
	if !near(res.TrainSecA.Mean, 1.5) || !near(res.TrainSecA.SD, math.Sqrt(0.5)) {
		t.Fatalf("train seconds %+v", res.TrainSecA)
	}
	var b strings.Builder
	if err := res.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| long top-L/5 | 0.200 ± 0.000 [") || !strings.Contains(b.String(), "| +0.100 ± 0.000 | [") {
		t.Fatalf("markdown:\n%s", b.String())
	}
}

// A side with a run of unknown training time (0) reports no time rather
// than a mean that counts it as free.
func TestCompareUnknownTrainingTime(t *testing.T) {
	a, b := run("cnn", 1, 0.1, 0.2), run("scnn", 1, 0.2, 0.3)
	b.TrainSec = 0
	res, err := Compare([]Run{a, b}, MetricNames(Metrics()), "cnn", "scnn", 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TrainTimesKnownA || res.TrainTimesKnownB {
		t.Fatalf("known %v %v", res.TrainTimesKnownA, res.TrainTimesKnownB)
	}
	var md strings.Builder
	if err := res.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| training time | 1 ± 0 s | unknown |") {
		t.Fatalf("markdown:\n%s", md.String())
	}
}

func TestCompareErrors(t *testing.T) {
	names := MetricNames(Metrics())
	if _, err := Compare([]Run{run("cnn", 1, 0.1)}, names, "cnn", "scnn", 10, 1); err == nil {
		t.Error("no pair: no error")
	}
	if _, err := Compare([]Run{run("cnn", 1, 0.1), run("cnn", 1, 0.2)}, names, "cnn", "scnn", 10, 1); err == nil {
		t.Error("duplicate seed: no error")
	}
	if _, err := Compare([]Run{run("cnn", 1, 0.1, 0.2), run("scnn", 1, 0.1)}, names, "cnn", "scnn", 10, 1); err == nil {
		t.Error("different chains: no error")
	}
}
