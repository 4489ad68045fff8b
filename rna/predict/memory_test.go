package predict

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/memavail"
	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/rna/fold"
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

// A fold refused says what would fit: --max-span 200, a --format without
// png, or both (20,000 nt in 1 GiB); nothing where nothing would.
func TestCheckRNAMemoryHints(t *testing.T) {
	fakeMemory(t, 1<<30)
	bp, png := []ssnet.Format{ssnet.BPSEQ}, []ssnet.Format{ssnet.BPSEQ, ssnet.PNG}
	for _, c := range []struct {
		method  string
		l, span int
		formats []ssnet.Format
		want    string
	}{
		{"mfe", 20000, 0, bp, "skipped (--max-span 200 folds it in about 0.12 GiB; --force tries anyway)"},
		{"mfe", 20000, 0, png, "skipped (--max-span 200 and a --format without png fold it in about 0.12 GiB; --force tries anyway)"},
		{"centroid", 20000, 200, png, "skipped (a --format without png folds it in about 0.50 GiB; --force tries anyway)"},
		{"mea-pf", 200000, 200, bp, "skipped (--force tries anyway)"},
		// consensus folds by a rule of its own (ssnet.ConsensusFold), so
		// --max-span is no hint and changes nothing; its dense maps do not fit.
		{"consensus", 20000, 0, bp, "skipped (--force tries anyway)"},
		{"consensus", 20000, 200, bp, "skipped (--force tries anyway)"},
	} {
		_, err := CheckFoldMemory(c.method, c.l, c.span, c.formats, false)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || !strings.HasPrefix(err.Error(), fmt.Sprintf("%s of %d nt needs about", c.method, c.l)) {
			t.Errorf("%s of %d nt, span %d, %v: %v, want ...%s", c.method, c.l, c.span, c.formats, err, c.want)
		}
	}
	if w, err := CheckFoldMemory("mfe", 20000, 0, bp, true); err != nil || !strings.HasSuffix(w, "folding it anyway (--force)") {
		t.Errorf("--force: %q, %v", w, err)
	}
	if w, err := CheckFoldMemory("consensus", 600, 0, png, false); err != nil || w != "" {
		t.Errorf("consensus of 600 nt in 1 GiB: %q, %v", w, err)
	}
	if w, err := CheckFoldMemory("network", 20000, 0, bp, false); err != nil || w != "" {
		t.Errorf("network: %q, %v", w, err)
	}
}

// A hybrid network's fold (ssnet.HybridProbabilities) is counted in the
// run's memory: of the bytes it allocates for a 300-nt molecule in one
// pass (bonuses 0, no rescaling), globally and in the 200-nt band, all
// but its MFE fold's (whose tables are garbage before the partition
// function's are made) are under what networkExtra adds for it.
func TestNetworkExtraHybrid(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 300)
	for i := range b {
		b[i] = "ACGU"[r.IntN(4)]
	}
	seq, n := string(b), len(b)
	p := make([]float32, n*n)
	for k := range p {
		p[k] = 0.5 // bonus 0: one pass
	}
	for _, f := range []ssnet.EnsembleFold{{Global: 600}, {}} { // global, then the 200-nt band
		// once before, so that what the first call builds once per
		// process (the default parameters' tables) is not counted
		if _, err := ssnet.HybridProbabilities(context.Background(), seq, p, 1, f.Span(n), 1); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := ssnet.HybridProbabilities(context.Background(), seq, p, 1, f.Span(n), 1); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		used := int64(after.TotalAlloc - before.TotalAlloc)
		counted := networkExtra(n, 1, false, nil, []ssnet.EnsembleFold{f}) - networkExtra(n, 1, false, nil, nil)
		t.Logf("span %d: allocated %d, counted %d", f.Span(n), used, counted)
		mfe := fold.MemoryEstimate(fold.MethodMFE, n, f.Span(n))
		if counted < used-mfe || counted > used {
			t.Errorf("span %d: the hybrid fold allocates %d bytes (%d of them its MFE fold's, estimated), networkExtra counts %d", f.Span(n), used, mfe, counted)
		}
	}
}
