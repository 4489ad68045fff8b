package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/potts"
)

// The coevo cases time plmDCA (pipeline/potts) beside Debian's
// freecontact, its EVfold (mean-field DCA) and PSICOV modes, on three
// PSICOV benchmark families, run by run in the same bench.
//
// plmDCA is the "plm" task of a Go worker: each run reads the alignment
// (msa.ReadFile of a plain-text copy) and runs potts.Predict with the
// default options on GOMAXPROCS goroutines.
//
// freecontact is one process per run. Its side is an "exec" worker: a
// launcher that, on each run, starts the command with the plain-text
// alignment on its standard input and its output to a file, and times it
// from start to exit (the whole process: start-up, reading, computing,
// writing). Its peak memory is the largest ru_maxrss of those processes
// (wait4's rusage, in KiB on Linux): the maximum resident set size, the
// counter /proc's VmHWM reads for the Go workers. The launcher exists
// because ru_maxrss is not the child's alone: exec folds the peak RSS of
// the process that forked (here its address space, shared by Go's vfork)
// into the new program's, so a child started by the harness would report
// at least the harness's peak. The launcher is a small process; its own
// VmHWM (PeakFloor) bounds what it adds, and a peak at or below it says
// only "at most this" (the table prints "≤").

// coevoAlignment is one family of the coevo cases.
type coevoAlignment struct {
	Size string // small, medium, large: the case's name is Size/ID
	ID   string // PSICOV family: <dir>/aln/<ID>.aln.gz
}

// coevoAlignments are the families timed, L near 50, 150 and 250 with
// about 1,300-1,600 sequences each (L and N are read from the files and
// reported with the timings).
var coevoAlignments = []coevoAlignment{
	{"small", "1brfA"},  // L 53, N 1,395
	{"medium", "1bebA"}, // L 156, N 1,577
	{"large", "1ql0A"},  // L 241, N 1,297
}

// freecontactModes are freecontact's parameter profiles timed, as
// experiments/plmdca runs them (--parprof).
var freecontactModes = []string{"evfold", "psicov"}

// coevoPath is the alignment of family id under the PSICOV data dir.
func coevoPath(dir, id string) string { return filepath.Join(dir, "aln", id+".aln.gz") }

// freecontactArgs is the command of a freecontact mode: experiments/plmdca's
// invocation (the alignment on standard input) with GOMAXPROCS threads.
func freecontactArgs(bin, mode string) []string {
	return []string{bin, "--parprof", mode, "--threads", strconv.Itoa(gomaxprocs())}
}

// coevoCases are the coevo cases on the alignments under dir: plmDCA, and
// freecontact's modes where freecontact (its path) is not "".
func coevoCases(dir, freecontact string) []benchCase {
	var cs []benchCase
	for _, a := range coevoAlignments {
		path := coevoPath(dir, a.ID)
		sides := []side{{Label: "plm", Task: task{Kind: "plm", Alignment: path}}}
		if freecontact != "" {
			for _, m := range freecontactModes {
				sides = append(sides, side{Label: "freecontact-" + m, Task: task{Kind: "exec", Alignment: path, Command: freecontactArgs(freecontact, m)}})
			}
		}
		c := benchCase{Group: "coevo", Name: a.Size + "/" + a.ID, Sides: sides}
		if a.Size != "small" {
			// A run of each side takes long: three rounds at most.
			c.MaxReps = 3
		}
		cs = append(cs, c)
	}
	return cs
}

// lookFreecontact resolves the -freecontact flag: the program's path, or
// "" with the reason where it cannot run here.
func lookFreecontact(name string) (path, why string) { return lookProgram("-freecontact", name) }

// lookProgram resolves a flag naming a program: its path, or "" with the
// reason where it cannot run here.
func lookProgram(flagName, name string) (path, why string) {
	if name == "" {
		return "", flagName + " is empty"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", err.Error()
	}
	return p, ""
}

// freecontactVersion is what `freecontact --version` prints ("1.0.21").
func freecontactVersion(path string) string {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// plainCopy writes the decompressed text of path (plain, gzip or zstd) to
// a temporary file, for a program that reads plain text; remove deletes it.
func plainCopy(path string) (name string, remove func(), err error) {
	in, err := fileio.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer in.Close()
	f, err := os.CreateTemp("", "contactmap-bench-*-"+strings.TrimSuffix(filepath.Base(path), ".gz"))
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.Remove(f.Name()) }
	if _, err := io.Copy(f, in); err != nil {
		f.Close()
		remove()
		return "", nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		remove()
		return "", nil, err
	}
	return f.Name(), remove, nil
}

