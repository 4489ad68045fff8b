package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/rna/ssnet"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
)

// side is one implementation timed in a case: the Go worker (this
// program) or the PyTorch reference. An external program (task exec:
// freecontact) is a Go worker too, which starts the program once per run
// (coevo.go).
type side struct {
	Label    string // "go", "go-sym", "openblas", "torch", "go/cnn", "plm", "freecontact-evfold", ...
	Torch    bool
	OpenBLAS bool // the worker of the openblas build (runner.OpenBLAS)
	// Baseline: the worker of the baseline build (runner.Baseline), an
	// earlier commit's bench program timed beside this one.
	Baseline bool
	Task     task
	// FLOPs, where not 0, are the floating-point operations one run of
	// this side executes, in place of the case's: a Go inference pass
	// computes fewer than the materialised maps' (report.go).
	FLOPs float64
}

// benchCase is one comparison: its sides run interleaved.
type benchCase struct {
	Group string // sgemm, conv, train, infer, sweep, rna-train, rna-sweep, rec-train, predictor, fold, coevo
	Name  string
	FLOPs float64 // floating-point operations of one run (see report.go), unless a side has its own
	Sides []side
	// MaxReps caps the timed runs of a long case (0: no cap); Warmup
	// false skips its warm-up runs. The large-L rows are about memory.
	MaxReps  int
	NoWarmup bool
	// Burst: each timed run of a side is the mean of this many runs
	// made back to back by its worker ("run N"; 0 or 1: one run), so
	// that a run of a few milliseconds does not start with the caches
	// the other sides' processes filled (the conv cases).
	Burst int
}

// sideResult is what a side measured.
type sideResult struct {
	Label    string    `json:"label"`
	Params   int       `json:"params"`
	Backend  string    `json:"backend,omitempty"`
	Seconds  []float64 `json:"seconds"` // after warm-up, in run order
	Median   float64   `json:"median_seconds"`
	PeakRSS  int64     `json:"peak_rss"`
	StartRSS int64     `json:"start_rss"`
	// PeakFloor: an exec side's launcher's own peak; a PeakRSS at or
	// below it says only "at most" (coevo.go).
	PeakFloor int64 `json:"peak_floor,omitempty"`
	L         int   `json:"l,omitempty"` // plm: the alignment's columns
	N         int   `json:"n,omitempty"` // plm: its sequences
	// FLOPs: side.FLOPs, the operations one run of this side executes
	// where they are not the case's (0, and absent from the runs recorded
	// before sides had their own: the case's; caseResult.flopsOf).
	FLOPs float64 `json:"flops,omitempty"`
	// Settle: after each timed run, how long the worker took to go idle
	// (idle.go), in seconds; absent from runs recorded before.
	Settle []float64 `json:"settle_seconds,omitempty"`
}

type caseResult struct {
	Group string       `json:"group"`
	Name  string       `json:"name"`
	FLOPs float64      `json:"flops"`
	Sides []sideResult `json:"sides"`
	// Burst: the back-to-back runs each timed run averages (benchCase;
	// absent: one).
	Burst int `json:"burst,omitempty"`
}

// flopsOf is the floating-point operations of one run of side s: its
// own count, or the case's.
func (c *caseResult) flopsOf(s sideResult) float64 {
	if s.FLOPs > 0 {
		return s.FLOPs
	}
	return c.FLOPs
}

// side returns the result labelled l, or nil.
func (c *caseResult) side(l string) *sideResult {
	for i := range c.Sides {
		if c.Sides[i].Label == l {
			return &c.Sides[i]
		}
	}
	return nil
}

// runner starts worker processes.
type runner struct {
	Self     string // this program, for Go workers
	OpenBLAS string // this program built with the openblas tag, or ""
	Baseline string // the bench program of an earlier commit, or ""
	Python   string
	Script   string // torch_ref.py
}

// archJSON is the architecture record of a configuration, as the PyTorch
// reference reads it.
func archJSON(kind, config string) (string, error) {
	a, err := model.ArchByName(model.Kind(kind), config)
	if err != nil {
		return "", err
	}
	raw, err := json.Marshal(a)
	return string(raw), err
}

