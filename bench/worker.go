package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/contactmap/contactmap/pipeline/model"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/scnn"
)

// task is what one worker process times. The Go worker and the PyTorch
// worker (torch_ref.py) take the same flags and speak the same protocol:
// one JSON line when ready, then one JSON line per command read from stdin
// ("run": time one task; "run N": the mean time of N runs back to back;
// "mem": peak resident memory).
type task struct {
	Kind   string // train, infer, rna-train, rna-infer, rec-train, conv, sgemm, fold, plm, exec
	Model  string // cnn or scnn (train, infer, rna-*); cosrec or scosrec (rec-train)
	Method string // fold: mfe (Params.Fold) or pf (Params.Partition)
	Config string // default or paper (train, infer); the rna/ssnet protocol (rna-train, rna-infer)
	Sym    bool   // conv: symmetric (packed) layer
	B, L   int
	K      int // conv, sgemm: kernel size
	Cin    int
	Cout   int
	// Alignment: plm, the alignment fitted; exec, the file whose plain
	// text the command reads on stdin ("": none).
	Alignment string
	// Command: exec, the program (a path) and its arguments, started once
	// per run (coevo.go).
	Command []string
	// Outputs: exec, a directory the command writes its outputs into
	// (the predictor cases' --out), emptied before each run: a run must
	// leave files there, and its standard output may then be empty ("":
	// the standard output must not be).
	Outputs string
	// Precision: the Go worker's --gemm-precision ("": float32).
	Precision string
	// Steps: fma, the steps of the FMA loop each goroutine runs
	// (scnn.FMAWork).
	Steps int
}

// maxBurst bounds the N of "run N".
const maxBurst = 1000

// workerReply is one line of the protocol.
type workerReply struct {
	Ready    bool    `json:"ready,omitempty"`
	Params   int     `json:"params,omitempty"`
	L        int     `json:"l,omitempty"` // plm: the alignment's columns
	N        int     `json:"n,omitempty"` // plm: its sequences
	RSSStart int64   `json:"rss_start,omitempty"`
	Seconds  float64 `json:"seconds,omitempty"`
	PeakRSS  int64   `json:"peak_rss,omitempty"`
	// PeakFloor: exec, the launcher's own VmHWM; a PeakRSS at or below
	// it is an upper bound (coevo.go).
	PeakFloor int64  `json:"peak_floor,omitempty"`
	Version   string `json:"version,omitempty"`
	Error     string `json:"error,omitempty"`
}

// procStatus reads a "Vm...:  N kB" line of /proc/self/status in bytes.
func procStatus(field string) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// built is a task ready to run.
type built struct {
	run    func() error
	params int
	l, n   int // plm: the alignment's columns and sequences
	// peak, where set, gives the peak memory and its floor (exec: of the
	// processes it started); nil, the worker's own VmHWM.
	peak    func() (peak, floor int64)
	gcFirst bool   // collect the heap before each run, untimed
	close   func() // where set, called when the worker ends
	// version is the ready reply's version where set (exec: the command
	// line); else the worker's sgemm (backendName).
	version string
}