// buildPlmTask times plmDCA on t.Alignment: reading a plain-text copy of
// it (msa.ReadFile) and potts.Predict with the default options on
// GOMAXPROCS goroutines. The copy is made once, untimed; a run ends with
// a check of the scores.
func buildPlmTask(t task) (built, error) {
	if t.Alignment == "" {
		return built{}, fmt.Errorf("bench: plm: no alignment (--alignment)")
	}
	plain, remove, err := plainCopy(t.Alignment)
	if err != nil {
		return built{}, err
	}
	a, err := msa.ReadFile(plain)
	if err != nil {
		remove()
		return built{}, err
	}
	l, n := a.L(), a.N()
	opt := potts.Options{Threads: gomaxprocs()}
	return built{
		run: func() error {
			a, err := msa.ReadFile(plain)
			if err != nil {
				return err
			}
			r, err := potts.Predict(a, opt)
			if err != nil {
				return err
			}
			if len(r.Scores) != l*l {
				return fmt.Errorf("bench: plm: %d scores for L = %d", len(r.Scores), l)
			}
			return nil
		},
		params: int(potts.NumParams(l)), l: l, n: n,
		gcFirst: true, // each run starts from a collected heap: VmHWM is one run's peak
		close:   remove,
	}, nil
}

// buildExecTask times an external program, one process per run: t.Command
// (the program and its arguments) with a plain-text copy of t.Alignment
// on its standard input (none where t.Alignment is ""), its standard
// output to a temporary file that must not be empty (or, where
// t.Outputs is set, that directory, emptied before each run, must hold
// files after it). The time of a run is
// the process's wall time as this launcher sees it, start to exit; the
// peak is the largest ru_maxrss of the processes (maxRSS), the floor this
// launcher's own VmHWM after the last one (see the comment at the top).
func buildExecTask(t task) (built, error) {
	if len(t.Command) == 0 {
		return built{}, fmt.Errorf("bench: exec: no command (after --)")
	}
	var cleanup []func()
	closeAll := func() {
		for _, f := range cleanup {
			f()
		}
	}
	input := os.DevNull
	if t.Alignment != "" {
		plain, remove, err := plainCopy(t.Alignment)
		if err != nil {
			return built{}, err
		}
		input = plain
		cleanup = append(cleanup, remove)
	}
	out, err := os.CreateTemp("", "contactmap-bench-out-*")
	if err != nil {
		closeAll()
		return built{}, err
	}
	out.Close()
	cleanup = append(cleanup, func() { os.Remove(out.Name()) })
	var peak, floor int64
	return built{
		run: func() error {
			if t.Outputs != "" {
				// Emptied first, so that only this run's files count.
				if err := os.RemoveAll(t.Outputs); err != nil {
					return err
				}
				if err := os.MkdirAll(t.Outputs, 0o755); err != nil {
					return err
				}
			}
			in, err := os.Open(input)
			if err != nil {
				return err
			}
			defer in.Close()
			o, err := os.Create(out.Name())
			if err != nil {
				return err
			}
			defer o.Close()
			var stderr tailBuffer
			cmd := exec.Command(t.Command[0], t.Command[1:]...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = in, o, &stderr
			err = cmd.Run()
			floor = max(floor, procStatus("VmHWM"))
			if cmd.ProcessState != nil {
				peak = max(peak, maxRSS(cmd.ProcessState))
			}
			why := ""
			if e := strings.TrimSpace(stderr.String()); e != "" {
				why = ": " + e
			}
			if err != nil {
				return fmt.Errorf("bench: %s: %v%s", strings.Join(t.Command, " "), err, why)
			}
			if t.Outputs != "" {
				if es, err := os.ReadDir(t.Outputs); err != nil || len(es) == 0 {
					return fmt.Errorf("bench: %s wrote nothing into %s%s", strings.Join(t.Command, " "), t.Outputs, why)
				}
			} else if st, err := o.Stat(); err != nil || st.Size() == 0 {
				return fmt.Errorf("bench: %s wrote nothing on stdout%s", strings.Join(t.Command, " "), why)
			}
			return nil
		},
		peak:    func() (int64, int64) { return peak, floor },
		close:   closeAll,
		version: strings.Join(t.Command, " "),
	}, nil
}

// tailBuffer keeps the last 4 KiB written to it (a program's stderr, for
// the error message).
type tailBuffer struct{ bytes.Buffer }

func (b *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.Buffer.Write(p)
	if over := b.Len() - 4096; over > 0 {
		b.Next(over)
	}
	return n, nil
}

// openblasThreads is the environment of the freecontact sides: its BLAS
// (libblas.so.3; OpenBLAS on Debian where it is the alternative) would
// otherwise start a thread per core whatever --threads says.
func openblasThreads(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "OPENBLAS_NUM_THREADS=") {
			return env
		}
	}
	return append(env, "OPENBLAS_NUM_THREADS="+strconv.Itoa(gomaxprocs()))
}

