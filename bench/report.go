package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/scnn"
)

// machine describes where the numbers come from.
type machine struct {
	CPU      string  `json:"cpu"`
	Cores    int     `json:"cores"`
	Threads  int     `json:"threads"` // GOMAXPROCS, and torch.set_num_threads
	MemTotal string  `json:"mem_total"`
	OS       string  `json:"os"`
	Kernel   string  `json:"kernel"`
	Go       string  `json:"go"`
	OpenBLAS string  `json:"openblas"`
	BLASCore string  `json:"openblas_core"`
	Torch    string  `json:"torch"`
	FMAPeak  float64 `json:"fma_peak_gflops"` // scnn.FMAPeak on every core
	FMAISA   string  `json:"fma_isa"`
	// FreeContact: the version of the freecontact the coevo cases ran
	// ("": none ran).
	FreeContact string `json:"freecontact,omitempty"`
}

type report struct {
	Machine machine      `json:"machine"`
	Reps    int          `json:"reps"`
	Warmup  int          `json:"warmup"`
	Started time.Time    `json:"started"`
	Seconds float64      `json:"seconds"`
	Cases   []caseResult `json:"cases"`
	Notes   []string     `json:"notes,omitempty"` // cases skipped, and why
	// ForwardPairs: the executed counts take an spConv's forward pass
	// on its position pairs where the direct pair kernel computes it
	// (pairnet.StepMACs); false in a run recorded before that count,
	// whose counts took every position forward.
	ForwardPairs bool `json:"forward_pairs,omitempty"`
}

func firstLine(path, prefix string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return strings.Trim(strings.TrimSpace(strings.TrimLeft(rest, " \t:=")), `"`)
		}
	}
	return ""
}

func commandOutput(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func describeMachine() machine {
	m := machine{
		CPU:      firstLine("/proc/cpuinfo", "model name"),
		Cores:    runtime.NumCPU(),
		Threads:  gomaxprocs(),
		MemTotal: memTotal(firstLine("/proc/meminfo", "MemTotal")),
		OS:       firstLine("/etc/os-release", "PRETTY_NAME"),
		Kernel:   strings.TrimSpace(firstLine("/proc/sys/kernel/osrelease", "")),
		Go:       runtime.Version(),
		OpenBLAS: commandOutput("dpkg-query", "-W", "-f", "${Package} ${Version}", "libopenblas0-pthread"),
		BLASCore: scnn.BLASCore(),
		Torch:    commandOutput("/usr/bin/python3", "-c", "import torch; print(torch.__version__)"),
	}
	if flags := firstLine("/proc/cpuinfo", "flags"); flags != "" {
		var simd []string
		for _, f := range []string{"avx2", "fma", "avx512f"} {
			if strings.Contains(" "+flags+" ", " "+f+" ") {
				simd = append(simd, f)
			}
		}
		m.CPU += " (" + strings.Join(simd, ", ") + ")"
	}
	return m
}

// memTotal turns /proc/meminfo's "24731708 kB" into "23.6 GiB".
func memTotal(s string) string {
	f := strings.Fields(s)
	if len(f) != 2 || f[1] != "kB" {
		return s
	}
	kb, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return s
	}
	return fmt.Sprintf("%.1f GiB RAM", kb/(1<<20))
}

func jsonPath(md string) string { return strings.TrimSuffix(md, ".md") + ".json" }

// gflops is FLOPs per second in units of 1e9.
func gflops(f, sec float64) float64 {
	if sec <= 0 {
		return 0
	}
	return f / sec / 1e9
}

func mib(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }

