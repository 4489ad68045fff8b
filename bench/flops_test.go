package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/scnn"
)

// The model cases count the materialised convolutions (ConvFLOPs, 3x for
// a training step), which PyTorch computes; the Go and OpenBLAS-build
// sides count what the Go pass executes by halves (InferenceFLOPs or
// TrainFLOPs of their own kind), below it.
func TestModelCaseFLOPs(t *testing.T) {
	seen := map[string]int{}
	for _, c := range cases(true, true, "psicov", "", "") {
		if c.Group == "rec-train" {
			seen[c.Group]++
			for _, sd := range c.Sides {
				cfg, _ := recConfig(sd.Task.Model)
				want := 0.0
				if !sd.Torch {
					want = 3 * 2 * recExecutedMACs(cfg) * float64(sd.Task.B)
				}
				// CosRec executes the full maps; SCosRec less.
				if sd.FLOPs != want || !sd.Torch && (sd.Task.Model == "cosrec") != (sd.FLOPs == c.FLOPs) || sd.FLOPs > c.FLOPs {
					t.Errorf("%s/%s %s: side FLOPs %g, want %g (case %g)", c.Group, c.Name, sd.Label, sd.FLOPs, want, c.FLOPs)
				}
			}
			continue
		}
		if strings.HasPrefix(c.Group, "rna-") {
			seen[c.Group]++
			checkRNACaseFLOPs(t, c)
			continue
		}
		if c.Group == "conv" {
			// The symmetric side: the triangle's pixels, the position
			// pairs a <= b forward and backward where the layer folds
			// them there, every kernel position where not.
			seen[c.Group]++
			for _, s := range c.Sides {
				if s.Label == "fma" {
					// The peak's loop: 2 * 16 lanes * 16 FMAs a step
					// with AVX-512, 2 * 8 * 12 with AVX2.
					if w := float64(s.Task.Steps * gomaxprocs()); s.Task.Kind != "fma" || s.FLOPs != 512*w && s.FLOPs != 192*w {
						t.Errorf("%s/%s: side fma has task %+v, FLOPs %g", c.Group, c.Name, s.Task, s.FLOPs)
					}
					continue
				}
				want := 0.0
				if tk := s.Task; s.Label == "go-sym" {
					pairs := 0
					for a := 0; a < tk.K; a++ {
						for b := a; b < tk.K; b++ {
							pairs++
						}
					}
					fwd, bwd := tk.K*tk.K, pairs
					if !scnn.FoldsPairs(tk.K, tk.Cin, tk.Cout) {
						bwd = tk.K * tk.K
					}
					if scnn.ForwardFoldsPairs(tk.K, tk.Cin, tk.Cout, tk.L) {
						fwd = pairs
					}
					for i := 0; i < tk.L; i++ {
						for j := i; j < tk.L; j++ {
							want += float64(tk.B) * 2 * float64(tk.Cin*tk.Cout*(fwd+2*bwd))
						}
					}
				}
				if s.FLOPs != want || s.FLOPs > c.FLOPs {
					t.Errorf("%s/%s: side %s has FLOPs %g, want %g (case %g)", c.Group, c.Name, s.Label, s.FLOPs, want, c.FLOPs)
				}
			}
			continue
		}
		if c.Group != "train" && c.Group != "infer" && c.Group != "sweep" {
			for _, s := range c.Sides {
				if s.FLOPs != 0 {
					t.Errorf("%s/%s: side %s has FLOPs %g of its own", c.Group, c.Name, s.Label, s.FLOPs)
				}
			}
			continue
		}
		seen[c.Group]++
		tk := c.Sides[0].Task
		cnn, _ := model.ArchByName(model.CNN, tk.Config)
		want := cnn.ConvFLOPs(tk.B, tk.L)
		if c.Group == "train" {
			want *= 3
		}
		if c.FLOPs != want {
			t.Errorf("%s/%s: %g FLOPs, want ConvFLOPs %g", c.Group, c.Name, c.FLOPs, want)
		}
		for _, s := range c.Sides {
			a, err := model.ArchByName(model.Kind(s.Task.Model), s.Task.Config)
			if err != nil {
				t.Fatal(err)
			}
			want := 0.0 // the case's
			if !s.Torch {
				want = a.InferenceFLOPs(s.Task.B, s.Task.L)
				if s.Task.Kind == "train" {
					want = a.TrainFLOPs(s.Task.B, s.Task.L)
				}
				if !a.Spec().InfersByHalves() || !(want > 0 && want < c.FLOPs) {
					t.Errorf("%s/%s %s: %g FLOPs executed of %g materialised", c.Group, c.Name, s.Label, want, c.FLOPs)
				}
			}
			if s.FLOPs != want {
				t.Errorf("%s/%s %s: side FLOPs %g, want %g", c.Group, c.Name, s.Label, s.FLOPs, want)
			}
		}
	}
	if seen["train"] != 2 || seen["infer"] != 2 || seen["sweep"] != 9 || seen["rna-train"] != 1 || seen["rna-sweep"] != len(rnaSweepLengths) {
		t.Errorf("model cases %v, want 2 train, 2 infer, 9 sweep, 1 rna-train, %d rna-sweep", seen, len(rnaSweepLengths))
	}
}