// peakCell is a side's peak memory in MiB: "-" where not measured, "≤ F"
// where the peak did not exceed its launcher's floor F.
func peakCell(s sideResult) string {
	if s.PeakRSS > 0 && s.PeakFloor > 0 && s.PeakRSS <= s.PeakFloor {
		return "≤ " + mib(s.PeakFloor)
	}
	return mibOr(s.PeakRSS)
}

// coevoTable is the section of the coevo cases, or "" when the run has
// none.
func (r *report) coevoTable() string {
	cs := r.group("coevo")
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	th := r.Machine.Threads
	b.WriteString("## Coevolution: plmDCA beside freecontact (EVfold and PSICOV modes)\n\n")
	fmt.Fprintf(&b, "PSICOV benchmark families (`../shared/data/psicov150/aln`), L columns, N sequences. plmDCA: `potts.Predict` (pipeline/potts) with the default options on %d goroutines (GOMAXPROCS), in a worker process that stays up; its time covers reading the alignment (msa.ReadFile of the plain text) and the fit and scoring, not the process's start. ", th)
	if fc := r.Machine.FreeContact; fc != "" {
		fmt.Fprintf(&b, "freecontact %s: `freecontact --parprof evfold` (EVfold, mean-field DCA) and `--parprof psicov` (PSICOV), `--threads %d` (the same cores as plmDCA; OPENBLAS_NUM_THREADS=%d for its BLAS), as experiments/plmdca runs them, the plain-text alignment on standard input, its scores to a file; one process per run, its time the process's wall time from start to exit (start-up, reading, computing, writing). ", fc, th, th)
	} else {
		b.WriteString("**freecontact was not found on this machine (`-freecontact`; Debian: apt-get install freecontact): its sides were skipped and its columns are empty.** ")
	}
	b.WriteString("The sides ran interleaved run by run (plmDCA, EVfold, PSICOV, plmDCA, ...); medians of the timed runs. Peak memory: plmDCA, its worker's VmHWM over all its runs (runtime included, the heap collected before each run); freecontact, the largest maximum resident set size (ru_maxrss: the counter VmHWM reads) of its processes, as reported to the small launcher process that started them; \"≤ x\" marks a peak that did not exceed the launcher's own (x), which exec carries into its child's ru_maxrss. Ratios are of median times; under 1, plmDCA is faster.\n\n")
	b.WriteString("| alignment | L | N | plmDCA | plmDCA peak MiB | EVfold mode | EVfold peak MiB | PSICOV mode | PSICOV peak MiB | plmDCA/PSICOV | plmDCA/EVfold |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range cs {
		var plm, ev, ps sideResult
		if s := c.side("plm"); s != nil {
			plm = *s
		}
		if s := c.side("freecontact-evfold"); s != nil {
			ev = *s
		}
		if s := c.side("freecontact-psicov"); s != nil {
			ps = *s
		}
		size, id, _ := strings.Cut(c.Name, "/")
		fmt.Fprintf(&b, "| %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", size, id, count(plm.L), count(plm.N),
			sec(plm.Median), peakCell(plm), sec(ev.Median), peakCell(ev), sec(ps.Median), peakCell(ps),
			ratio(plm.Median, ps.Median), ratio(plm.Median, ev.Median))
	}
	b.WriteString("\n")
	return b.String()
}

// coevoTargets are the Targets rows for each coevo case: plmDCA
// faster than freecontact's PSICOV mode, and within 2x its EVfold mode.
func (r *report) coevoTargets(ratioRow func(name, group, cfg, num, den string, limit float64, strict bool)) {
	for _, c := range r.Cases {
		if c.Group != "coevo" {
			continue
		}
		at := strings.Replace(c.Name, "/", " ", 1)
		ratioRow("plmDCA < 1.0x freecontact PSICOV mode ("+at+")", "coevo", c.Name, "plm", "freecontact-psicov", 1, true)
		ratioRow("plmDCA <= 2.0x freecontact EVfold mode ("+at+")", "coevo", c.Name, "plm", "freecontact-evfold", 2, false)
	}
}

func count(n int) string {
	if n <= 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// gcFirst collects the heap before a run of a task that asks for it
// (outside the timing).
func gcFirst(b built) {
	if b.gcFirst {
		runtime.GC()
	}
}
