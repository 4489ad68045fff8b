package potts

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
)

// EstimateMemory is the peak a fit reaches: a child process fits a
// PSICOV family (1brfA: L 53, N 1,395; 1bebA: L 156, N 1,577, with
// CONTACTMAP_PLM_PEAK=1bebA) and reports its peak resident set
// (VmHWM, the Go runtime and the alignment included), which must lie
// within 15% of the estimate. Skipped where the shared data are absent.
func TestEstimateMemoryMatchesPeak(t *testing.T) {
	id := os.Getenv("CONTACTMAP_PLM_PEAK")
	if id == "" {
		id = "1brfA"
	}
	path := "../../../shared/data/psicov150/aln/" + id + ".aln.gz"
	if os.Getenv("POTTS_PEAK_CHILD") == "1" {
		a, err := msa.ReadFile(path)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		if _, err := Fit(a, Options{Threads: 2}); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("peak", vmHWM(), a.L(), a.N())
		os.Exit(0)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEstimateMemoryMatchesPeak$")
	cmd.Env = append(os.Environ(), "POTTS_PEAK_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	var peak int64
	var l, n int
	if _, err := fmt.Sscanf(string(bytes.TrimSpace(out)), "peak %d %d %d", &peak, &l, &n); err != nil {
		t.Fatalf("child said %q: %v", out, err)
	}
	est := EstimateMemory(l, n, Options{Threads: 2})
	t.Logf("%s (L %d, N %d): peak %d MiB, estimate %d MiB", id, l, n, peak>>20, est>>20)
	if r := float64(peak) / float64(est); r < 0.85 || r > 1.15 {
		t.Errorf("peak %d MiB is %.2fx the estimate %d MiB", peak>>20, r, est>>20)
	}
}

// vmHWM returns this process's peak resident set in bytes.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return -1
}