// The RNA cases count the materialised convolutions of the CNN (3x for a
// training step), PyTorch's numerator; the Go sides what they execute:
// the SCNN's training on the packed triangle, inference by
// pairnet.Spec.InferenceFLOPs.
func checkRNACaseFLOPs(t *testing.T, c benchCase) {
	t.Helper()
	tk := c.Sides[0].Task
	cnn, _, err := rnaSpec("cnn", tk.Config)
	if err != nil {
		t.Fatal(err)
	}
	steps := 1.0
	if c.Group == "rna-train" {
		steps = 3
	}
	if want := steps * 2 * cnn.ConvMACs() * float64(tk.B*tk.L*tk.L); c.FLOPs != want {
		t.Errorf("%s/%s: %g FLOPs, want %g", c.Group, c.Name, c.FLOPs, want)
	}
	for _, s := range c.Sides {
		spec, _, _ := rnaSpec(s.Task.Model, s.Task.Config)
		want := 0.0
		switch {
		case s.Torch:
			want = steps * 2 * spec.ConvMACs() * float64(tk.B*tk.L*tk.L)
		case c.Group == "rna-train":
			// The CNN trains by halves; the SCNN's gradients run on its
			// kernels' position pairs (pairnet's tests count both).
			want = spec.TrainFLOPs(tk.B, tk.L)
		default:
			want = spec.InferenceFLOPs(1, tk.L)
		}
		if s.FLOPs != want || !(s.FLOPs > 0 && s.FLOPs <= c.FLOPs) {
			t.Errorf("%s/%s %s: side FLOPs %g, want %g (case %g)", c.Group, c.Name, s.Label, s.FLOPs, want, c.FLOPs)
		}
	}
}

