package main

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/contactmap/contactmap/internal/memavail"
	"github.com/contactmap/contactmap/models"
	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/pipeline/predict"
	"github.com/contactmap/contactmap/rna/fold"
	rnapredict "github.com/contactmap/contactmap/rna/predict"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// fakeMemory makes the memory available b bytes for the test.
func fakeMemory(t *testing.T, b int64) {
	t.Helper()
	old := memcheck.Available
	memcheck.Available = func() (memavail.Limit, error) {
		return memavail.Limit{Bytes: b, Source: "cgroup v2 /sys/fs/cgroup/test/memory.max"}, nil
	}
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { memcheck.Available = old; debug.SetMemoryLimit(prev) })
}

func randomProtein(n int, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	const aa = "ACDEFGHIKLMNPQRSTVWY"
	b := make([]byte, n)
	for i := range b {
		b[i] = aa[r.Intn(len(aa))]
	}
	return string(b)
}

// Before each chain, predict estimates its memory; a
// chain that does not fit in the memory available is skipped with the
// estimate, the memory available and its source, the others predicted,
// exit 1; --force predicts it anyway.
func TestPredictSkipsChainTooLarge(t *testing.T) {
	dir := t.TempDir()
	model := proteinModelFile(t, dir)
	ms, _, err := models.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	threads := runtime.GOMAXPROCS(0)
	short, _ := predict.Estimate(ms, 30, threads)
	long, _ := predict.Estimate(ms, 300, threads)
	fa := filepath.Join(dir, "two.fa")
	os.WriteFile(fa, []byte(">short\n"+randomProtein(30, 1)+"\n>long\n"+randomProtein(300, 2)+"\n"), 0o644)
	fakeMemory(t, (short+long)/2)
	out := filepath.Join(dir, "out")
	code, _, errOut := runCLI(t, "predict", "--model", model, "--out", out, "--format", "rr", fa)
	want := fmt.Sprintf("long: length 300 needs about %s of memory to predict, and %s is available (cgroup v2 /sys/fs/cgroup/test/memory.max): skipped (--force tries anyway)", memcheck.GiB(long), memcheck.GiB((short+long)/2))
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "1 of 2 inputs failed") {
		t.Errorf("exit %d, stderr:\n%s\nwant %q", code, errOut, want)
	}
	if !exists(filepath.Join(out, "short.rr")) || exists(filepath.Join(out, "long.rr")) {
		t.Error("short.rr missing or long.rr written")
	}
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", out, "--format", "rr", "--force", fa)
	if code != 0 || !exists(filepath.Join(out, "long.rr")) || !strings.Contains(errOut, "warning: long: length 300 needs about") {
		t.Errorf("--force: exit %d, stderr:\n%s", code, errOut)
	}
}

// Existing outputs and --strict skip their chain only: the others are
// predicted.
func TestPredictSkipsPerChain(t *testing.T) {
	dir := t.TempDir()
	model := proteinModelFile(t, dir)
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "old.rr"), []byte("mine"), 0o644)
	fa := filepath.Join(dir, "in.fa")
	os.WriteFile(fa, []byte(">old\n"+randomProtein(30, 1)+"\n>new\n"+randomProtein(30, 2)+"\n>gene\nATGGCGTACGTTAGCNNACGTAGCTAGCTAGGCTA\n"), 0o644)
	code, _, errOut := runCLI(t, "predict", "--model", model, "--out", out, "--format", "rr", "--strict", fa)
	if b, _ := os.ReadFile(filepath.Join(out, "old.rr")); code != 1 || string(b) != "mine" || !exists(filepath.Join(out, "new.rr")) || exists(filepath.Join(out, "gene.rr")) ||
		!strings.Contains(errOut, "2 of 3 inputs failed") || !strings.Contains(errOut, "old.rr exists") || !strings.Contains(errOut, "gene: 100% of its letters") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