// runWorker builds the task and answers commands until stdin closes.
func runWorker(t task, in io.Reader, out io.Writer) error {
	start := procStatus("VmRSS")
	b, err := buildTask(t)
	if err != nil {
		return err
	}
	if b.close != nil {
		defer b.close()
	}
	enc := json.NewEncoder(out)
	version := b.version
	if version == "" {
		version = backendName()
	}
	if err := enc.Encode(workerReply{Ready: true, Params: b.params, L: b.l, N: b.n, RSSStart: start, Version: version}); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var r workerReply
		cmd, arg, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch cmd {
		case "run":
			n := 1
			if arg != "" {
				var err error
				if n, err = strconv.Atoi(arg); err != nil || n < 1 || n > maxBurst {
					r.Error = fmt.Sprintf("run %q: want a count of runs from 1 to %d", arg, maxBurst)
					break
				}
			}
			gcFirst(b)
			t0 := time.Now()
			for range n {
				if err := b.run(); err != nil {
					return err
				}
			}
			r.Seconds = time.Since(t0).Seconds() / float64(n)
		case "mem":
			if b.peak != nil {
				r.PeakRSS, r.PeakFloor = b.peak()
			} else {
				r.PeakRSS = procStatus("VmHWM")
			}
		default:
			r.Error = fmt.Sprintf("unknown command %q", cmd)
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return sc.Err()
}

func buildTask(t task) (built, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b built
	var err error
	switch t.Kind {
	case "train", "infer":
		b.run, b.params, err = buildModelTask(t, rng)
	case "rna-train", "rna-infer":
		b.run, b.params, err = buildRNATask(t, rng)
	case "rec-train":
		b.run, b.params, err = buildRecTask(t, rng)
	case "conv":
		b.run, b.params, err = buildConvTask(t, rng)
	case "sgemm":
		b.run = buildSgemmTask(t, rng)
	case "fold":
		b.run, err = buildFoldTask(t)
	case "plm":
		return buildPlmTask(t)
	case "exec":
		return buildExecTask(t)
	case "fma":
		if t.Steps < 1 {
			return b, fmt.Errorf("bench: fma task of %d steps", t.Steps)
		}
		b.run = func() error {
			scnn.FMAWork(0, t.Steps)
			return nil
		}
	default:
		err = fmt.Errorf("bench: unknown task %q", t.Kind)
	}
	return b, err
}

func fillNormal(v []float32, rng *rand.Rand) {
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
}

// syntheticBatch is a batch of b chains of length l with random features
// and about 10% contacts: timing does not depend on the values.
func syntheticBatch(b, l int, a model.Arch, packed bool, rng *rand.Rand) *model.Batch {
	bt := &model.Batch{L: l, X1: scnn.New(b, l, a.N1D)}
	for s := 0; s < b; s++ {
		bt.IDs = append(bt.IDs, fmt.Sprintf("synthetic%d", s))
		bt.Lengths = append(bt.Lengths, l)
	}
	fillNormal(bt.X1.Data, rng)
	if packed {
		bt.X2 = scnn.NewPacked(b, l, a.N2D)
	} else {
		bt.X2 = scnn.New(b, l, l, a.N2D)
	}
	bt.Labels = make([]float32, b*l*l)
	bt.Mask = make([]float32, b*l*l)
	for s := 0; s < b; s++ {
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				for c := 0; c < a.N2D; c++ {
					v := float32(rng.NormFloat64())
					bt.X2.Set(v, s, i, j, c)
					if !packed {
						bt.X2.Set(v, s, j, i, c)
					}
				}
				y := float32(0)
				if rng.Float64() < 0.1 {
					y = 1
				}
				for _, o := range []int{(s*l+i)*l + j, (s*l+j)*l + i} {
					bt.Labels[o], bt.Mask[o] = y, 1
				}
			}
		}
	}
	return bt
}

func buildModelTask(t task, rng *rand.Rand) (func() error, int, error) {
	run, m, err := modelTask(t, rng)
	if err != nil {
		return nil, 0, err
	}
	return run, m.Trainable(), nil
}

// modelTask is buildModelTask's run and the model it trains or runs.
func modelTask(t task, rng *rand.Rand) (func() error, *model.Model, error) {
	a, err := model.ArchByName(model.Kind(t.Model), t.Config)
	if err != nil {
		return nil, nil, err
	}
	m, err := model.NewModel(a, 1)
	if err != nil {
		return nil, nil, err
	}
	b := syntheticBatch(t.B, t.L, a, m.Packed(), rng)
	if t.Kind == "infer" {
		return func() error {
			logits, err := m.Forward(scnn.Inference(0), b)
			if err != nil {
				return err
			}
			model.Probabilities(logits, b.Lengths)
			return nil
		}, m, nil
	}
	loss := scnn.WeightedBCE{PosWeight: 5}
	return trainStep(scnn.NewAdam(m.Params(), 1e-3, 1e-5), func(pass *scnn.Pass) (*scnn.Tensor, error) { return m.Forward(pass, b) },
		func(z *scnn.Tensor) (float64, *scnn.Tensor, error) { return loss.Forward(z, b.Labels, b.Mask) }), m, nil
}

// trainStep is one training step, as the training loops take it: the
// gradients zeroed, the forward pass, the loss and its gradient, the
// backward pass and the optimiser's step, the pass's buffers recycled.
func trainStep(opt *scnn.Adam, forward func(*scnn.Pass) (*scnn.Tensor, error), loss func(*scnn.Tensor) (float64, *scnn.Tensor, error)) func() error {
	recycler := new(scnn.Recycler)
	return func() error {
		opt.ZeroGrad()
		pass := scnn.TrainingWith(0, recycler)
		z, err := forward(pass)
		if err != nil {
			return err
		}
		v, g, err := loss(z)
		if err != nil {
			return err
		}
		if math.IsNaN(v) {
			return fmt.Errorf("bench: loss is NaN")
		}
		if err := pass.Backward(z, g); err != nil {
			return err
		}
		opt.Step()
		pass.Free()
		return nil
	}
}

