package predict

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/memavail"
	"github.com/contactmap/contactmap/pairnet/memcheck"
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
