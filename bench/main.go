// Command bench measures contactmap's networks against a PyTorch
// reference on this machine: `make bench` runs it and writes
// bench/results.md (tables) and bench/results.json (every timing).
//
// Each case starts one worker process per side (this program with the
// worker subcommand, or torch_ref.py), warms every side up, then runs the
// sides in turn (Go, PyTorch, Go, PyTorch, ...) and reports the median.
// Peak memory is each worker's VmHWM: the whole process, runtime and
// libraries included (a PyTorch process starts at about 240 MB).
//
// Usage:
//
//	bench [-reps 5] [-warmup 1] [-only REGEXP] [-torch=false] [-openblas ./contactmap-bench-openblas] [-baseline ./contactmap-bench-base] [-psicov ../shared/data/psicov150] [-freecontact freecontact] [-out bench/results.md]
//	bench -render bench/results.json [-out bench/results.md]   (tables again from recorded timings)
//	bench worker --task train|infer|conv|sgemm|fold|plm|exec [flags] [-- command...]   (used by the harness)
//
// The fold cases time RNA folding (rna/fold, Go only, no PyTorch side):
// the MFE structure and the partition function of random sequences of
// 500 to 2,000 nt (`-only '^fold/' -torch=false` runs just them).
//
// The coevo cases time plmDCA (pipeline/potts) beside Debian's
// freecontact in its EVfold and PSICOV modes on three PSICOV families,
// small, medium and large (`-only '^coevo/'` runs just them; coevo.go).
// Without freecontact their freecontact sides are skipped, said in the
// table; without the alignments (-psicov) the cases are.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/blasenv"
)

func gomaxprocs() int { return runtime.GOMAXPROCS(0) }