func buildConvTask(t task, rng *rand.Rand) (func() error, int, error) {
	var c scnn.BranchConv
	var x, dy *scnn.Tensor
	var err error
	if t.Sym {
		c, err = scnn.NewSymPresConv("bench", t.K, t.Cin, t.Cout, rng)
		x, dy = scnn.NewPacked(t.B, t.L, t.Cin), scnn.NewPacked(t.B, t.L, t.Cout)
	} else {
		c, err = scnn.NewConv2D("bench", t.K, t.Cin, t.Cout, rng)
		x, dy = scnn.New(t.B, t.L, t.L, t.Cin), scnn.New(t.B, t.L, t.L, t.Cout)
	}
	if err != nil {
		return nil, 0, err
	}
	fillNormal(x.Data, rng)
	fillNormal(dy.Data, rng)
	n := 0
	for _, p := range c.Params() {
		n += len(p.Value)
	}
	recycler := new(scnn.Recycler)
	return func() error {
		for _, p := range c.Params() {
			clear(p.Grad)
		}
		pass := scnn.TrainingWith(0, recycler)
		y, err := scnn.ForwardBranches(pass, x, c)
		if err != nil {
			return err
		}
		err = pass.Backward(y, dy)
		pass.Free()
		return err
	}, n, nil
}

// buildSgemmTask times C (M x N) = A (M x K) B (K x N), row-major, M =
// B*L*L, K = k*k*Cin, N = Cout: the GEMM of a convolution over the whole
// batch at once. The rows are split between GOMAXPROCS goroutines, each
// calling the single-threaded BLAS the convolutions use.
func buildSgemmTask(t task, rng *rand.Rand) func() error {
	m, k, n := t.B*t.L*t.L, t.K*t.K*t.Cin, t.Cout
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	fillNormal(a, rng)
	fillNormal(b, rng)
	workers := gomaxprocs()
	return func() error {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			r0, r1 := m*w/workers, m*(w+1)/workers
			wg.Add(1)
			go func() {
				defer wg.Done()
				scnn.Sgemm(false, false, r1-r0, n, k, 1, a[r0*k:], k, b, n, 0, c[r0*n:], n)
			}()
		}
		wg.Wait()
		return nil
	}
}

// backendName is the worker's sgemm: "go/avx512" (Go, with the kernels
// in use) or "openblas/SkylakeX" (the openblas build, with OpenBLAS's
// kernel set).
func backendName() string {
	if core := scnn.BLASCore(); core != "" {
		return "openblas/" + core
	}
	return scnn.BLASBackend() + "/" + scnn.SgemmKernels()
}

// randomRNA is a random sequence of n bases, A, C, G and U equally
// likely, drawn with the seed of rna/fold's BenchmarkMFE (PCG(n, 7)), so
// that the bench folds the same sequences as that benchmark.
func randomRNA(n int) string {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	const alpha = "ACGU"
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[rng.IntN(len(alpha))]
	}
	return string(b)
}

// buildFoldTask times one fold of a random RNA of t.L bases with the
// Turner 2004 parameters (fold.DefaultParams, RNAfold's defaults) on
// GOMAXPROCS goroutines: the MFE structure (Params.Fold, "mfe") or the
// partition function with its pair probabilities (Params.Partition,
// "pf"), which starts with the MFE fold.
func buildFoldTask(t task) (func() error, error) {
	if t.L < 1 {
		return nil, fmt.Errorf("bench: fold: length %d", t.L)
	}
	p, seq, threads := fold.DefaultParams(), randomRNA(t.L), gomaxprocs()
	switch t.Method {
	case "mfe":
		return func() error {
			st, e, err := p.Fold(seq, threads)
			if err != nil {
				return err
			}
			if len(st.Seq) != t.L || e > 0 {
				return fmt.Errorf("bench: fold: MFE of %d nt: %d bases, %.2f kcal/mol", t.L, len(st.Seq), e)
			}
			return nil
		}, nil
	case "pf":
		return func() error {
			ens, err := p.Partition(seq, threads)
			if err != nil {
				return err
			}
			if ens.Len() != t.L || ens.FreeEnergy > ens.MFEEnergy {
				return fmt.Errorf("bench: fold: ensemble of %d nt: %d bases, free energy %.2f above the MFE %.2f", t.L, ens.Len(), ens.FreeEnergy, ens.MFEEnergy)
			}
			return nil
		}, nil
	}
	return nil, fmt.Errorf("bench: fold: unknown method %q (mfe or pf)", t.Method)
}
