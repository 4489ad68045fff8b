package fold

import (
	"context"
	"math/rand"
	"runtime"
	"testing"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc).
func allocated(f func()) int64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return int64(b.TotalAlloc - a.TotalAlloc)
}

func randomRNA(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "ACGU"[r.Intn(4)]
	}
	return string(b)
}

// MemoryEstimate holds the peak of each method's measured
// allocations on random sequences of 200 to 600 nt, and is not far above
// them. The MFE fold's allocations are all live together: the estimate
// holds them, within 10% and 64 KiB. The partition function's peak is its
// own tables after the MFE fold's are garbage: the estimate holds what
// Partition allocates after its fold, the fold's, and at most everything
// Partition allocates (both phases at once, 1.5 times the peak and more).
// Centroid and MEA add their own allocations, with the Ensemble live.
func TestMemoryEstimateMeasured(t *testing.T) {
	r := rand.New(rand.NewSource(57))
	for _, span := range []int{0, 150} {
		p := DefaultParams().WithMaxSpan(span)
		for _, n := range []int{200, 400, 600} {
			seq := randomRNA(r, n)
			var err error
			mfe := allocated(func() { _, _, err = p.Fold(seq, 1) })
			if err != nil {
				t.Fatal(err)
			}
			var e *Ensemble
			part := allocated(func() { e, err = p.Partition(seq, 1) })
			if err != nil {
				t.Fatal(err)
			}
			bonus := allocated(func() {
				_, err = p.PartitionBonus(context.Background(), seq, func(i, j int) float64 { return 0.5 }, 1)
			})
			if err != nil {
				t.Fatal(err)
			}
			cent := allocated(func() { e.Centroid() })
			mea := allocated(func() { _, _, err = e.MEA(1) })
			if err != nil {
				t.Fatal(err)
			}
			est := func(m Method) int64 { return p.MemoryEstimate(m, n, span) }
			if e := est(MethodPartitionBonus); e < bonus-mfe || e > bonus || e <= est(MethodPartition) {
				t.Errorf("n %d, span %d: partition-with-bonuses estimate %d, measured %d after its fold's %d (partition's estimate %d)", n, span, e, bonus-mfe, mfe, est(MethodPartition))
			}
			t.Logf("n %d, span %d: mfe %d <= %d; partition %d (%d after its fold) <= %d; centroid +%d, mea +%d <= +%d",
				n, span, mfe, est(MethodMFE), part, part-mfe, est(MethodPartition), cent, mea, est(MethodMEA)-est(MethodPartition))
			if e := est(MethodMFE); e < mfe || float64(e) > 1.1*float64(mfe)+64<<10 {
				t.Errorf("n %d, span %d: MFE estimate %d, measured %d", n, span, e, mfe)
			}
			if e := est(MethodPartition); e < part-mfe || e < mfe || e > part {
				t.Errorf("n %d, span %d: partition estimate %d, measured %d after its fold's %d", n, span, e, part-mfe, mfe)
			}
			if d := est(MethodCentroid) - est(MethodPartition); d < cent || est(MethodCentroid) > part+cent {
				t.Errorf("n %d, span %d: centroid estimate %d over the partition's, measured %d", n, span, d, cent)
			}
			if d := est(MethodMEA) - est(MethodPartition); d < mea || est(MethodMEA) > part+mea+4*d {
				t.Errorf("n %d, span %d: MEA estimate %d over the partition's, measured %d", n, span, d, mea)
			}
		}
	}
}

// The span limit's bands: O(n W) in place of O(n^2), and the global
// estimate for a span of n or more, or none.
func TestMemoryEstimateSpan(t *testing.T) {
	for _, m := range []Method{MethodMFE, MethodPartition, MethodCentroid, MethodMEA, MethodPartitionBonus} {
		global := MemoryEstimate(m, 1000, 0)
		if MemoryEstimate(m, 1000, 1000) != global || MemoryEstimate(m, 1000, 5000) != global || MemoryEstimate(m, 1000, -1) != global {
			t.Errorf("%v: a span of n or more, or none, is not the global fold's estimate", m)
		}
		local := MemoryEstimate(m, 50000, 200)
		if local > 1<<30 || local >= MemoryEstimate(m, 50000, 0)/50 {
			t.Errorf("%v: %d bytes for 50,000 nt with span 200", m, local)
		}
	}
	// 20,000 nt: the MFE's four int32 tables, about 6 GB.
	if got := MemoryEstimate(MethodMFE, 20000, 0); got < 16*20002*20002 || got > 16*20002*20002+4<<20 {
		t.Errorf("MFE at 20,000 nt: %d bytes", got)
	}
	if MemoryEstimate(MethodPartition, 1<<30, 0) <= 0 {
		t.Error("overflow at 2^30 nt")
	}
}