func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// summary is the line printed as each case completes.
func (c caseResult) summary() string {
	var parts []string
	for _, s := range c.Sides {
		f := c.flopsOf(s)
		if f <= 0 { // fold: no FLOP count
			parts = append(parts, fmt.Sprintf("%s %.4gs (peak %s MiB)", s.Label, s.Median, mib(s.PeakRSS)))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.4gs (%.1f GFLOP/s, peak %s MiB)", s.Label, s.Median, gflops(f, s.Median), mib(s.PeakRSS)))
	}
	return fmt.Sprintf("%-6s %-22s %s", c.Group, c.Name, strings.Join(parts, "  "))
}

// group returns the run's cases of a group, in run order.
func (r *report) group(name string) []caseResult {
	var cs []caseResult
	for _, c := range r.Cases {
		if c.Group == name {
			cs = append(cs, c)
		}
	}
	return cs
}

func (r *report) find(group, name string) *caseResult {
	for i := range r.Cases {
		if r.Cases[i].Group == group && r.Cases[i].Name == name {
			return &r.Cases[i]
		}
	}
	return nil
}

// sideOf returns side label of case group/name, or an empty result.
func (r *report) sideOf(group, name, label string) sideResult {
	if c := r.find(group, name); c != nil {
		if s := c.side(label); s != nil {
			return *s
		}
	}
	return sideResult{}
}

// flops returns the FLOPs of one run of side label in case group/name
// (its own count, or the case's), or 0 where there is no such side.
func (r *report) flops(group, name, label string) float64 {
	if c := r.find(group, name); c != nil {
		if s := c.side(label); s != nil {
			return c.flopsOf(*s)
		}
	}
	return 0
}

// casePeak is the FMA peak the "% of peak" columns of conv case c
// divide by: the GFLOP/s of its "fma" side (scnn.FMAWork, timed in the
// same rounds as the layer), or, in a run recorded before that side, the
// peak measured at the start of the run.
func (r *report) casePeak(c *caseResult) float64 {
	if s := c.side("fma"); s != nil && s.FLOPs > 0 {
		if g := gflops(s.FLOPs, r.med(c.Group, c.Name, "fma")); g > 0 {
			return g
		}
	}
	return r.Machine.FMAPeak
}

// peakHead ends the header of a conv table whose alignment row is
// align: with a "peak" column where the run timed the peak beside the
// layers (peakNote).
func (r *report) peakHead(align string) string {
	if r.peakNote() == "" {
		return "\n" + align + "\n"
	}
	return " peak GFLOP/s |\n" + align + "---:|\n"
}

// peakCell is a conv row's "peak" cell (peakHead), or "".
func (r *report) peakCell(peak float64) string {
	if r.peakNote() == "" {
		return ""
	}
	return fmt.Sprintf(" %.1f |", peak)
}

// peakHeader is what the machine's line adds to its peak where the conv
// cases timed their own, or "".
func (r *report) peakHeader() string {
	if r.peakNote() == "" {
		return ""
	}
	return ", but for the convolution layers', which divide by the peak of their own rounds"
}

// peakShares returns the lowest and highest share of the peak that side
// label of conv case c (flops a run) reached in a round: its GFLOP/s
// over the fma side's in the same round; ok false where the case has no
// fma side or the rounds do not pair.
func (r *report) peakShares(c *caseResult, label string, flops float64) (lo, hi float64, ok bool) {
	p := c.side("fma")
	if p == nil || p.FLOPs <= 0 {
		return 0, 0, false
	}
	q0, q1, ok := r.roundRatios(c.Group, c.Name, "fma", label) // its seconds over the layer's
	if !ok {
		return 0, 0, false
	}
	return q0 * flops / p.FLOPs, q1 * flops / p.FLOPs, true
}

// peakNote is what the conv tables add to their text where their cases
// timed the peak's loop beside the layers, or "".
func (r *report) peakNote() string {
	for _, c := range r.group("conv") {
		if s := c.side("fma"); s != nil && s.FLOPs > 0 {
			return fmt.Sprintf(" \"%% of peak\" divides by the FMA peak of the same rounds: FMAPeak's loop (%d steps on each goroutine, scnn.FMAWork), timed as a side of each case between the layers' runs, its median in the \"peak\" column. On this project's shared hosts the loop's speed moves from round to round (the fma side's timings in the .json), so a peak measured once at the start of the run is another moment's; the targets' \"range over rounds\" gives each round's share of its own peak.", fmaSteps)
		}
	}
	return ""
}

// symSideFLOPs is what the symmetric side of conv case c executes: its
// own count (a run made since the spConv's gradients work on the
// kernel's position pairs), or in a run recorded before, the triangle's
// share of the case's, 5,050 of 10,000 pixels.
func symSideFLOPs(c *caseResult) float64 {
	if s := c.side("go-sym"); s != nil && s.FLOPs > 0 {
		return s.FLOPs
	}
	return c.FLOPs * 5050 / 10000
}

// symPairsNote is what the conv tables add to their text in a run made
// since the spConv's gradients work on the kernel's position pairs
// (symmetric sides with FLOPs of their own); "" in a run recorded before.
func (r *report) symPairsNote() string {
	for _, c := range r.group("conv") {
		s := c.side("go-sym")
		if s == nil || s.FLOPs == 0 {
			continue
		}
		if r.ForwardPairs {
			return " The symmetric layer works on the k(k+1)/2 position pairs (a, b), a <= b, of its spatially symmetric kernel (scnn/internal/kern's ConvGeom.SymKernel): its executed count is both gradients on those pairs, and the forward pass on the triangle on those pairs too where the direct method's pair kernel computes it (scnn.ForwardFoldsPairs; the additions of each pair's two inputs not counted), on every position where not."
		}
		return " The symmetric layer's input and kernel gradients work on the k(k+1)/2 position pairs (a, b), a <= b, of its spatially symmetric kernel (scnn/internal/kern's ConvGeom.SymKernel): its executed count is the forward pass on the triangle and both gradients on those pairs."
	}
	return ""
}

// executedCounts reports whether a side of a model case has FLOPs of its
// own: the Go inference sides of a run made since inference goes by
// halves, whose tables then give both counts (the conv cases' symmetric
// sides, which carry their own, do not count here).
// Runs recorded before render as written.
func (r *report) executedCounts() bool {
	for _, c := range r.Cases {
		if c.Group == "conv" {
			continue
		}
		for _, s := range c.Sides {
			if s.FLOPs > 0 {
				return true
			}
		}
	}
	return false
}

// groupExecuted reports whether a side of a case in group has FLOPs of
// its own: the Go training sides of a run made since training goes by
// halves.
func (r *report) groupExecuted(group string) bool {
	for _, c := range r.Cases {
		for _, s := range c.Sides {
			if c.Group == group && s.FLOPs > 0 {
				return true
			}
		}
	}
	return false
}

// med returns the median seconds of side label in case group/name, or 0.
func (r *report) med(group, name, label string) float64 { return r.sideOf(group, name, label).Median }

// peak returns the peak memory of side label in case group/name, or 0.
func (r *report) peak(group, name, label string) int64 { return r.sideOf(group, name, label).PeakRSS }

// roundRatios returns the smallest and largest ratio num/den of the runs
// of sides num and den of a case made in the same round.
func (r *report) roundRatios(group, name, num, den string) (lo, hi float64, ok bool) {
	c := r.find(group, name)
	if c == nil {
		return 0, 0, false
	}
	a, d := c.side(num), c.side(den)
	if a == nil || d == nil || len(a.Seconds) == 0 || len(a.Seconds) != len(d.Seconds) {
		return 0, 0, false
	}
	lo, hi = math.Inf(1), 0
	for i, x := range a.Seconds {
		if d.Seconds[i] <= 0 {
			return 0, 0, false
		}
		q := x / d.Seconds[i]
		lo, hi = min(lo, q), max(hi, q)
	}
	return lo, hi, true
}

func sec(s float64) string {
	if s <= 0 {
		return "-"
	}
	if s < 1 {
		return fmt.Sprintf("%.0f ms", s*1000)
	}
	return fmt.Sprintf("%.2f s", s)
}

// settleRange is the range of the waits for idle workers between runs
// ("1.5-11.6 ms", harness.go), and false for a run recorded before them.
func (r *report) settleRange() (string, bool) {
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, c := range r.Cases {
		for _, s := range c.Sides {
			for _, v := range s.Settle {
				lo, hi, n = min(lo, v), max(hi, v), n+1
			}
		}
	}
	if n == 0 {
		return "", false
	}
	return fmt.Sprintf("%.1f-%.1f ms", lo*1000, hi*1000), true
}

func (r *report) markdown() string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "# contactmap benchmark: Go vs PyTorch\n\n")
	fmt.Fprintf(&b, "Written by `make bench` (bench/main.go) on %s, %.0f min in all. ", r.Started.Format("2006-01-02"), r.Seconds/60)
	fmt.Fprintf(&b, "Every number is the median of %d timed runs per side after %d warm-up run(s), sides interleaved run by run (Go, PyTorch, Go, PyTorch, ...); all timings are in results.json.", r.Reps, r.Warmup)
	if w, ok := r.settleRange(); ok {
		fmt.Fprintf(&b, " After each run the next side waited until the worker that ran was idle (bench/idle.go): PyTorch's OpenMP threads spin on a core for about 10 ms after each call, and would otherwise run in the next side's time; the waits took %s (settle_seconds in the .json).", w)
	}
	b.WriteString("\n\n")
	goBackend, blasBackend := r.backend("go"), r.backend("openblas")
	if goBackend != "" { // a run of the coevo cases alone has no "go" side
		goBackend = " (" + goBackend + ")"
	}
	fmt.Fprintf(&b, "Machine: %s, %d cores, %s, %s (kernel %s). Go %s, default build: its own sgemm%s, %d goroutines", m.CPU, m.Cores, m.MemTotal, m.OS, m.Kernel, m.Go, goBackend, m.Threads)
	if blasBackend != "" {
		fmt.Fprintf(&b, "; OpenBLAS build (`-tags openblas`): %s, %s kernels, one BLAS thread per goroutine", m.OpenBLAS, strings.TrimPrefix(blasBackend, "openblas/"))
	}
	fmt.Fprintf(&b, "; PyTorch %s, CPU, %d threads. Batch 10, L = 100 unless stated; inputs are synthetic (timing does not depend on the values).\n\n", m.Torch, m.Threads)
	if m.FMAPeak > 0 {
		fmt.Fprintf(&b, "FMA peak: %.1f GFLOP/s, measured at the start of the run by a loop of independent %s fused multiply-adds on all %d goroutines (scnn.FMAPeak); \"%% of peak\" columns divide by it%s.\n\n", m.FMAPeak, m.FMAISA, m.Threads, r.peakHeader())
	}

	executed := r.executedCounts()
	if executed {
		materialised := "Materialised (the GFLOP column, the training rows and every PyTorch column)"
		executedText := "Executed (the Go GFLOP column and the Go columns of the inference tables, the OpenBLAS build's alike): what the Go inference pass computes (Arch.InferenceFLOPs)."
		if r.groupExecuted("train") { // a run made since training goes by halves
			materialised = "Materialised (the GFLOP column and every PyTorch column)"
			executedText = "Executed (the Go GFLOP column and the Go columns of the inference and training tables, the OpenBLAS build's alike): what the Go pass computes (Arch.InferenceFLOPs; Arch.TrainFLOPs for a training step, whose backward pass goes by halves too)."
		}
		fmt.Fprintf(&b, "GFLOP/s and %% of peak count the floating-point operations (2 per multiply-add) of the 2D convolutions, two ways. %s: the convolutions on full L x L maps (pipeline/model Arch.ConvFLOPs; a training step is 3x the forward pass), the same numerator for Go and PyTorch, CNN and SCNN: PyTorch computes the full maps with tied kernels, the SCNN in Go trains on the upper triangle only (about half of that work). %s It does not materialise the pair maps: the convolutions that read them (the first block's, and the first after the re-injection) take the maps' product channels from their two 1D halves, at L positions per kernel offset instead of L x L pixels, and convolve only the dense channels (2D input, fixed pair channels, the last block's output) at every pixel; the SCNN's convolutions run on the L(L+1)/2 upper-triangle pixels. Peak memory is the worker process's VmHWM (runtime and libraries included).\n\n", materialised, executedText)
	} else {
		b.WriteString("GFLOP/s counts the 2D convolutions on full L x L maps (pipeline/model Arch.ConvFLOPs; a training step is 3x the forward pass), the same numerator for Go and PyTorch, CNN and SCNN: the SCNN in Go computes only the upper triangle (about half of that work), PyTorch computes the full map with tied kernels. Peak memory is the worker process's VmHWM (runtime and libraries included).\n\n")
	}

	for _, g := range []struct{ group, title string }{{"train", "Training step (forward + loss + backward + Adam)"}, {"infer", "Inference (forward + sigmoid), batch 10"}} {
		if r.find(g.group, "default") == nil && r.find(g.group, "paper") == nil {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n", g.title)
		byHalves := executed && (g.group == "infer" || r.groupExecuted(g.group))
		if byHalves {
			b.WriteString("| model | params | GFLOP | Go GFLOP | Go | PyTorch | Go/PyTorch | Go GFLOP/s | Go % of peak | PyTorch GFLOP/s | PyTorch % of peak | SCNN/CNN Go | SCNN/CNN PyTorch | Go peak MiB | PyTorch peak MiB | OpenBLAS build | Go/OpenBLAS |\n")
			b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		} else {
			b.WriteString("| model | params | GFLOP | Go | PyTorch | Go/PyTorch | Go GFLOP/s | PyTorch GFLOP/s | SCNN/CNN Go | SCNN/CNN PyTorch | Go peak MiB | PyTorch peak MiB | OpenBLAS build | Go/OpenBLAS |\n")
			b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		}
		for _, cfg := range []string{"default", "paper"} {
			c := r.find(g.group, cfg)
			if c == nil {
				continue
			}
			for _, kind := range []string{"cnn", "scnn"} {
				gs, ts := r.med(g.group, cfg, "go/"+kind), r.med(g.group, cfg, "torch/"+kind)
				sc, st := "-", "-"
				if kind == "scnn" {
					sc = ratio(gs, r.med(g.group, cfg, "go/cnn"))
					st = ratio(ts, r.med(g.group, cfg, "torch/cnn"))
				}
				params := 0
				if s := c.side("go/" + kind); s != nil {
					params = s.Params
				}
				if s := c.side("torch/" + kind); s != nil && s.Params != params {
					fmt.Fprintf(&b, "<!-- %s %s: PyTorch has %d trainable parameters, Go %d -->\n", cfg, kind, s.Params, params)
				}
				ob := r.med(g.group, cfg, "openblas/"+kind)
				if byHalves {
					gf0, tf := r.flops(g.group, cfg, "go/"+kind), r.flops(g.group, cfg, "torch/"+kind)
					fmt.Fprintf(&b, "| %s %s | %d | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cfg, strings.ToUpper(kind), params, c.FLOPs/1e9, gflopCell(gf0),
						sec(gs), sec(ts), ratio(gs, ts), gf(gf0, gs), pct(gflops(gf0, gs), m.FMAPeak), gf(tf, ts), pct(gflops(tf, ts), m.FMAPeak), sc, st,
						mibOr(r.peak(g.group, cfg, "go/"+kind)), mibOr(r.peak(g.group, cfg, "torch/"+kind)), sec(ob), ratio(gs, ob))
					continue
				}
				fmt.Fprintf(&b, "| %s %s | %d | %.1f | %s | %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s |\n", cfg, strings.ToUpper(kind), params, c.FLOPs/1e9,
					sec(gs), sec(ts), ratio(gs, ts), gflops(c.FLOPs, gs), gf(c.FLOPs, ts), sc, st,
					mib(r.peak(g.group, cfg, "go/"+kind)), mibOr(r.peak(g.group, cfg, "torch/"+kind)), sec(ob), ratio(gs, ob))
			}
		}
		b.WriteString("\n")
	}

	if r.find("sgemm", "M100000_N64_K576") != nil || r.find("conv", "k3_64x64") != nil {
		peak := m.FMAPeak
		b.WriteString("## Convolution layers vs the machine's FMA peak\n\n")
		b.WriteString("sgemm: C (M x N) = A (M x K) B (K x N) with M = B·L·L = 100000 pixels, N = 64, K = k·k·64: the GEMM of a 64 -> 64 convolution over the whole batch, rows split over the goroutines. Go: the default build's sgemm; OpenBLAS: the openblas build; PyTorch: torch.mm.\n\n")
		b.WriteString("| shape | Go | GFLOP/s | % of peak | OpenBLAS build | GFLOP/s | PyTorch mm | GFLOP/s |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, k := range []int{3, 5} {
			name := fmt.Sprintf("M100000_N64_K%d", k*k*64)
			c := r.find("sgemm", name)
			if c == nil {
				continue
			}
			gs, ob, ts := r.med("sgemm", name, "go"), r.med("sgemm", name, "openblas"), r.med("sgemm", name, "torch")
			fmt.Fprintf(&b, "| %s | %s | %.1f | %s | %s | %s | %s | %s |\n", name, sec(gs), gflops(c.FLOPs, gs), pct(gflops(c.FLOPs, gs), peak), sec(ob), gf(c.FLOPs, ob), sec(ts), gf(c.FLOPs, ts))
		}
		b.WriteString("\nOne 64 -> 64 convolution layer, forward + backward (input and kernel gradients), batch 10, L = 100. Full: 3 GEMMs of the shape above. Symmetric (spConv, packed): the same on the L(L+1)/2 upper-triangle pixels; \"executed\" GFLOP/s counts only those." + r.symPairsNote() + r.burstNote("conv") + r.peakNote() + "\n\n")
		b.WriteString("| layer | Go full | GFLOP/s | % of peak | Go symmetric | executed GFLOP/s | % of peak | sym/full | OpenBLAS build full | GFLOP/s | PyTorch full | GFLOP/s |" + r.peakHead("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"))
		for _, k := range []int{3, 5} {
			name := fmt.Sprintf("k%d_64x64", k)
			c := r.find("conv", name)
			if c == nil {
				continue
			}
			full, sym, ob, ts := r.med("conv", name, "go"), r.med("conv", name, "go-sym"), r.med("conv", name, "openblas"), r.med("conv", name, "torch")
			symFLOPs := symSideFLOPs(c)
			cp := r.casePeak(c)
			fmt.Fprintf(&b, "| %dx%d | %s | %.1f | %s | %s | %.1f | %s | %s | %s | %s | %s | %s |%s\n", k, k, sec(full), gflops(c.FLOPs, full), pct(gflops(c.FLOPs, full), cp),
				sec(sym), gflops(symFLOPs, sym), pct(gflops(symFLOPs, sym), cp), ratio(sym, full), sec(ob), gf(c.FLOPs, ob), sec(ts), gf(c.FLOPs, ts), r.peakCell(cp))
		}
		b.WriteString("\n")
	}
	b.WriteString(r.narrowTable())

	if sweep := r.group("sweep"); len(sweep) > 0 {
		b.WriteString("## Inference on one chain of length L\n\n")
		if executed {
			b.WriteString("| model | L | GFLOP | Go GFLOP | Go | PyTorch | Go/PyTorch | Go GFLOP/s | Go % of peak | PyTorch GFLOP/s | PyTorch % of peak | Go peak MiB | PyTorch peak MiB |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		} else {
			b.WriteString("| model | L | GFLOP | Go | PyTorch | Go/PyTorch | Go peak MiB | PyTorch peak MiB |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
		}
		for _, c := range sweep {
			cfg, l, _ := strings.Cut(c.Name, "/L")
			for _, kind := range []string{"cnn", "scnn"} {
				gs, ts := r.med("sweep", c.Name, "go/"+kind), r.med("sweep", c.Name, "torch/"+kind)
				if executed {
					gf0, tf := r.flops("sweep", c.Name, "go/"+kind), r.flops("sweep", c.Name, "torch/"+kind)
					fmt.Fprintf(&b, "| %s %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cfg, strings.ToUpper(kind), l, c.FLOPs/1e9, gflopCell(gf0),
						sec(gs), sec(ts), ratio(gs, ts), gf(gf0, gs), pct(gflops(gf0, gs), m.FMAPeak), gf(tf, ts), pct(gflops(tf, ts), m.FMAPeak),
						mibOr(r.peak("sweep", c.Name, "go/"+kind)), mibOr(r.peak("sweep", c.Name, "torch/"+kind)))
					continue
				}
				fmt.Fprintf(&b, "| %s %s | %s | %.1f | %s | %s | %s | %s | %s |\n", cfg, strings.ToUpper(kind), l, c.FLOPs/1e9, sec(gs), sec(ts), ratio(gs, ts),
					mib(r.peak("sweep", c.Name, "go/"+kind)), mibOr(r.peak("sweep", c.Name, "torch/"+kind)))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(r.baselineTable())
	b.WriteString(r.rnaTable())
	b.WriteString(r.bf16Table())
	b.WriteString(r.recTable())
	b.WriteString(r.predictorTable())
	b.WriteString(r.foldTable())
	b.WriteString(r.coevoTable())
	if len(r.Notes) > 0 {
		b.WriteString("## Skipped\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	b.WriteString(r.targets())
	return b.String()
}

// foldTable is the section of the fold cases (RNA folding, Go only), or
// "" when the run has none.
func (r *report) foldTable() string {
	var lengths []int
	for _, c := range r.Cases {
		if c.Group != "fold" {
			continue
		}
		_, l, _ := strings.Cut(c.Name, "/L")
		if n, err := strconv.Atoi(l); err == nil && !slices.Contains(lengths, n) {
			lengths = append(lengths, n)
		}
	}
	if len(lengths) == 0 {
		return ""
	}
	slices.Sort(lengths)
	var b strings.Builder
	b.WriteString("## RNA folding (Turner 2004): seconds and peak memory by length\n\n")
	fmt.Fprintf(&b, "rna/fold on one random RNA per length (A, C, G, U equally likely, fixed seed: the sequences of rna/fold's BenchmarkMFE), %d goroutines (GOMAXPROCS), the default parameters (Turner 2004, RNAfold's defaults: -d2, 37 C). MFE: `Params.Fold`, the minimum free energy structure with its traceback. Partition function: `Params.Partition` (RNAfold -p): the MFE fold it starts with, the inside and outside passes and the pair probabilities. Each method and length is a worker process of its own; peak memory is its VmHWM (runtime included), tables the dynamic programme's own (FoldBytes, PartitionBytes). Go only: RNAfold (ViennaRNA) is not installed here, so there is no side-by-side timing; rna/fold's golden tests match RNAfold's outputs (structures and energies, ensemble free energies, pair probabilities).\n\n", r.Machine.Threads)
	b.WriteString("| L (nt) | MFE | MFE peak MiB | MFE tables MiB | partition function | PF peak MiB | PF tables MiB | PF/MFE |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	p := fold.DefaultParams()
	for _, n := range lengths {
		mfe, pf := fmt.Sprintf("mfe/L%d", n), fmt.Sprintf("pf/L%d", n)
		ms, ps := r.med("fold", mfe, "go"), r.med("fold", pf, "go")
		mt, pt := "-", "-"
		if ms > 0 {
			mt = mib(p.FoldBytes(n))
		}
		if ps > 0 {
			pt = mib(p.PartitionBytes(n))
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", n, sec(ms), mibOr(r.peak("fold", mfe, "go")), mt,
			sec(ps), mibOr(r.peak("fold", pf, "go")), pt, ratio(ps, ms))
	}
	b.WriteString("\n")
	return b.String()
}

// gflopCell is f FLOPs in GFLOP, or "-" for none.
func gflopCell(f float64) string {
	if f <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", f/1e9)
}

func gf(f, s float64) string {
	if s <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", gflops(f, s))
}

func mibOr(v int64) string {
	if v <= 0 {
		return "-"
	}
	return mib(v)
}

func pct(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*a/b)
}

// targets states where each performance target stands (docs/performance.md,
// "The targets in that run").
func (r *report) targets() string {
	var b strings.Builder
	b.WriteString("## Targets\n\n")
	b.WriteString("Step-time ratios are medians; the range is that of the ratios of the runs made in the same round (the sides run back to back), which shows how far the machine's noise moves them.\n\n")
	b.WriteString("| target | measured | range over rounds | met | met in every round |\n|---|---|---|---|---|\n")
	row := func(name, measured, spread string, ok, every, known bool) {
		mark, all := "no", "no"
		switch {
		case !known:
			mark, all, measured, spread = "not measured", "-", "-", "-"
		case spread == "-":
			all = "-"
			if ok {
				mark = "yes"
			}
		default:
			if ok {
				mark = "yes"
			}
			if every {
				all = "yes"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, measured, spread, mark, all)
	}
	ratioRow := func(name, group, cfg, num, den string, limit float64, strict bool) {
		a, d := r.med(group, cfg, num), r.med(group, cfg, den)
		lo, hi, ok := r.roundRatios(group, cfg, num, den)
		spread := "-"
		if ok {
			spread = fmt.Sprintf("%.2f-%.2f", lo, hi)
		}
		meets := func(x float64) bool { return x < limit || !strict && x == limit }
		row(name, ratio(a, d)+"x", spread, a > 0 && d > 0 && meets(a/d), ok && meets(hi), a > 0 && d > 0)
	}
	// The kernels against PyTorch.
	for _, cfg := range []string{"default", "paper"} {
		ratioRow(fmt.Sprintf("Go CNN step <= 1.0x PyTorch CNN step (%s)", cfg), "train", cfg, "go/cnn", "torch/cnn", 1, false)
	}
	ratioRow("Go paper CNN batch inference <= 1.0x PyTorch's", "infer", "paper", "go/cnn", "torch/cnn", 1, false)
	ratioRow("Go SCNN step <= 0.5x PyTorch CNN step (paper)", "train", "paper", "go/scnn", "torch/cnn", 0.5, false)
	// The training steps at least 2x faster than the baseline
	// build's (rows only in a run with -baseline); in bfloat16 too, where
	// the run has its sides.
	for _, c := range [][2]string{{"train", "default"}, {"rna-train", "families"}} {
		for _, kind := range []string{"cnn", "scnn"} {
			if r.med(c[0], c[1], "base:go/"+kind) > 0 {
				ratioRow(fmt.Sprintf("%s %s %s step <= 0.5x the baseline build's", c[0], c[1], strings.ToUpper(kind)), c[0], c[1], "go/"+kind, "base:go/"+kind, 0.5, false)
				if r.med(c[0], c[1], bf16Label+"/"+kind) > 0 {
					ratioRow(fmt.Sprintf("%s %s %s step in bfloat16 <= 0.5x the baseline build's (float32)", c[0], c[1], strings.ToUpper(kind)), c[0], c[1], bf16Label+"/"+kind, "base:go/"+kind, 0.5, false)
				}
			}
		}
	}
	for _, k := range []int{3, 5} {
		c := r.find("conv", fmt.Sprintf("k%d_64x64", k))
		var f float64
		if c != nil {
			f = gflops(c.FLOPs, r.med("conv", c.Name, "go"))
		}
		peak := r.Machine.FMAPeak
		spread, every := "-", false
		if c != nil {
			peak = r.casePeak(c)
			if lo, hi, ok := r.peakShares(c, "go", c.FLOPs); ok {
				spread, every = fmt.Sprintf("%.0f-%.0f%%", 100*lo, 100*hi), lo >= 0.6
			}
		}
		row(fmt.Sprintf("%dx%d 64->64 conv fwd+bwd >= 60%% of FMA peak", k, k), pct(f, peak), spread, f >= 0.6*peak, every, f > 0 && peak > 0)
	}
	// The narrow layers at 40% of the peak, executed FLOPs
	// (the symmetric layer's are its triangle's), the peak of the same
	// rounds where the case timed it.
	for _, n := range narrowConvs {
		c := r.find("conv", n.name())
		if c == nil {
			continue
		}
		peak := r.casePeak(c)
		f := gflops(c.FLOPs, r.med("conv", c.Name, "go"))
		fs := gflops(symSideFLOPs(c), r.med("conv", c.Name, "go-sym"))
		spread, every := "-", false
		lo, hi, ok := r.peakShares(c, "go", c.FLOPs)
		los, his, oks := r.peakShares(c, "go-sym", symSideFLOPs(c))
		if ok && oks {
			spread = fmt.Sprintf("%.0f-%.0f%%, %.0f-%.0f%%", 100*lo, 100*hi, 100*los, 100*his)
			every = lo >= 0.4 && los >= 0.4
		}
		row(fmt.Sprintf("%dx%d %d->%d conv fwd+bwd >= 40%% of FMA peak (full, symmetric)", n.k, n.k, n.cin, n.cout), pct(f, peak)+", "+pct(fs, peak), spread,
			f >= 0.4*peak && fs >= 0.4*peak, every, f > 0 && fs > 0 && peak > 0)
	}
	for _, cfg := range []string{"default", "paper"} {
		for _, kind := range []string{"cnn", "scnn"} {
			ratioRow(fmt.Sprintf("Go default build step <= OpenBLAS build step (%s %s)", cfg, strings.ToUpper(kind)), "train", cfg, "go/"+kind, "openblas/"+kind, 1, false)
		}
	}
	// Earlier targets, kept as regression checks.
	for _, cfg := range []string{"default", "paper"} {
		ratioRow(fmt.Sprintf("Go SCNN step <= 0.55x Go CNN step (%s)", cfg), "train", cfg, "go/scnn", "go/cnn", 0.55, false)
	}
	for _, m := range []string{"default/cnn", "default/scnn", "paper/cnn", "paper/scnn"} {
		cfg, kind, _ := strings.Cut(m, "/")
		p := r.peak("sweep", cfg+"/L500", "go/"+kind)
		row(fmt.Sprintf("L = 500 inference <= 4 GiB (%s %s)", cfg, strings.ToUpper(kind)), mib(p)+" MiB", "-", p <= 4<<30, false, p > 0)
	}
	// Memory of the lean inference path.
	torchCNN := r.peak("sweep", "paper/L500", "torch/cnn")
	goCNN, goSCNN := r.peak("sweep", "paper/L500", "go/cnn"), r.peak("sweep", "paper/L500", "go/scnn")
	row("L = 500 peak: Go paper CNN <= PyTorch paper CNN", mib(goCNN)+" vs "+mib(torchCNN)+" MiB", "-", goCNN <= torchCNN, false, goCNN > 0 && torchCNN > 0)
	row("L = 500 peak: Go paper SCNN <= 0.6x PyTorch paper CNN", mib(goSCNN)+" vs "+mib(torchCNN*6/10)+" MiB", "-", goSCNN*10 <= torchCNN*6, false, goSCNN > 0 && torchCNN > 0)
	d2000 := r.peak("sweep", "default/L2000", "go/scnn")
	row("L = 2000 peak: Go default SCNN <= 1.5 GiB", mib(d2000)+" MiB", "-", d2000*2 <= 3<<30, false, d2000 > 0)
	p1000 := r.peak("sweep", "paper/L1000", "go/scnn")
	row("L = 1000 peak: Go paper SCNN <= 4 GiB", mib(p1000)+" MiB", "-", p1000 <= 4<<30, false, p1000 > 0)
	// The shipped predictors, where the run has them.
	if r.find("predictor", "protein/L2000") != nil || r.find("predictor", "protein/L3000") != nil {
		p2 := r.peak("predictor", "protein/L2000", "contactmap")
		row("contactmap predict (default) at L = 2000 <= 1.5 GiB", mib(p2)+" MiB", "-", p2*2 <= 3<<30, false, p2 > 0)
		p3 := r.peak("predictor", "protein/L3000", "contactmap")
		row("contactmap predict (default) at L = 3000 <= 4 GiB", mib(p3)+" MiB, "+sec(r.med("predictor", "protein/L3000", "contactmap")), "-", p3 <= 4<<30, false, p3 > 0)
	}
	// plmDCA beside freecontact, where the run has coevo cases.
	r.coevoTargets(ratioRow)
	b.WriteString("\n")
	return b.String()
}

// backend returns the sgemm a side labelled prefix (or prefix/...) ran
// with, as its worker reported it ("go/avx512", "openblas/SkylakeX"), or "".
func (r *report) backend(prefix string) string {
	for _, c := range r.Cases {
		for _, sd := range c.Sides {
			if (sd.Label == prefix || strings.HasPrefix(sd.Label, prefix+"/")) && sd.Backend != "" {
				return sd.Backend
			}
		}
	}
	return ""
}

// baselineTable compares the Go sides with the same sides of the baseline
// build (-baseline), run alternately in the same cases: "" when the run
// had none.
func (r *report) baselineTable() string {
	var rows []string
	for _, c := range r.Cases {
		for _, s := range c.Sides {
			label, ok := strings.CutPrefix(s.Label, "base:")
			if !ok {
				continue
			}
			now := r.sideOf(c.Group, c.Name, label)
			if now.Median == 0 || s.Median == 0 {
				continue
			}
			// The ratio of each round: the i-th run of both sides.
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := range min(len(s.Seconds), len(now.Seconds)) {
				q := s.Seconds[i] / now.Seconds[i]
				lo, hi = min(lo, q), max(hi, q)
			}
			rows = append(rows, fmt.Sprintf("| %s/%s | %s | %.3f s | %.3f s | **%.2fx** | %.2f-%.2f |\n",
				c.Group, c.Name, label, s.Median, now.Median, s.Median/now.Median, lo, hi))
		}
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## This build against the baseline build\n\n")
	b.WriteString("The training and inference steps of this code and of the baseline build (`-baseline`, the bench program of an earlier commit: `make bench BENCH_BASE=REV`), run alternately in the same cases; median seconds per run, baseline/this (above 1: this build is faster), and the range of the per-round ratios.\n\n")
	b.WriteString("| case | side | baseline | this build | baseline/this | rounds |\n|---|---|---:|---:|---:|---:|\n")
	for _, row := range rows {
		b.WriteString(row)
	}
	b.WriteString("\n")
	return b.String()
}

// burstNote says how the group's timed runs were made where its cases
// ran in bursts (benchCase.Burst), or "".
func (r *report) burstNote(group string) string {
	n := 0
	for _, c := range r.Cases {
		if c.Group == group {
			n = max(n, c.Burst)
		}
	}
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" Each timed run is the mean of %d runs of the layer back to back in its worker, so that a layer of a few milliseconds does not start with the caches the other sides' processes filled (runs of single layers alternating with PyTorch's read up to 2x slower).", n)
}

// narrowTable is the section of the narrow conv cases (narrowConvs), or
// "" when the run has none.
func (r *report) narrowTable() string {
	var b strings.Builder
	for _, n := range narrowConvs {
		c := r.find("conv", n.name())
		if c == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("## Narrow convolution layers vs the machine's FMA peak\n\n")
			b.WriteString("The layers the shipped networks train: one convolution, forward + backward (input and kernel gradients), batch 10, L = 100, kernel k, Cin -> Cout channels. Full: the dense map; symmetric (spConv, packed): the L(L+1)/2 upper-triangle pixels, \"executed\" GFLOP/s counting only those. With AVX-512 the forward pass runs by the direct method (scnn/internal/kern/direct.go), the backward pass by im2col + GEMM." + r.symPairsNote() + r.burstNote("conv") + r.peakNote() + "\n\n")
			b.WriteString("| layer | Go full | GFLOP/s | % of peak | Go symmetric | executed GFLOP/s | % of peak | PyTorch full | GFLOP/s | Go full/PyTorch |" + r.peakHead("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"))
		}
		full, sym, ts := r.med("conv", c.Name, "go"), r.med("conv", c.Name, "go-sym"), r.med("conv", c.Name, "torch")
		symFLOPs := symSideFLOPs(c)
		cp := r.casePeak(c)
		fmt.Fprintf(&b, "| %dx%d, %d -> %d | %s | %.1f | %s | %s | %.1f | %s | %s | %s | %s |%s\n", n.k, n.k, n.cin, n.cout,
			sec(full), gflops(c.FLOPs, full), pct(gflops(c.FLOPs, full), cp), sec(sym), gflops(symFLOPs, sym), pct(gflops(symFLOPs, sym), cp),
			sec(ts), gf(c.FLOPs, ts), ratio(full, ts), r.peakCell(cp))
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// bf16Table is the section of the bfloat16 sides (withBF16), or "" when
// the run has none.
func (r *report) bf16Table() string {
	var b strings.Builder
	for _, c := range []struct{ group, name, label string }{
		{"train", "default", "protein default"}, {"train", "paper", "protein paper-size"}, {"rna-train", rnaProtocol, "RNA recipe"},
	} {
		for _, kind := range []string{"cnn", "scnn"} {
			bs := r.med(c.group, c.name, bf16Label+"/"+kind)
			if bs <= 0 {
				continue
			}
			if b.Len() == 0 {
				b.WriteString("## Training steps in bfloat16\n\n")
				b.WriteString("The same step with `--gemm-precision bfloat16` (scnn.SetGemmPrecision): the GEMMs and the direct convolutions take bfloat16 operands (VDPBF16PS, AVX512_BF16: twice the multiply-adds of an FMA per instruction) and sum in float32; weights, activations and gradients stay float32. Median seconds per run, the sides alternating; rounds: the range of the per-round ratios. Its effect on what a network learns is measured in experiments/bf16, not here.\n\n")
				b.WriteString("| step | float32 | bfloat16 | float32/bfloat16 | rounds |\n|---|---:|---:|---:|---:|\n")
			}
			fs := r.med(c.group, c.name, "go/"+kind)
			lo, hi, ok := r.roundRatios(c.group, c.name, "go/"+kind, bf16Label+"/"+kind)
			spread := "-"
			if ok {
				spread = fmt.Sprintf("%.2f-%.2f", lo, hi)
			}
			fmt.Fprintf(&b, "| %s %s | %s | %s | %sx | %s |\n", c.label, strings.ToUpper(kind), sec(fs), sec(bs), ratio(fs, bs), spread)
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
