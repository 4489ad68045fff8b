package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/potts"
)

// touchEnv makes the test binary, started by TestMaxRSSOfChild, touch
// that many MiB, print "ok" and exit instead of running the tests.
const touchEnv = "CONTACTMAP_BENCH_TEST_TOUCH_MIB"

// workerEnv makes the test binary, started by a runner as its Go worker
// (TestRunKeepsSideFLOPs), serve as the worker subcommand.
const workerEnv = "CONTACTMAP_BENCH_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" && len(os.Args) > 1 && os.Args[1] == "worker" {
		if err := workerMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if v := os.Getenv(touchEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		b := make([]byte, n<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Println("ok", len(b))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The coevo cases: one per bundled family (small, medium, large), before
// the fold cases, plmDCA and freecontact's two modes where freecontact is
// found, plmDCA alone where it is not; never a PyTorch or OpenBLAS side.
// -only '^coevo/' selects exactly them.
func TestCoevoCases(t *testing.T) {
	threads := strconv.Itoa(gomaxprocs())
	for _, fc := range []string{"/usr/bin/freecontact", ""} {
		all := cases(true, true, "data", fc, "")
		var names []string
		seenFold := false
		re := regexp.MustCompile("^coevo/")
		for _, c := range all {
			seenFold = seenFold || c.Group == "fold"
			if re.MatchString(c.Group+"/"+c.Name) != (c.Group == "coevo") {
				t.Errorf("-only '^coevo/' and case %s/%s disagree", c.Group, c.Name)
			}
			if c.Group != "coevo" {
				continue
			}
			if seenFold {
				t.Errorf("coevo/%s after a fold case", c.Name)
			}
			names = append(names, c.Name)
			size, id, _ := strings.Cut(c.Name, "/")
			var labels []string
			for _, s := range c.Sides {
				labels = append(labels, s.Label)
				if s.Torch || s.OpenBLAS {
					t.Errorf("coevo/%s: side %+v", c.Name, s)
				}
				if want := filepath.Join("data", "aln", id+".aln.gz"); s.Task.Alignment != want {
					t.Errorf("coevo/%s %s: alignment %q, want %q", c.Name, s.Label, s.Task.Alignment, want)
				}
				switch s.Label {
				case "plm":
					if s.Task.Kind != "plm" || len(s.Task.Command) != 0 {
						t.Errorf("coevo/%s: plm task %+v", c.Name, s.Task)
					}
				default:
					mode := strings.TrimPrefix(s.Label, "freecontact-")
					want := []string{fc, "--parprof", mode, "--threads", threads}
					if s.Task.Kind != "exec" || !slices.Equal(s.Task.Command, want) {
						t.Errorf("coevo/%s %s: task %+v, want exec %v", c.Name, s.Label, s.Task, want)
					}
				}
			}
			want := []string{"plm"}
			if fc != "" {
				want = append(want, "freecontact-evfold", "freecontact-psicov")
			}
			if !slices.Equal(labels, want) {
				t.Errorf("coevo/%s (freecontact %q): sides %v, want %v", c.Name, fc, labels, want)
			}
			if reps := c.MaxReps; (size == "small") != (reps == 0) || c.NoWarmup {
				t.Errorf("coevo/%s: MaxReps %d NoWarmup %v", c.Name, reps, c.NoWarmup)
			}
		}
		if want := []string{"small/1brfA", "medium/1bebA", "large/1ql0A"}; !slices.Equal(names, want) {
			t.Errorf("coevo cases %v, want %v", names, want)
		}
	}

	// The workers' command lines.
	r := runner{Self: "bench", Python: "python3", Script: "torch_ref.py"}
	cs := coevoCases("data", "/usr/bin/freecontact")
	cmd, err := r.command(cs[0].Sides[1])
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(cmd.Args, " ")
	if want := "--task exec"; !strings.Contains(args, want) {
		t.Errorf("exec worker %q lacks %q", args, want)
	}
	if want := "--alignment data/aln/1brfA.aln.gz -- /usr/bin/freecontact --parprof evfold --threads " + threads; !strings.HasSuffix(args, want) {
		t.Errorf("exec worker %q does not end with %q", args, want)
	}
	if !slices.Contains(cmd.Env, "OPENBLAS_NUM_THREADS="+threads) && os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		t.Errorf("exec worker's environment has no OPENBLAS_NUM_THREADS=%s", threads)
	}
	cmd, err = r.command(cs[0].Sides[0])
	if err != nil {
		t.Fatal(err)
	}
	if args := strings.Join(cmd.Args, " "); !strings.Contains(args, "--task plm") || !strings.HasSuffix(args, "--alignment data/aln/1brfA.aln.gz") {
		t.Errorf("plm worker %q", args)
	}
	for _, s := range cs[0].Sides {
		s.Torch = true
		if _, err := r.command(s); err == nil {
			t.Errorf("a PyTorch %s worker was started", s.Task.Kind)
		}
	}
}

// The bundled families are what coevo.go says: L near 50, 150 and 250.
func TestCoevoAlignments(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data", "psicov150")
	want := map[string][2]int{"1brfA": {53, 1395}, "1bebA": {156, 1577}, "1ql0A": {241, 1297}}
	for _, a := range coevoAlignments {
		aln, err := msa.ReadFile(coevoPath(dir, a.ID))
		if os.IsNotExist(err) {
			t.Skipf("no PSICOV data: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]int{aln.L(), aln.N()}; got != want[a.ID] {
			t.Errorf("%s %s: L, N = %v, want %v", a.Size, a.ID, got, want[a.ID])
		}
	}
}

// tinyAlignment writes a gzipped PSICOV alignment of n rows of the query
// with some letters changed.
func tinyAlignment(t *testing.T, query string, n int) string {
	path := filepath.Join(t.TempDir(), "tiny.aln.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	const alpha = "ACDEFGHIKLMNPQRSTVWY-"
	for k := 0; k < n; k++ {
		row := []byte(query)
		if k > 0 {
			for i := range row {
				if (i*7+k*3)%5 == 0 {
					row[i] = alpha[(i*k+k)%len(alpha)]
				}
			}
		}
		fmt.Fprintf(z, "%s\n", row)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// talk runs a worker on the commands and returns its replies, and the
// error it ended with.
func talk(t *testing.T, tk task, commands string) ([]workerReply, error) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := runWorker(tk, strings.NewReader(commands), pw)
		pw.Close()
		done <- err
	}()
	var replies []workerReply
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		var r workerReply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("reply %q: %v", sc.Text(), err)
		}
		replies = append(replies, r)
	}
	return replies, <-done
}

// The plm worker reports its alignment's L and N and times potts.Predict;
// the exec worker gives the command the plain text of its alignment on
// stdin, fails where the command fails or writes nothing, and reports
// its children's peak with its own as the floor. Both leave no
// temporary file.
func TestCoevoWorkers(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const query = "ACDEFGHIKLMNPQ"
	aln := tinyAlignment(t, query, 30)

	replies, err := talk(t, task{Kind: "plm", Alignment: aln}, "run\nmem\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(replies) != 3 {
		t.Fatalf("plm: %d replies, want 3: %+v", len(replies), replies)
	}
	if r := replies[0]; !r.Ready || r.L != len(query) || r.N != 30 || r.Params != int(potts.NumParams(len(query))) {
		t.Errorf("plm ready reply %+v, want L %d, N 30, %d parameters", r, len(query), potts.NumParams(len(query)))
	}
	if replies[1].Seconds <= 0 || replies[2].PeakRSS <= 0 || replies[2].PeakFloor != 0 {
		t.Errorf("plm replies %+v", replies[1:])
	}

	// The first line of the plain text is the query.
	check := []string{"/bin/sh", "-c", `read q; [ "$q" = "` + query + `" ] && echo ok`}
	replies, err = talk(t, task{Kind: "exec", Alignment: aln, Command: check}, "run\nrun\nmem\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(replies) != 4 {
		t.Fatalf("exec: %d replies, want 4: %+v", len(replies), replies)
	}
	if r := replies[0]; !r.Ready || r.Version != strings.Join(check, " ") {
		t.Errorf("exec ready reply %+v", r)
	}
	if replies[1].Seconds <= 0 || replies[2].Seconds <= 0 {
		t.Errorf("exec runs without a time: %+v", replies[1:3])
	}
	// sh's own peak is far below this test process's, which exec folds
	// into the child's ru_maxrss: the peak is at most the floor.
	if m := replies[3]; m.PeakRSS <= 0 || m.PeakFloor <= 0 || m.PeakRSS > m.PeakFloor {
		t.Errorf("exec mem reply %+v: want 0 < peak <= floor", m)
	}

	for _, tc := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"/bin/sh", "-c", "cat >/dev/null"}, "wrote nothing"},
		{[]string{"/bin/sh", "-c", `read q; [ "$q" = "WRONG" ] && echo ok`}, "exit status 1"},
		{[]string{"/bin/sh", "-c", "echo boom >&2; exit 3"}, "boom"},
		{[]string{filepath.Join(tmp, "no-such-program")}, "no-such-program"},
	} {
		_, err := talk(t, task{Kind: "exec", Alignment: aln, Command: tc.cmd}, "run\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one with %q", tc.cmd, err, tc.want)
		}
	}
	// With Outputs (the predictor cases: contactmap predict writes its
	// summary to standard error), a silent command that writes into the
	// directory passes and one that writes nothing there fails.
	outs := filepath.Join(tmp, "outs")
	if err := os.Mkdir(outs, 0o755); err != nil {
		t.Fatal(err)
	}
	// A stale file from an earlier run does not count.
	if err := os.WriteFile(filepath.Join(outs, "stale"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := talk(t, task{Kind: "exec", Command: []string{"/bin/sh", "-c", "true"}, Outputs: outs}, "run\n"); err == nil || !strings.Contains(err.Error(), "wrote nothing into") {
		t.Errorf("a command that wrote no outputs (a stale file there): %v", err)
	}
	if _, err := talk(t, task{Kind: "exec", Command: []string{"/bin/sh", "-c", "echo x > " + outs + "/a; echo note >&2"}, Outputs: outs}, "run\n"); err != nil {
		t.Errorf("a silent command with outputs: %v", err)
	}
	os.RemoveAll(outs)
	for _, tk := range []task{{Kind: "exec"}, {Kind: "plm"}, {Kind: "plm", Alignment: filepath.Join(tmp, "none.aln")}} {
		if _, err := talk(t, tk, ""); err == nil {
			t.Errorf("task %+v accepted", tk)
		}
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		t.Errorf("temporary file left: %s", e.Name())
	}
}

// A child's ru_maxrss, in bytes: a child that touches more memory than
// this process ever held reports its own peak (above the floor), within
// its Go runtime's few MiB of what it touched.
func TestMaxRSSOfChild(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	floor := procStatus("VmHWM")
	if floor <= 0 {
		t.Skip("no /proc/self/status VmHWM")
	}
	touch := floor>>20 + 48
	t.Setenv(touchEnv, strconv.FormatInt(touch, 10))
	replies, err := talk(t, task{Kind: "exec", Command: []string{self}}, "run\nmem\n")
	if err != nil {
		t.Fatal(err)
	}
	m := replies[len(replies)-1]
	if m.PeakRSS < touch<<20 || m.PeakRSS > (touch+40)<<20 {
		t.Errorf("child touching %d MiB: peak %d bytes (%.1f MiB)", touch, m.PeakRSS, float64(m.PeakRSS)/(1<<20))
	}
	if m.PeakRSS <= m.PeakFloor {
		t.Errorf("peak %d at or below the floor %d", m.PeakRSS, m.PeakFloor)
	}
	if got := peakCell(sideResult{PeakRSS: m.PeakRSS, PeakFloor: m.PeakFloor}); got != mib(m.PeakRSS) {
		t.Errorf("peak cell %q, want %q", got, mib(m.PeakRSS))
	}
}

// The coevo table: a row per family with L, N, each side's median time
// and peak, the ratios; "≤" for a peak at the launcher's floor; the
// targets from the same numbers; freecontact's absence said, its columns
// "-", its targets not measured.
func TestReportCoevo(t *testing.T) {
	sd := func(label string, peak, floor int64, secs ...float64) sideResult {
		return sideResult{Label: label, Median: median(secs), Seconds: secs, PeakRSS: peak, PeakFloor: floor}
	}
	plm := func(l, n int, peak int64, secs ...float64) sideResult {
		s := sd("plm", peak, 0, secs...)
		s.L, s.N = l, n
		return s
	}
	r := report{Reps: 3, Warmup: 1, Machine: machine{Threads: 2, FreeContact: "1.0.21"}, Cases: []caseResult{
		{Group: "coevo", Name: "small/1brfA", Sides: []sideResult{
			plm(53, 1395, 40<<20, 1.0, 1.2, 0.8),
			sd("freecontact-evfold", 18<<20, 20<<20, 0.5, 0.5, 0.5),
			sd("freecontact-psicov", 30<<20, 20<<20, 2.0, 2.5, 1.5)}},
		{Group: "coevo", Name: "large/1ql0A", Sides: []sideResult{
			plm(241, 1297, 2300<<20, 30, 30, 30),
			sd("freecontact-evfold", 200<<20, 20<<20, 10, 20, 12),
			sd("freecontact-psicov", 900<<20, 20<<20, 20, 40, 60)}},
	}}
	md := r.markdown()
	for _, want := range []string{
		"## Coevolution: plmDCA beside freecontact (EVfold and PSICOV modes)\n",
		"on 2 goroutines (GOMAXPROCS)",
		"freecontact 1.0.21: `freecontact --parprof evfold`",
		"`--threads 2` (the same cores as plmDCA; OPENBLAS_NUM_THREADS=2 for its BLAS)",
		"| alignment | L | N | plmDCA | plmDCA peak MiB | EVfold mode | EVfold peak MiB | PSICOV mode | PSICOV peak MiB | plmDCA/PSICOV | plmDCA/EVfold |\n",
		"| small 1brfA | 53 | 1395 | 1.00 s | 40 | 500 ms | ≤ 20 | 2.00 s | 30 | 0.50 | 2.00 |\n",
		"| large 1ql0A | 241 | 1297 | 30.00 s | 2300 | 12.00 s | 200 | 40.00 s | 900 | 0.75 | 2.50 |\n",
		// Rounds: 1/2, 1.2/2.5, 0.8/1.5.
		"| plmDCA < 1.0x freecontact PSICOV mode (small 1brfA) | 0.50x | 0.48-0.53 | yes | yes |\n",
		// 1/0.5, 1.2/0.5, 0.8/0.5: the median meets 2 (not strictly), one round does not.
		"| plmDCA <= 2.0x freecontact EVfold mode (small 1brfA) | 2.00x | 1.60-2.40 | yes | no |\n",
		// 30/20, 30/40, 30/60.
		"| plmDCA < 1.0x freecontact PSICOV mode (large 1ql0A) | 0.75x | 0.50-1.50 | yes | no |\n",
		"| plmDCA <= 2.0x freecontact EVfold mode (large 1ql0A) | 2.50x | 1.50-3.00 | no | no |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if i, j := strings.Index(md, "## Coevolution"), strings.Index(md, "## Targets"); i < 0 || j < i {
		t.Error("the coevo table is not before the targets")
	}
	if strings.Contains(md, "not found") || strings.Contains(md, "## Skipped") {
		t.Errorf("a run with freecontact says it is missing:\n%s", md)
	}

	// freecontact missing: plmDCA alone, a note, and no verdict.
	r = report{Reps: 1, Machine: machine{Threads: 2}, Notes: []string{"coevo/large/1ql0A skipped: its alignment is missing"}, Cases: []caseResult{
		{Group: "coevo", Name: "small/1brfA", Sides: []sideResult{plm(53, 1395, 40<<20, 1.0)}}}}
	md = r.markdown()
	for _, want := range []string{
		"**freecontact was not found on this machine",
		"| small 1brfA | 53 | 1395 | 1.00 s | 40 | - | - | - | - | - | - |\n",
		"| plmDCA < 1.0x freecontact PSICOV mode (small 1brfA) | - | - | not measured | - |\n",
		"## Skipped\n\n- coevo/large/1ql0A skipped: its alignment is missing\n",
		"default build: its own sgemm, 2 goroutines",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report without freecontact lacks %q:\n%s", want, md)
		}
	}

	// No coevo case: no section, no coevo targets.
	r.Cases, r.Notes = nil, nil
	if md := r.markdown(); strings.Contains(md, "Coevolution") || strings.Contains(md, "plmDCA") {
		t.Errorf("a run without coevo cases mentions them:\n%s", md)
	}
}