func (r runner) command(s side) (*exec.Cmd, error) {
	t := s.Task
	args := []string{"--task", t.Kind, "--batch", strconv.Itoa(t.B), "--length", strconv.Itoa(t.L),
		"--k", strconv.Itoa(t.K), "--cin", strconv.Itoa(t.Cin), "--cout", strconv.Itoa(t.Cout)}
	if !s.Torch {
		args = append([]string{"worker", "--model", t.Model, "--config", t.Config, "--sym=" + strconv.FormatBool(t.Sym)}, args...)
		if t.Method != "" {
			args = append(args, "--method", t.Method)
		}
		if t.Alignment != "" {
			args = append(args, "--alignment", t.Alignment)
		}
		if t.Outputs != "" {
			args = append(args, "--outputs", t.Outputs)
		}
		if t.Precision != "" {
			args = append(args, "--gemm-precision", t.Precision)
		}
		if t.Steps > 0 {
			args = append(args, "--steps", strconv.Itoa(t.Steps))
		}
		if len(t.Command) > 0 {
			args = append(append(args, "--"), t.Command...)
		}
		bin := r.Self
		if s.OpenBLAS {
			if r.OpenBLAS == "" {
				return nil, fmt.Errorf("bench: no OpenBLAS build of the worker (-openblas)")
			}
			bin = r.OpenBLAS
		}
		if s.Baseline {
			if r.Baseline == "" {
				return nil, fmt.Errorf("bench: no baseline build of the worker (-baseline)")
			}
			bin = r.Baseline
		}
		cmd := exec.Command(bin, args...)
		if t.Kind == "exec" {
			cmd.Env = openblasThreads(os.Environ())
		}
		return cmd, nil
	}
	if t.Sym {
		return nil, fmt.Errorf("bench: the PyTorch reference has no packed symmetric layer")
	}
	switch t.Kind {
	case "fold":
		return nil, fmt.Errorf("bench: the PyTorch reference has no RNA folding")
	case "plm", "exec":
		return nil, fmt.Errorf("bench: the PyTorch reference has no %s task", t.Kind)
	}
	if t.Kind == "train" || t.Kind == "infer" {
		arch, err := archJSON(t.Model, t.Config)
		if err != nil {
			return nil, err
		}
		args = append(args, "--arch", arch)
	}
	if t.Kind == "rec-train" {
		cfg, err := recConfigJSON(t.Model)
		if err != nil {
			return nil, err
		}
		args = append(args, "--rec", cfg, "--targets", strconv.Itoa(recTargets), "--negatives", strconv.Itoa(recNegatives),
			"--lr", strconv.FormatFloat(recLR, 'g', -1, 64), "--l2", strconv.FormatFloat(recDecay, 'g', -1, 64))
	}
	if t.Kind == "rna-train" || t.Kind == "rna-infer" {
		spec, err := rnaSpecJSON(t.Model, t.Config)
		if err != nil {
			return nil, err
		}
		_, p, _ := rnaSpec(t.Model, t.Config)
		kind, _ := ssnet.ParseKind(t.Model)
		args = append(args, "--spec", spec, "--lr", strconv.FormatFloat(p.LR(kind), 'g', -1, 64),
			"--l2", strconv.FormatFloat(p.L2, 'g', -1, 64), "--pos-weight", strconv.FormatFloat(p.PosWeight, 'g', -1, 64))
	}
	args = append(args, "--threads", strconv.Itoa(gomaxprocs()))
	return exec.Command(r.Python, append([]string{r.Script}, args...)...), nil
}

// proc is a running worker.
type proc struct {
	label string
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
}

func (p *proc) ask(cmd string) (workerReply, error) {
	var r workerReply
	if cmd != "" {
		if _, err := fmt.Fprintln(p.in, cmd); err != nil {
			return r, fmt.Errorf("bench: %s worker: %w", p.label, err)
		}
	}
	if !p.out.Scan() {
		err := p.out.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return r, fmt.Errorf("bench: %s worker exited: %w", p.label, err)
	}
	if err := json.Unmarshal(p.out.Bytes(), &r); err != nil {
		return r, fmt.Errorf("bench: %s worker: bad reply %q: %w", p.label, p.out.Text(), err)
	}
	if r.Error != "" {
		return r, fmt.Errorf("bench: %s worker: %s", p.label, r.Error)
	}
	return r, nil
}

func (p *proc) stop() {
	p.in.Close() // a worker exits at the end of its input
	p.cmd.Wait()
}

// run measures one case: its sides start one after another (each waits
// for the previous one to be ready), warm up, then take turns run by run,
// reps times, so that slow drifts of the machine reach every side alike.
func (r runner) run(c benchCase, warmup, reps int) (caseResult, error) {
	if c.MaxReps > 0 {
		reps = min(reps, c.MaxReps)
	}
	if c.NoWarmup {
		warmup = 0
	}
	res := caseResult{Group: c.Group, Name: c.Name, FLOPs: c.FLOPs}
	var procs []*proc
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	for _, s := range c.Sides {
		cmd, err := r.command(s)
		if err != nil {
			return res, err
		}
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			return res, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return res, err
		}
		if err := cmd.Start(); err != nil {
			return res, fmt.Errorf("bench: start %s worker: %w", s.Label, err)
		}
		p := &proc{label: s.Label, cmd: cmd, in: in, out: bufio.NewScanner(out)}
		procs = append(procs, p)
		ready, err := p.ask("")
		if err != nil {
			return res, err
		}
		settle(cmd.Process.Pid)
		res.Sides = append(res.Sides, sideResult{Label: s.Label, Params: ready.Params, StartRSS: ready.RSSStart, Backend: ready.Version, L: ready.L, N: ready.N, FLOPs: s.FLOPs})
	}
	res.Burst = c.Burst
	runCmd := "run"
	if c.Burst > 1 {
		runCmd = fmt.Sprintf("run %d", c.Burst)
	}
	for round := 0; round < warmup+reps; round++ {
		for i, p := range procs {
			rep, err := p.ask(runCmd)
			if err != nil {
				return res, err
			}
			// The next side starts on a quiet machine (idle.go).
			quiet := settle(p.cmd.Process.Pid)
			if round >= warmup {
				res.Sides[i].Seconds = append(res.Sides[i].Seconds, rep.Seconds)
				res.Sides[i].Settle = append(res.Sides[i].Settle, quiet.Seconds())
			}
		}
	}
	for i, p := range procs {
		rep, err := p.ask("mem")
		if err != nil {
			return res, err
		}
		res.Sides[i].PeakRSS, res.Sides[i].PeakFloor = rep.PeakRSS, rep.PeakFloor
		res.Sides[i].Median = median(res.Sides[i].Seconds)
	}
	return res, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