// TestHelperPredict is the command run in a child process by
// TestPredictMemoryWithinEstimate (skipped otherwise).
func TestHelperPredict(t *testing.T) {
	args := os.Getenv("CONTACTMAP_HELPER_ARGS")
	if args == "" {
		t.Skip("a child process's command")
	}
	if b, err := strconv.ParseInt(os.Getenv("CONTACTMAP_HELPER_AVAIL"), 10, 64); err == nil {
		memcheck.Available = func() (memavail.Limit, error) { return memavail.Limit{Bytes: b, Source: "test"}, nil }
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// maxRSS runs the predict command in a child process, told that avail
// bytes are available, and returns its exit status and max RSS.
func maxRSS(t *testing.T, avail int64, args ...string) (int, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperPredict$")
	cmd.Env = append(os.Environ(), "CONTACTMAP_HELPER_ARGS="+strings.Join(args, "\n"), fmt.Sprintf("CONTACTMAP_HELPER_AVAIL=%d", avail), "GOMEMLIMIT=")
	outb, err := cmd.CombinedOutput()
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage here")
	}
	if err != nil {
		t.Logf("%s: %v\n%s", strings.Join(args, " "), err, outb)
	}
	return cmd.ProcessState.ExitCode(), ru.Maxrss << 10 // kB on Linux
}

// The estimate, with its margin for the garbage collector,
// holds the shipped default predictor's measured peak (max RSS) when the
// memory available is only the estimate: the soft memory limit set from
// it keeps the heap within it. And the ensemble's peak is its largest
// member's.
func TestPredictMemoryWithinEstimate(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("measures predictions of hundreds of residues in child processes (Linux)")
	}
	ms, _, err := models.Load(models.Default)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	seq := func(l int) string {
		p := filepath.Join(dir, fmt.Sprintf("r%d.fa", l))
		os.WriteFile(p, []byte(fmt.Sprintf(">r%d\n%s\n", l, randomProtein(l, int64(l)))), 0o644)
		return p
	}
	args := func(l int) []string {
		return []string{"predict", "--out", filepath.Join(dir, "out"), "--force", "--format", "npy", seq(l)}
	}
	_, base := maxRSS(t, 1<<40, args(20)...) // the process and the models, before any large chain
	for _, l := range []int{200, 400} {
		need, err := predict.Estimate(ms, l, runtime.GOMAXPROCS(0))
		if err != nil {
			t.Fatal(err)
		}
		code, rss := maxRSS(t, need, args(l)...)
		t.Logf("L = %d: max RSS %d MiB, base %d MiB + estimate %d MiB", l, rss>>20, base>>20, need>>20)
		if code != 0 || rss > base+need {
			t.Errorf("L = %d: exit %d, max RSS %d MiB over the base %d MiB plus the estimate %d MiB", l, code, rss>>20, base>>20, need>>20)
		}
	}
	// The ensemble's ten members run one after another over one set of
	// buffers: its peak is its largest member's (a CNN: its maps are
	// L x L, an SCNN's half that), not ten members' garbage, with no soft
	// memory limit to hold it. (Before the members shared their buffers:
	// 382 MiB against 180.)
	const l = 400
	big := int64(1) << 40
	codeE, ens := maxRSS(t, big, args(l)...)
	codeC, cnn := maxRSS(t, big, append([]string{"predict", "--model", "cnn"}, args(l)[1:]...)...)
	t.Logf("L = %d, no memory limit: max RSS %d MiB for the ensemble, %d MiB for one CNN", l, ens>>20, cnn>>20)
	if codeE != 0 || codeC != 0 || float64(ens) > 1.2*float64(cnn) {
		t.Errorf("L = %d: exit %d and %d, max RSS %d MiB for the ensemble, over 1.2 times one CNN's %d MiB", l, codeE, codeC, ens>>20, cnn>>20)
	}
}

// rna predict estimates each molecule's memory before predicting it:
// with the memory available between the estimates of a short and a long
// molecule, the long one is skipped with the estimate and the source,
// the short one predicted, exit 1; with --force both are predicted.
func TestRNAPredictSkipsMoleculeTooLarge(t *testing.T) {
	dir := t.TempDir()
	var specs []pairnet.Spec // the default's networks (an ensemble's members)
	for _, name := range models.RNAShipped().EnsembleMembers(models.DefaultRNA) {
		rm, _, err := models.LoadRNA(name)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, rm.Net.Spec)
	}
	short, long := 40, 400
	need := func(l int) int64 {
		n, err := memcheck.Estimate(specs, l, 1, 32*int64(l)*int64(l))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	fakeMemory(t, (need(short)+need(long))/2)
	seq := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ACGU"[(i*7+i/3)%4]
		}
		return string(b)
	}
	fa := filepath.Join(dir, "in.fa")
	os.WriteFile(fa, []byte(">short\n"+seq(short)+"\n>long\n"+seq(long)+"\n"), 0o644)
	code, _, errOut := runCLI(t, "rna", "predict", "--workers", "1", "--format", "bpseq", "--out", filepath.Join(dir, "a"), fa)
	if code != 1 || !strings.Contains(errOut, "long: length 400 needs about") || !strings.Contains(errOut, "memory.max") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "short.bpseq")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "long.bpseq")); err == nil {
		t.Error("the long molecule was predicted")
	}
	code, _, errOut = runCLI(t, "rna", "predict", "--workers", "1", "--format", "bpseq", "--force", "--out", filepath.Join(dir, "b"), fa)
	if code != 0 || !strings.Contains(errOut, "anyway") {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
}