func main() {
	blasenv.Reexec()
	blasenv.SelectKernels(os.Stderr) // CONTACTMAP_SGEMM, inherited by the workers
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		if err := workerMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := harnessMain(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func workerMain(args []string) error {
	fs := flag.NewFlagSet("bench worker", flag.ContinueOnError)
	var t task
	fs.StringVar(&t.Kind, "task", "", "train, infer, conv, sgemm, fold, plm, exec or fma")
	fs.StringVar(&t.Model, "model", string(model.CNN), "cnn or scnn")
	fs.StringVar(&t.Config, "config", "default", "default or paper")
	fs.BoolVar(&t.Sym, "sym", false, "conv: symmetric packed layer")
	fs.IntVar(&t.B, "batch", 10, "batch size")
	fs.IntVar(&t.L, "length", 100, "chain length (fold: sequence length in nt)")
	fs.StringVar(&t.Method, "method", "", "fold: mfe (the MFE structure) or pf (the partition function, with its MFE step)")
	fs.IntVar(&t.K, "k", 3, "kernel size")
	fs.IntVar(&t.Cin, "cin", 64, "input channels")
	fs.IntVar(&t.Cout, "cout", 64, "output channels")
	fs.IntVar(&t.Steps, "steps", 0, "fma: the FMA loop's steps on each goroutine")
	fs.StringVar(&t.Alignment, "alignment", "", "plm: the alignment; exec: the file whose plain text the command reads on stdin")
	fs.StringVar(&t.Outputs, "outputs", "", "exec: the directory the command writes its outputs into, which must hold files after a run (then its standard output may be empty)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the worker's life to this file")
	precision := fs.String("gemm-precision", "float32", "the GEMMs' arithmetic: float32, or bfloat16 where the CPU has AVX512_BF16 (scnn.SetGemmPrecision)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := scnn.SetGemmPrecision(*precision); err != nil {
		return err
	}
	t.Command = fs.Args() // exec: the program and its arguments, after --
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	return runWorker(t, os.Stdin, os.Stdout)
}

// cases lists every comparison of a full run, in the order they run.
// With openblas, the sgemm, convolution and model cases also time the
// worker of the openblas build. The coevo cases read their alignments
// under psicov and run freecontact (its path) where it is not "".
func cases(torch, openblas bool, psicov, freecontact, contactmap string) []benchCase {
	const b, l, c = 10, 100, 64
	var cs []benchCase
	// The conv cases time the FMA peak's loop as a side of their own, so
	// that their "% of peak" divides by the peak of the same rounds.
	withFMA := func(s []side) []side {
		if f := scnn.FMAWork(1, 1); f > 0 {
			s = append(s, side{Label: "fma", Task: task{Kind: "fma", Steps: fmaSteps}, FLOPs: f * fmaSteps * float64(gomaxprocs())})
		}
		return s
	}
	withTorch := func(s []side, t task) []side {
		if torch {
			s = append(s, side{Label: "torch", Torch: true, Task: t})
		}
		return s
	}
	withOpenBLAS := func(s []side, t task) []side {
		if openblas {
			s = append(s, side{Label: "openblas", OpenBLAS: true, Task: t})
		}
		return s
	}
	for _, k := range []int{3, 5} {
		t := task{Kind: "sgemm", B: b, L: l, K: k, Cin: c, Cout: c}
		cs = append(cs, benchCase{Group: "sgemm", Name: fmt.Sprintf("M%d_N%d_K%d", b*l*l, c, k*k*c),
			FLOPs: 2 * float64(b*l*l) * float64(c) * float64(k*k*c), Sides: withTorch(withOpenBLAS([]side{{Label: "go", Task: t}}, t), t)})
	}
	for _, k := range []int{3, 5} {
		t := task{Kind: "conv", B: b, L: l, K: k, Cin: c, Cout: c}
		st := t
		st.Sym = true
		cs = append(cs, benchCase{Group: "conv", Name: fmt.Sprintf("k%d_%dx%d", k, c, c), Burst: convBurst,
			FLOPs: 3 * 2 * float64(b*l*l) * float64(k*k*c*c),
			Sides: withFMA(withTorch(withOpenBLAS([]side{{Label: "go", Task: t}, {Label: "go-sym", Task: st, FLOPs: symConvFLOPs(st)}}, t), t))})
	}
	// The narrow layers the shipped networks train: the RNA
	// recipe's first block (31 channels to 8 by 9 x 9, ...) and the
	// protein default's (86 to 8 by 7 x 7), full and symmetric.
	for _, n := range narrowConvs {
		t := task{Kind: "conv", B: b, L: l, K: n.k, Cin: n.cin, Cout: n.cout}
		st := t
		st.Sym = true
		cs = append(cs, benchCase{Group: "conv", Name: n.name(), Burst: convBurst,
			FLOPs: 3 * 2 * float64(b*l*l) * float64(n.k*n.k*n.cin*n.cout),
			Sides: withFMA(withTorch([]side{{Label: "go", Task: t}, {Label: "go-sym", Task: st, FLOPs: symConvFLOPs(st)}}, t))})
	}
	// One case per configuration: the CNN and the SCNN, Go, PyTorch and
	// the OpenBLAS build, interleaved, so that every ratio compares runs
	// made side by side. The case's FLOPs are the materialised maps'
	// (ConvFLOPs), which PyTorch computes; a Go pass goes by halves, and
	// its sides (the OpenBLAS build's too) count what it executes
	// (InferenceFLOPs, TrainFLOPs).
	modelSides := func(t task, withBLAS bool) []side {
		var s []side
		for _, kind := range []string{string(model.CNN), string(model.SCNN)} {
			t.Model = kind
			var f float64 // 0: the case's
			a, _ := model.ArchByName(model.Kind(kind), t.Config)
			switch t.Kind {
			case "infer":
				f = a.InferenceFLOPs(t.B, t.L)
			case "train":
				f = a.TrainFLOPs(t.B, t.L)
			}
			s = append(s, side{Label: "go/" + kind, Task: t, FLOPs: f})
			if torch {
				s = append(s, side{Label: "torch/" + kind, Torch: true, Task: t})
			}
			if openblas && withBLAS {
				s = append(s, side{Label: "openblas/" + kind, OpenBLAS: true, Task: t, FLOPs: f})
			}
		}
		return s
	}
	for _, kind := range []string{"train", "infer"} {
		for _, cfg := range []string{"default", "paper"} {
			a, _ := model.ArchByName(model.CNN, cfg)
			f := a.ConvFLOPs(b, l)
			if kind == "train" {
				f *= 3
			}
			sides := modelSides(task{Kind: kind, Config: cfg, B: b, L: l}, true)
			if kind == "train" {
				sides = withBF16(sides)
			}
			cs = append(cs, benchCase{Group: kind, Name: cfg, FLOPs: f, Sides: sides})
		}
	}
	for _, cfg := range []string{"default", "paper"} {
		a, _ := model.ArchByName(model.CNN, cfg)
		lengths := []int{100, 300, 500, 1000, 2000}
		if cfg == "paper" {
			lengths = lengths[:4]
		}
		for _, ll := range lengths {
			c := benchCase{Group: "sweep", Name: fmt.Sprintf("%s/L%d", cfg, ll),
				FLOPs: a.ConvFLOPs(1, ll), Sides: modelSides(task{Kind: "infer", Config: cfg, B: 1, L: ll}, false)}
			if ll >= 1000 { // about peak memory: one run, no warm-up
				c.MaxReps, c.NoWarmup = 1, true
			}
			cs = append(cs, c)
		}
	}
	// The RNA networks of the shipped recipe.
	cs = append(cs, rnaCases(torch)...)
	// CosRec and SCosRec.
	cs = append(cs, recCases(torch)...)
	// The shipped predictors as a user runs them.
	cs = append(cs, predictorCases(contactmap)...)
	// plmDCA beside freecontact.
	cs = append(cs, coevoCases(psicov, freecontact)...)
	// RNA folding (rna/fold): Go only, on GOMAXPROCS
	// goroutines; one worker per method and length.
	for _, method := range []string{"mfe", "pf"} {
		for _, n := range foldLengths {
			cs = append(cs, benchCase{Group: "fold", Name: fmt.Sprintf("%s/L%d", method, n),
				Sides: []side{{Label: "go", Task: task{Kind: "fold", Method: method, L: n}}}})
		}
	}
	return cs
}

// foldLengths are the sequence lengths of the fold cases (1,500 nt: about
// a 16S rRNA).
var foldLengths = []int{500, 1000, 1500, 2000}

func harnessMain(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	reps := fs.Int("reps", 5, "timed runs per side after the warm-up")
	warmup := fs.Int("warmup", 1, "untimed runs per side first")
	only := fs.String("only", "", "run only the cases whose group/name matches this regular expression")
	torch := fs.Bool("torch", true, "run the PyTorch reference (needs python3-torch)")
	python := fs.String("python", "/usr/bin/python3", "Python with torch")
	script := fs.String("script", "bench/torch_ref.py", "the PyTorch reference worker")
	openblas := fs.String("openblas", "", "this program built with -tags openblas: time its workers beside the default build's")
	baseline := fs.String("baseline", "", "this program built from an earlier commit (make bench BENCH_BASE=REV builds it): its workers run the training and inference steps beside this build's, alternating, for the old/new ratios")
	out := fs.String("out", "bench/results.md", "results table (Markdown); a .json file of all timings goes beside it (with -only: bench/results-partial.md)")
	render := fs.String("render", "", "only write the table (-out) again from the timings of an earlier run (its .json)")
	psicov := fs.String("psicov", "../shared/data/psicov150", "PSICOV families (aln/<ID>.aln.gz) of the coevo cases")
	freecontact := fs.String("freecontact", "freecontact", "Debian's freecontact, beside plmDCA in the coevo cases (not found: those sides are skipped)")
	contactmapBin := fs.String("contactmap", "./contactmap", "the contactmap program of the predictor cases (make bench builds it; not found: those cases are skipped)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *render != "" {
		raw, err := os.ReadFile(*render)
		if err != nil {
			return err
		}
		var rep report
		if err := json.Unmarshal(raw, &rep); err != nil {
			return fmt.Errorf("bench: %s: %w", *render, err)
		}
		md := rep.markdown()
		fmt.Print(md)
		return fileio.WriteAtomic(*out, func(w io.Writer) error { _, err := io.WriteString(w, md); return err })
	}
	outSet := false
	fs.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "out" })
	if *only != "" && !outSet {
		// A partial run does not replace the full run's tables.
		*out = "bench/results-partial.md"
	}
	if *reps < 1 {
		return fmt.Errorf("bench: -reps %d: want at least 1", *reps)
	}
	re, err := regexp.Compile(*only)
	if err != nil {
		return fmt.Errorf("bench: -only: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := runner{Self: self, OpenBLAS: *openblas, Baseline: *baseline, Python: *python, Script: *script}
	fc, why := lookFreecontact(*freecontact)
	cm, cmWhy := lookContactmap(*contactmapBin)
	if cm != "" {
		if cm, err = filepath.Abs(cm); err != nil {
			return err
		}
	}
	var todo []benchCase
	var notes []string
	matched, warned, wrote := 0, false, false
	if cm == "" && re.MatchString("predictor/") {
		n := fmt.Sprintf("predictor cases skipped: %s", cmWhy)
		fmt.Fprintln(os.Stderr, "bench:", n)
		notes = append(notes, n)
	}
	all := cases(*torch, *openblas != "", *psicov, fc, cm)
	if *baseline != "" {
		all = withBaseline(all)
	}
	for _, c := range all {
		if !re.MatchString(c.Group + "/" + c.Name) {
			continue
		}
		matched++
		if c.Group == "predictor" && !wrote {
			if err := writePredictorInputs(); err != nil {
				return err
			}
			defer os.RemoveAll(predictorDir()) // inputs and outputs
			wrote = true
		}
		if c.Group == "coevo" {
			if _, err := os.Stat(c.Sides[0].Task.Alignment); err != nil {
				n := fmt.Sprintf("%s/%s skipped: its alignment is missing (-psicov): %v", c.Group, c.Name, err)
				fmt.Fprintln(os.Stderr, "bench:", n)
				notes = append(notes, n)
				continue
			}
			if fc == "" && !warned {
				fmt.Fprintf(os.Stderr, "bench: freecontact not found (%s): the coevo cases run plmDCA only\n", why)
				warned = true
			}
		}
		todo = append(todo, c)
	}
	if matched == 0 {
		return fmt.Errorf("bench: no case matches %q", *only)
	}
	if len(todo) == 0 {
		return fmt.Errorf("bench: every case matching %q was skipped", *only)
	}
	rep := report{Machine: describeMachine(), Reps: *reps, Warmup: *warmup, Started: time.Now().UTC(), Notes: notes, ForwardPairs: true}
	for _, c := range todo {
		if c.Group == "coevo" && fc != "" {
			rep.Machine.FreeContact = freecontactVersion(fc)
			break
		}
	}
	// The machine's own FMA peak, on every core, before the cases.
	rep.Machine.FMAPeak, rep.Machine.FMAISA = scnn.FMAPeak(0, 3*time.Second)
	fmt.Fprintf(os.Stderr, "FMA peak: %.1f GFLOP/s (%s, %d goroutines)\n", rep.Machine.FMAPeak, rep.Machine.FMAISA, gomaxprocs())
	bar := progress.New(len(todo), "bench")
	for _, c := range todo {
		bar.Describe(c.Group + " " + c.Name)
		res, err := r.run(c, *warmup, *reps)
		if err != nil {
			return fmt.Errorf("%s %s: %w", c.Group, c.Name, err)
		}
		fmt.Fprintln(os.Stderr, res.summary())
		rep.Cases = append(rep.Cases, res)
		bar.Add(1)
	}
	bar.Finish()
	rep.Seconds = time.Since(rep.Started).Seconds()
	md := rep.markdown()
	fmt.Print(md)
	if err := fileio.WriteAtomic(*out, func(w io.Writer) error { _, err := io.WriteString(w, md); return err }); err != nil {
		return err
	}
	return fileio.WriteAtomic(jsonPath(*out), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	})
}

// baselineGroups are the groups whose Go sides also run on the baseline
// build (-baseline): the training and inference steps of the networks.
var baselineGroups = []string{"train", "infer", "rna-train", "rec-train"}

// withBaseline adds to every case of baselineGroups a side "base:LABEL"
// on the baseline build for each of its Go sides, run in turn with them.
func withBaseline(cs []benchCase) []benchCase {
	for i, c := range cs {
		if !slices.Contains(baselineGroups, c.Group) {
			continue
		}
		var add []side
		for _, s := range c.Sides {
			if s.Torch || s.OpenBLAS || !strings.HasPrefix(s.Label, "go") || s.Task.Precision != "" {
				continue // (a baseline build may not know --gemm-precision)
			}
			b := s
			b.Label, b.Baseline = "base:"+s.Label, true
			add = append(add, b)
		}
		cs[i].Sides = append(c.Sides, add...)
	}
	return cs
}

// bf16Label is the label prefix of the bfloat16 sides (withBF16).
const bf16Label = "go-bf16"

// withBF16 adds, where this CPU has AVX512_BF16, a side "go-bf16/KIND"
// after each Go side "go/KIND": the same step with
// --gemm-precision bfloat16 (its effect on training: experiments/bf16).
func withBF16(sides []side) []side {
	if scnn.SetGemmPrecision("bfloat16") != nil {
		return sides
	}
	scnn.SetGemmPrecision("float32")
	var out []side
	for _, s := range sides {
		out = append(out, s)
		if kind, ok := strings.CutPrefix(s.Label, "go/"); ok && !s.Torch && !s.OpenBLAS {
			b := s
			b.Label, b.Task.Precision = bf16Label+"/"+kind, "bfloat16"
			out = append(out, b)
		}
	}
	return out
}

// fmaSteps is the FMA loop's steps a goroutine runs in one run of the
// conv cases' "fma" side: 2^21 steps, about a GFLOP a core with
// AVX-512 (about 7 ms).
const fmaSteps = 1 << 21

// narrowConv is one narrow layer of the conv cases.
type narrowConv struct{ k, cin, cout int }

func (n narrowConv) name() string { return fmt.Sprintf("k%d_%dx%d", n.k, n.cin, n.cout) }

// convBurst is the back-to-back runs of one timed run of the conv cases
// (benchCase.Burst).
const convBurst = 5

// symConvFLOPs is what one run of the symmetric conv task t executes:
// the forward pass and both gradients on the B*L(L+1)/2 pixels of the
// packed triangles (pairnet.StepMACs: each pass on the kernel's position
// pairs where the layer folds them).
func symConvFLOPs(t task) float64 {
	return 2 * float64(t.B*t.L*(t.L+1)/2) * pairnet.StepMACs(true, t.K, t.Cin, t.Cout, t.L, true)
}

// narrowConvs are the narrow layers timed: the RNA recipe's (rna/ssnet
// protocol families: 31 channels into the first block, 16 into the
// third) and the protein default's first block (86 channels).
var narrowConvs = []narrowConv{{9, 31, 8}, {5, 31, 8}, {3, 16, 8}, {7, 86, 8}, {3, 86, 8}}
