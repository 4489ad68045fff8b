package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/contactmap/contactmap/models"
	"github.com/contactmap/contactmap/pipeline/model"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/rec"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/ssnet"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %g, want %g", tc.in, got, tc.want)
		}
	}
	v := []float64{3, 1, 2}
	median(v)
	if v[0] != 3 || v[1] != 1 {
		t.Error("median reordered its argument")
	}
}

// The Go worker speaks the protocol the harness expects: a ready line with
// the parameter count, then one reply per command, in order.
func TestWorkerProtocol(t *testing.T) {
	for _, tc := range []struct {
		task   task
		params int
	}{
		{task{Kind: "conv", B: 1, L: 6, K: 3, Cin: 4, Cout: 2}, 3*3*4*2 + 2},
		{task{Kind: "conv", Sym: true, B: 1, L: 6, K: 3, Cin: 4, Cout: 2}, 6*4*2 + 2},
		{task{Kind: "sgemm", B: 1, L: 4, K: 1, Cin: 3, Cout: 2}, 0},
		{task{Kind: "train", Model: "scnn", Config: "default", B: 2, L: 12}, 52412},
		{task{Kind: "infer", Model: "cnn", Config: "default", B: 1, L: 12}, 75664},
		{task{Kind: "fold", Method: "mfe", L: 60}, 0},
		{task{Kind: "fold", Method: "pf", L: 60}, 0},
	} {
		t.Run(tc.task.Kind, func(t *testing.T) {
			pr, pw := io.Pipe()
			go func() {
				err := runWorker(tc.task, strings.NewReader("run\nrun 3\nmem\nbogus\nrun 0\n"), pw)
				pw.CloseWithError(err)
			}()
			sc := bufio.NewScanner(pr)
			var replies []workerReply
			for sc.Scan() {
				var r workerReply
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("reply %q: %v", sc.Text(), err)
				}
				replies = append(replies, r)
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if len(replies) != 6 {
				t.Fatalf("%d replies, want 6: %+v", len(replies), replies)
			}
			if !replies[0].Ready || replies[0].Params != tc.params {
				t.Errorf("ready reply %+v, want %d parameters", replies[0], tc.params)
			}
			for _, r := range replies[1:3] {
				if r.Seconds <= 0 {
					t.Errorf("run reply %+v has no time", r)
				}
			}
			if replies[3].PeakRSS <= 0 {
				t.Errorf("mem reply %+v has no peak", replies[3])
			}
			if replies[4].Error == "" {
				t.Error("an unknown command got no error")
			}
			if replies[5].Error == "" || replies[5].Seconds != 0 {
				t.Errorf("run 0 got %+v, want an error", replies[5])
			}
		})
	}
}

func TestWorkerUnknownTask(t *testing.T) {
	if err := runWorker(task{Kind: "nonsense"}, strings.NewReader(""), io.Discard); err == nil {
		t.Error("unknown task accepted")
	}
	for _, tk := range []task{{Kind: "fold", Method: "nonsense", L: 20}, {Kind: "fold", L: 20}, {Kind: "fold", Method: "mfe"}} {
		if err := runWorker(tk, strings.NewReader(""), io.Discard); err == nil {
			t.Errorf("fold task %+v accepted", tk)
		}
	}
}