// A run made since inference goes by halves gives the inference tables
// both counts: GFLOP materialised (the case's), Go GFLOP executed (the Go
// side's), Go's rates and share of peak from its own count, PyTorch's
// from the case's; the training table keeps its columns. The side counts
// survive results.json, and a recording without them renders the tables
// of before, every side on the case's count.
func TestReportExecutedFLOPs(t *testing.T) {
	side := func(label string, flops float64, peak int64, secs ...float64) sideResult {
		return sideResult{Label: label, Params: 10, Median: median(secs), Seconds: secs, PeakRSS: peak, FLOPs: flops}
	}
	r := report{Reps: 1, Warmup: 1, Machine: machine{FMAPeak: 100, FMAISA: "avx512"}, Cases: []caseResult{
		{Group: "train", Name: "default", FLOPs: 3e9, Sides: []sideResult{
			side("go/cnn", 0, 100<<20, 1), side("torch/cnn", 0, 200<<20, 0.5)}},
		{Group: "infer", Name: "default", FLOPs: 10e9, Sides: []sideResult{
			side("go/cnn", 2e9, 100<<20, 0.1), side("torch/cnn", 0, 200<<20, 0.5),
			side("go/scnn", 1e9, 50<<20, 0.05), side("torch/scnn", 0, 200<<20, 0.25)}},
		{Group: "sweep", Name: "default/L1000", FLOPs: 100e9, Sides: []sideResult{
			side("go/cnn", 20e9, 100<<20, 2), side("torch/cnn", 0, 200<<20, 4), side("go/scnn", 5e9, 50<<20, 1)}},
	}}
	md := r.markdown()
	for _, want := range []string{
		"Materialised (the GFLOP column, the training rows and every PyTorch column): the convolutions on full L x L maps (pipeline/model Arch.ConvFLOPs",
		"Executed (the Go GFLOP column and the Go columns of the inference tables, the OpenBLAS build's alike): what the Go inference pass computes (Arch.InferenceFLOPs)",
		"| model | params | GFLOP | Go | PyTorch | Go/PyTorch | Go GFLOP/s | PyTorch GFLOP/s | SCNN/CNN Go |",
		"| default CNN | 10 | 3.0 | 1.00 s | 500 ms | 2.00 | 3.0 | 6.0 | - | - | 100 | 200 | - | - |",
		"| model | params | GFLOP | Go GFLOP | Go | PyTorch | Go/PyTorch | Go GFLOP/s | Go % of peak | PyTorch GFLOP/s | PyTorch % of peak | SCNN/CNN Go |",
		// 2 GFLOP in 100 ms, 10 GFLOP in 500 ms: 20 GFLOP/s each, 20% of 100.
		"| default CNN | 10 | 10.0 | 2.0 | 100 ms | 500 ms | 0.20 | 20.0 | 20% | 20.0 | 20% | - | - | 100 | 200 | - | - |",
		"| default SCNN | 10 | 10.0 | 1.0 | 50 ms | 250 ms | 0.20 | 20.0 | 20% | 40.0 | 40% | 0.50 | 0.50 | 50 | 200 | - | - |",
		"| model | L | GFLOP | Go GFLOP | Go | PyTorch | Go/PyTorch | Go GFLOP/s | Go % of peak | PyTorch GFLOP/s | PyTorch % of peak | Go peak MiB | PyTorch peak MiB |",
		"| default CNN | 1000 | 100.0 | 20.0 | 2.00 s | 4.00 s | 0.50 | 10.0 | 10% | 25.0 | 25% | 100 | 200 |",
		"| default SCNN | 1000 | 100.0 | 5.0 | 1.00 s | - | - | 5.0 | 5% | - | - | 50 | - |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}

	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.markdown(); got != md {
		t.Errorf("the report renders differently from its JSON:\n%s\nwant\n%s", got, md)
	}
	if n := strings.Count(string(raw), `"flops":`); n != 3+4 { // the cases, and the sides with counts of their own
		t.Errorf("JSON has %d flops fields, want 7: %s", n, raw)
	}

	// Recorded before sides had counts of their own.
	old := regexp.MustCompile(`,"flops":[0-9]+}`).ReplaceAllString(string(raw), "}")
	back = report{}
	if err := json.Unmarshal([]byte(old), &back); err != nil {
		t.Fatal(err)
	}
	if back.executedCounts() {
		t.Fatalf("sides kept their counts: %s", old)
	}
	md = back.markdown()
	for _, want := range []string{
		"GFLOP/s counts the 2D convolutions on full L x L maps (pipeline/model Arch.ConvFLOPs;",
		// Every side on the case's 10 GFLOP.
		"| default CNN | 10 | 10.0 | 100 ms | 500 ms | 0.20 | 100.0 | 20.0 | - | - | 100 | 200 | - | - |",
		"| model | L | GFLOP | Go | PyTorch | Go/PyTorch | Go peak MiB | PyTorch peak MiB |",
		"| default SCNN | 1000 | 100.0 | 1.00 s | - | - | 50 | - |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the older recording's report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Go GFLOP |") || strings.Contains(md, "InferenceFLOPs") {
		t.Errorf("the older recording's report has executed counts:\n%s", md)
	}
}

// A run whose Go training sides count what they execute (training by
// halves) gives the training table the executed columns too.
func TestReportExecutedTrainingFLOPs(t *testing.T) {
	side := func(label string, flops float64, secs float64) sideResult {
		return sideResult{Label: label, Params: 10, Median: secs, Seconds: []float64{secs}, PeakRSS: 100 << 20, FLOPs: flops}
	}
	r := report{Reps: 1, Warmup: 1, Machine: machine{FMAPeak: 100, FMAISA: "avx512"}, Cases: []caseResult{
		{Group: "train", Name: "default", FLOPs: 30e9, Sides: []sideResult{
			side("go/cnn", 6e9, 1), side("torch/cnn", 0, 3)}},
	}}
	md := r.markdown()
	// 6 GFLOP executed in 1 s: 6 GFLOP/s, 6% of 100; PyTorch 30 in 3 s.
	for _, want := range []string{
		"| default CNN | 10 | 30.0 | 6.0 | 1.00 s | 3.00 s | 0.33 | 6.0 | 6% | 10.0 | 10% |",
		"Materialised (the GFLOP column and every PyTorch column)",
		"what the Go pass computes (Arch.InferenceFLOPs; Arch.TrainFLOPs for a training step",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// The harness records a side's own count with its timings, and none
// (the case's) for a side without.
func TestRunKeepsSideFLOPs(t *testing.T) {
	t.Setenv(workerEnv, "1")
	tk := task{Kind: "sgemm", B: 1, L: 4, K: 1, Cin: 3, Cout: 2}
	c := benchCase{Group: "sgemm", Name: "tiny", FLOPs: 96, Sides: []side{{Label: "own", Task: tk, FLOPs: 40}, {Label: "case", Task: tk}}}
	res, err := runner{Self: os.Args[0]}.run(c, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	own, cs := res.side("own"), res.side("case")
	if own == nil || cs == nil || len(own.Seconds) != 2 || len(cs.Seconds) != 2 {
		t.Fatalf("results %+v", res)
	}
	if own.FLOPs != 40 || res.flopsOf(*own) != 40 || cs.FLOPs != 0 || res.flopsOf(*cs) != 96 {
		t.Errorf("side counts %g and %g, used %g and %g; want 40 and 0, used 40 and 96", own.FLOPs, cs.FLOPs, res.flopsOf(*own), res.flopsOf(*cs))
	}
}

// TestReportForwardPairsNote: a run whose counts take the folded forward
// pass says so in the conv tables; one recorded before keeps its text.
func TestReportForwardPairsNote(t *testing.T) {
	r := report{Reps: 1, Cases: []caseResult{{Group: "conv", Name: "k9_31x8", FLOPs: 10, Sides: []sideResult{
		{Label: "go", Seconds: []float64{1}, Median: 1},
		{Label: "go-sym", Seconds: []float64{1}, Median: 1, FLOPs: 5},
	}}}}
	if strings.Contains(r.symPairsNote(), "ForwardFoldsPairs") || r.symPairsNote() == "" {
		t.Errorf("a run recorded before: %q", r.symPairsNote())
	}
	r.ForwardPairs = true
	if !strings.Contains(r.symPairsNote(), "ForwardFoldsPairs") {
		t.Errorf("a run with the forward pairs counted: %q", r.symPairsNote())
	}
}