// TestHelperRLIMIT is the command run in a child process by
// TestPredictRefusesUnderRLIMIT_AS (skipped otherwise): it lowers its own
// RLIMIT_AS to its virtual size plus CONTACTMAP_HELPER_AS_ROOM bytes, as
// prlimit --as does, and runs the command line.
func TestHelperRLIMIT(t *testing.T) {
	args, room := os.Getenv("CONTACTMAP_HELPER_ARGS"), os.Getenv("CONTACTMAP_HELPER_AS_ROOM")
	if args == "" || room == "" {
		t.Skip("a child process's command")
	}
	b, err := strconv.ParseUint(room, 10, 64)
	status, err2 := os.ReadFile("/proc/self/status")
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	var vmKB uint64
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			vmKB, _ = strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_AS, &lim)
	lim.Cur = min(vmKB<<10+b, lim.Max)
	if vmKB == 0 || syscall.Setrlimit(syscall.RLIMIT_AS, &lim) != nil {
		t.Fatal("cannot set RLIMIT_AS")
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// Under RLIMIT_AS (prlimit --as=3000000000), a chain whose
// estimate exceeds the address space left was let through and the
// process died of the Go runtime's out-of-memory abort, exit 2 (the
// usage-error status); it is refused with the estimate, the limit and
// --force, exit 1.
func TestPredictRefusesUnderRLIMIT_AS(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("a child process under RLIMIT_AS (Linux)")
	}
	dir := t.TempDir()
	fa := filepath.Join(dir, "long.fa")
	os.WriteFile(fa, []byte(">long\n"+randomProtein(3000, 5)+"\n"), 0o644)
	args := []string{"predict", "--out", filepath.Join(dir, "out"), "--format", "rr", fa}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRLIMIT$")
	cmd.Env = append(os.Environ(), "CONTACTMAP_HELPER_ARGS="+strings.Join(args, "\n"), "CONTACTMAP_HELPER_AS_ROOM=1500000000", "GOMEMLIMIT=")
	out, _ := cmd.CombinedOutput()
	want := regexp.MustCompile(`long: length 3000 needs about [0-9.]+ GiB of memory to predict, and [0-9.]+ GiB is available \(RLIMIT_AS \(ulimit -v\)\): skipped \(--force tries anyway\)`)
	if code := cmd.ProcessState.ExitCode(); code != 1 || !want.Match(out) {
		t.Errorf("exit %d, want 1 with %s; output:\n%.3000s", code, want, out)
	}
}

// rna predict's mfe, centroid and mea-pf methods are estimated
// (fold.MemoryEstimate) before they allocate (without an estimate a
// 100,000-nt fold died of the Go runtime's out-of-memory abort): the
// long molecule is refused with the method, the estimate
// and the memory available, the short one folded, exit 1; --force folds
// both.
func TestRNAFoldSkipsMoleculeTooLarge(t *testing.T) {
	dir := t.TempDir()
	fa := filepath.Join(dir, "in.fa")
	r := rand.New(rand.NewSource(57))
	seq := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ACGU"[r.Intn(4)]
		}
		return string(b)
	}
	os.WriteFile(fa, []byte(">short\n"+seq(60)+"\n>long\n"+seq(300)+"\n"), 0o644)
	fmts := []ssnet.Format{ssnet.BPSEQ}
	for _, c := range []struct {
		method string
		m      fold.Method
	}{{"mfe", fold.MethodMFE}, {"centroid", fold.MethodCentroid}, {"mea-pf", fold.MethodMEA}} {
		need := func(l int) int64 {
			return memcheck.Factor * (fold.MemoryEstimate(c.m, l, 0) + rnapredict.FoldExtra(l, fmts))
		}
		fakeMemory(t, (need(60)+need(300))/2)
		out := filepath.Join(dir, c.method)
		code, _, errOut := runCLI(t, "rna", "predict", "--method", c.method, "--format", "bpseq", "--out", out, fa)
		want := fmt.Sprintf("long: %s of 300 nt needs about %s of memory, and %s is available (cgroup v2 /sys/fs/cgroup/test/memory.max): skipped (--force tries anyway)",
			c.method, memcheck.GiB(need(300)), memcheck.GiB((need(60)+need(300))/2))
		if code != 1 || !strings.Contains(errOut, want) || !exists(filepath.Join(out, "short.bpseq")) || exists(filepath.Join(out, "long.bpseq")) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %q", c.method, code, errOut, want)
		}
		code, _, errOut = runCLI(t, "rna", "predict", "--method", c.method, "--format", "bpseq", "--force", "--out", out, fa)
		if code != 0 || !exists(filepath.Join(out, "long.bpseq")) || !strings.Contains(errOut, "warning: long: "+c.method+" of 300 nt needs about") {
			t.Errorf("%s --force: exit %d, stderr:\n%s", c.method, code, errOut)
		}
	}
}