// The fold cases are Go only, one per method and length, last in the run,
// and selected by -only '^fold/'; their workers get the method.
func TestFoldCases(t *testing.T) {
	all := cases(true, true, "psicov", "/usr/bin/freecontact", "/usr/bin/contactmap")
	var names []string
	for i, c := range all {
		if c.Group != "fold" {
			if len(names) > 0 {
				t.Errorf("case %s/%s after the fold cases", c.Group, c.Name)
			}
			continue
		}
		names = append(names, c.Name)
		if len(c.Sides) != 1 || c.Sides[0].Torch || c.Sides[0].OpenBLAS || c.Sides[0].Label != "go" {
			t.Errorf("case %d fold/%s: sides %+v, want Go only", i, c.Name, c.Sides)
		}
		tk := c.Sides[0].Task
		if want := fmt.Sprintf("%s/L%d", tk.Method, tk.L); c.Name != want || tk.Kind != "fold" {
			t.Errorf("case fold/%s runs %+v", c.Name, tk)
		}
	}
	want := []string{"mfe/L500", "mfe/L1000", "mfe/L1500", "mfe/L2000", "pf/L500", "pf/L1000", "pf/L1500", "pf/L2000"}
	if !slices.Equal(names, want) {
		t.Errorf("fold cases %v, want %v", names, want)
	}
	r := runner{Self: "bench", Python: "python3", Script: "torch_ref.py"}
	cmd, err := r.command(side{Label: "go", Task: task{Kind: "fold", Method: "pf", L: 500}})
	if err != nil {
		t.Fatal(err)
	}
	if args := strings.Join(cmd.Args, " "); !strings.Contains(args, "--task fold") || !strings.Contains(args, "--length 500") || !strings.Contains(args, "--method pf") {
		t.Errorf("fold worker command %q", args)
	}
	if _, err := r.command(side{Label: "torch", Torch: true, Task: task{Kind: "fold", Method: "mfe", L: 500}}); err == nil {
		t.Error("a PyTorch fold worker was started")
	}
	cmd, err = r.command(side{Label: "go", Task: task{Kind: "sgemm", B: 1, L: 4, K: 1, Cin: 3, Cout: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(cmd.Args, " "), "--method") {
		t.Errorf("sgemm worker command %q has a method", cmd.Args)
	}
}

// The fold table has a row per length, the MFE and the partition function
// side by side, "-" where a method was not run; a run without fold cases
// has no such section.
func TestReportFold(t *testing.T) {
	side := func(peak int64, secs ...float64) []sideResult {
		return []sideResult{{Label: "go", Median: median(secs), Seconds: secs, PeakRSS: peak}}
	}
	r := report{Reps: 3, Warmup: 1, Machine: machine{Threads: 2}, Cases: []caseResult{
		{Group: "fold", Name: "mfe/L1000", Sides: side(40<<20, 1.5, 1.25, 1.0)},
		{Group: "fold", Name: "mfe/L500", Sides: side(16<<20, 0.2)},
		{Group: "fold", Name: "pf/L1000", Sides: side(100<<20, 5, 5, 5)},
	}}
	md := r.markdown()
	p := fold.DefaultParams()
	for _, want := range []string{
		"## RNA folding (Turner 2004): seconds and peak memory by length\n",
		"2 goroutines (GOMAXPROCS)",
		"RNAfold (ViennaRNA) is not installed here",
		"| 500 | 200 ms | 16 | " + mib(p.FoldBytes(500)) + " | - | - | - | - |\n| 1000 | 1.25 s | 40 | " + mib(p.FoldBytes(1000)) + " | 5.00 s | 100 | " + mib(p.PartitionBytes(1000)) + " | 4.00 |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if i, j := strings.Index(md, "## RNA folding"), strings.Index(md, "## Targets"); i < 0 || j < i {
		t.Error("the fold table is not before the targets")
	}
	r.Cases = r.Cases[:0]
	if md := r.markdown(); strings.Contains(md, "RNA folding") {
		t.Errorf("a run without fold cases has a fold section:\n%s", md)
	}
}

// The tables of every recorded run are rendered again byte for byte from
// its timings (bench -render): changes to the report leave earlier
// results as they were written.
func TestRenderRecordedRuns(t *testing.T) {
	files, err := filepath.Glob("results*.json")
	if err != nil {
		t.Fatal(err)
	}
	hist, _ := filepath.Glob(filepath.Join("history", "*.json"))
	files = append(files, hist...)
	if len(files) == 0 {
		t.Skip("no recorded runs")
	}
	for _, js := range files {
		md, err := os.ReadFile(strings.TrimSuffix(js, ".json") + ".md")
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var rep report
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if got := rep.markdown(); got != string(md) {
			t.Errorf("%s renders differently from its .md (%d bytes, want %d)", js, len(got), len(md))
		}
	}
}

// The report shows every case's medians, the ratios between sides run
// together, and the targets' verdicts from them.
func TestReportMarkdown(t *testing.T) {
	side := func(label string, peak int64, secs ...float64) sideResult {
		return sideResult{Label: label, Params: 10, Median: median(secs), Seconds: secs, PeakRSS: peak}
	}
	r := report{Reps: 3, Warmup: 1, Machine: machine{FMAPeak: 100, FMAISA: "avx512"}, Cases: []caseResult{
		{Group: "train", Name: "default", FLOPs: 1e9, Sides: []sideResult{
			side("go/cnn", 100<<20, 1.0, 1.2, 0.9), side("torch/cnn", 200<<20, 0.5, 0.5, 0.6), side("openblas/cnn", 100<<20, 1.1, 1.1, 1.0),
			side("go/scnn", 50<<20, 0.5, 0.7, 0.45), side("torch/scnn", 200<<20, 0.6, 0.6, 0.6)}},
		{Group: "conv", Name: "k3_64x64", FLOPs: 60e9, Sides: []sideResult{
			side("go", 0, 1), side("go-sym", 0, 0.5), side("openblas", 0, 1.5)}},
		{Group: "conv", Name: "k9_31x8", FLOPs: 80e9, Sides: []sideResult{
			side("go", 0, 1, 1, 1), side("go-sym", 0, 0.7, 0.7, 0.7), {Label: "fma", FLOPs: 200e9, Median: 1, Seconds: []float64{1.1, 1, 0.9}}}},
		{Group: "sweep", Name: "paper/L500", FLOPs: 1e9, Sides: []sideResult{
			side("go/cnn", 5<<30, 2), side("go/scnn", 1<<30, 1)}},
	}}
	md := r.markdown()
	for _, want := range []string{
		"| default CNN | 10 | 1.0 | 1.00 s | 500 ms | 2.00 | 1.0 | 2.0 | - | - | 100 | 200 | 1.10 s | 0.91 |",
		"| default SCNN | 10 | 1.0 | 500 ms | 600 ms | 0.83 | 2.0 | 1.7 | 0.50 | 1.20 | 50 | 200 | - | - |",
		// Rounds: go/cnn / torch/cnn = 2, 2.4, 1.5.
		"| Go CNN step <= 1.0x PyTorch CNN step (default) | 2.00x | 1.50-2.40 | no | no |",
		// go/cnn / openblas/cnn = 0.91, 1.09, 0.9.
		"| Go default build step <= OpenBLAS build step (default CNN) | 0.91x | 0.90-1.09 | yes | no |",
		// go/scnn / go/cnn = 0.5, 0.583, 0.5: the median meets 0.55, one round does not.
		"| Go SCNN step <= 0.55x Go CNN step (default) | 0.50x | 0.50-0.58 | yes | no |",
		// 60 GFLOP in 1 s against a 100 GFLOP/s peak.
		"| 3x3 | 1.00 s | 60.0 | 60% | 500 ms | 60.6 | 61% | 0.50 | 1.50 s | 40.0 | - | - |",
		"| 3x3 64->64 conv fwd+bwd >= 60% of FMA peak | 60% | - | yes | - |",
		"| L = 500 inference <= 4 GiB (paper CNN) | 5120 MiB | - | no | - |",
		// The narrow layer divides by the peak of its own rounds: its fma
		// side's 200 GFLOP in 1 s (the machine's 100 would read 80%).
		// The symmetric side: 5,050 of 10,000 pixels' FLOPs in 0.7 s.
		"| 9x9, 31 -> 8 | 1.00 s | 80.0 | 40% | 700 ms | 57.7 | 29% | - | - | - | 200.0 |",
		// Rounds: fma 1.1, 1, 0.9 s against the layer's 1 s (go) and 0.7 s
		// (go-sym): 44, 40, 36% and 32, 29, 26%.
		"| 9x9 31->8 conv fwd+bwd >= 40% of FMA peak (full, symmetric) | 40%, 29% | 36-44%, 26-32% | no | no |",
		"| L = 500 inference <= 4 GiB (paper SCNN) | 1024 MiB | - | yes | - |",
		"| Go CNN step <= 1.0x PyTorch CNN step (paper) | - | - | not measured | - |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestMemTotal(t *testing.T) {
	for in, want := range map[string]string{"24731708 kB": "23.6 GiB RAM", "": "", "12 MB": "12 MB"} {
		if got := memTotal(in); got != want {
			t.Errorf("memTotal(%q) = %q, want %q", in, got, want)
		}
	}
}

// The PyTorch reference builds the same networks: equal trainable
// parameter counts for every configuration, and it speaks the protocol.
// Skipped where python3-torch is not installed (make bench installs it),
// unless CONTACTMAP_REQUIRE_TORCH is set (.ci/run sets it after installing
// torch, so that CI cannot skip the only check that the bench's PyTorch
// twin is the Go model).
func TestTorchReferenceMatchesGo(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import torch").Run(); err != nil {
		if os.Getenv("CONTACTMAP_REQUIRE_TORCH") != "" {
			t.Fatalf("CONTACTMAP_REQUIRE_TORCH is set but python3-torch does not import: %v", err)
		}
		t.Skip("python3-torch not installed (make bench-deps installs it)")
	}
	r := runner{Python: python, Script: "torch_ref.py"}
	for _, cfg := range []string{"default", "paper"} {
		for _, kind := range []model.Kind{model.CNN, model.SCNN} {
			a, _ := model.ArchByName(kind, cfg)
			m, err := model.NewModel(a, 1)
			if err != nil {
				t.Fatal(err)
			}
			tk := task{Kind: "train", Model: string(kind), Config: cfg, B: 2, L: 16}
			res, err := r.run(benchCase{Group: "train", Name: cfg, Sides: []side{{Label: "torch", Torch: true, Task: tk}}}, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			s := res.side("torch")
			if s.Params != m.Trainable() {
				t.Errorf("%s %s: PyTorch has %d trainable parameters, Go %d", cfg, kind, s.Params, m.Trainable())
			}
			if s.Median <= 0 || s.PeakRSS <= 0 {
				t.Errorf("%s %s: no timing or memory: %+v", cfg, kind, s)
			}
		}
	} // The RNA networks of every protocol (PairNet from the pairnet.Spec),
	// each distinct network once.
	seen := map[string]bool{}
	for _, p := range ssnet.Protocols {
		for _, kind := range []string{"cnn", "scnn"} {
			spec, _, err := rnaSpec(kind, p.Name)
			if err != nil {
				t.Fatal(err)
			}
			if js, _ := rnaSpecJSON(kind, p.Name); seen[js] {
				continue
			} else {
				seen[js] = true
			}
			net, err := pairnet.New(spec, 1)
			if err != nil {
				t.Fatal(err)
			}
			tk := task{Kind: "rna-train", Model: kind, Config: p.Name, B: 2, L: 16}
			res, err := r.run(benchCase{Group: "rna-train", Name: p.Name, Sides: []side{{Label: "torch", Torch: true, Task: tk}}}, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if s := res.side("torch"); s.Params != net.Trainable() || s.Median <= 0 {
				t.Errorf("rna %s %s: PyTorch has %d trainable parameters, Go %d (%+v)", p.Name, kind, s.Params, net.Trainable(), s)
			}
		}
	} // CosRec and SCosRec.
	for _, kind := range []string{"cosrec", "scosrec"} {
		c, err := recConfig(kind)
		if err != nil {
			t.Fatal(err)
		}
		m, err := rec.NewModel(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		tk := task{Kind: "rec-train", Model: kind, B: 8, L: c.L}
		res, err := r.run(benchCase{Group: "rec-train", Name: "default", Sides: []side{{Label: "torch", Torch: true, Task: tk}}}, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if s := res.side("torch"); s.Params != m.Trainable() || s.Median <= 0 {
			t.Errorf("%s: PyTorch has %d trainable parameters, Go %d (%+v)", kind, s.Params, m.Trainable(), s)
		}
	}
}

// The predictor cases run the contactmap program given, on inputs the
// harness writes, one run each; without the program there are none.
func TestPredictorCases(t *testing.T) {
	if cs := predictorCases(""); len(cs) != 0 {
		t.Errorf("%d predictor cases without a program", len(cs))
	}
	cs := predictorCases("/bin/contactmap")
	if len(cs) != 2*len(predictorLengths) {
		t.Fatalf("%d predictor cases, want %d", len(cs), 2*len(predictorLengths))
	}
	for _, c := range cs {
		what, _, _ := strings.Cut(c.Name, "/")
		tk := c.Sides[0].Task
		if c.Group != "predictor" || len(c.Sides) != 1 || tk.Kind != "exec" || tk.Command[0] != "/bin/contactmap" || c.MaxReps != 1 || tk.Outputs == "" ||
			(what == "rna") != (tk.Command[1] == "rna") || !strings.HasPrefix(tk.Command[len(tk.Command)-1], predictorDir()) {
			t.Errorf("case %s/%s: %+v", c.Group, c.Name, c)
		}
	}
	// The RNA cases name the default model, and the table labels a run by
	// the model its command named (a run that named none: rna-scnn's).
	rnaCmd := strings.Join(cs[len(cs)-1].Sides[0].Task.Command, " ")
	if !strings.Contains(rnaCmd, " --model "+models.DefaultRNA+" ") {
		t.Errorf("the RNA case's command %q does not name the default %s", rnaCmd, models.DefaultRNA)
	}
	for backend, want := range map[string]string{rnaCmd: "| RNA default (" + models.DefaultRNA + ") | 1000 |", "/bin/contactmap rna predict --force x.fa": "| RNA default (rna-scnn) | 1000 |"} {
		r := &report{Cases: []caseResult{{Group: "predictor", Name: "rna/L1000", Sides: []sideResult{{Label: "contactmap", Backend: backend, Median: 1}}}}}
		if got := r.predictorTable(); !strings.Contains(got, want) {
			t.Errorf("backend %q: the table lacks %q:\n%s", backend, want, got)
		}
	}
	old := os.Getenv("TMPDIR")
	t.Setenv("TMPDIR", t.TempDir())
	defer os.Setenv("TMPDIR", old)
	if err := writePredictorInputs(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(predictorInput("rna", 1000))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(raw)), "\n"); len(lines) != 2 || len(lines[1]) != 1000 || strings.Trim(lines[1], "ACGU") != "" {
		t.Errorf("the RNA input of L = 1000: %q...", raw[:min(len(raw), 80)])
	}
}

// The Go tasks of the RNA and rec rows run, at small sizes, and their
// tables have as many cells in every row as in the header.
func TestRNAAndRecTasksAndTables(t *testing.T) {
	for _, tk := range []task{
		{Kind: "rna-train", Model: "cnn", Config: rnaProtocol, B: 2, L: 16},
		{Kind: "rna-train", Model: "scnn", Config: rnaProtocol, B: 2, L: 16},
		{Kind: "rna-infer", Model: "cnn", Config: rnaProtocol, B: 1, L: 24},
		{Kind: "rna-infer", Model: "scnn", Config: rnaProtocol, B: 1, L: 24},
		{Kind: "rec-train", Model: "cosrec", B: 4, L: 5},
		{Kind: "rec-train", Model: "scosrec", B: 4, L: 5},
	} {
		b, err := buildTask(tk)
		if err != nil {
			t.Fatalf("%+v: %v", tk, err)
		}
		for range 2 {
			if err := b.run(); err != nil {
				t.Fatalf("%+v: %v", tk, err)
			}
		}
		if b.params <= 0 {
			t.Errorf("%+v: %d parameters", tk, b.params)
		}
	}
	var r report
	r.Machine.FMAPeak = 100
	for _, c := range cases(true, false, "psicov", "", "/bin/contactmap") {
		if c.Group != "rna-train" && c.Group != "rna-sweep" && c.Group != "rec-train" && c.Group != "predictor" {
			continue
		}
		cr := caseResult{Group: c.Group, Name: c.Name, FLOPs: c.FLOPs}
		for _, s := range c.Sides {
			cr.Sides = append(cr.Sides, sideResult{Label: s.Label, Params: 10, Median: 1.5, PeakRSS: 1 << 20, FLOPs: s.FLOPs})
		}
		r.Cases = append(r.Cases, cr)
	}
	for name, table := range map[string]string{"rna": r.rnaTable(), "rec": r.recTable(), "predictor": r.predictorTable()} {
		var head, rows int
		for _, line := range strings.Split(table, "\n") {
			if !strings.HasPrefix(line, "|") {
				continue
			}
			n := strings.Count(line, "|")
			if head == 0 {
				head = n
				continue
			}
			rows++
			if n != head {
				t.Errorf("%s table: %d cells in %q, %d in the header", name, n-1, line, head-1)
			}
		}
		if rows < 3 {
			t.Errorf("%s table: %d rows:\n%s", name, rows, table)
		}
	}
}
