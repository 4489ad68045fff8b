package kern

import (
	"sync"
	"time"
)

// FMAPeak measures the float32 FMA throughput of the machine: every one
// of workers goroutines runs a loop of independent fused multiply-adds on
// the widest vectors the CPU has (AVX-512 or AVX2) for about d, and the
// operations of all are divided by the longest one's time. It returns
// GFLOP/s and the instruction set, or 0 and "" when this build has no
// such loop (non-amd64, purego).
func FMAPeak(workers int, d time.Duration) (gflops float64, isa string) {
	if _, isa = fmaLoop(1); isa == "" {
		return 0, ""
	}
	// Calibrate the steps of one worker for d.
	n := 1 << 16
	for {
		t0 := time.Now()
		fmaLoop(n)
		if el := time.Since(t0); el > d/10 {
			n = int(float64(n) * float64(d) / float64(el))
			break
		}
		n *= 4
	}
	workers = Workers(workers)
	flops := make([]float64, workers)
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := range flops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			flops[w], _ = fmaLoop(n)
		}()
	}
	wg.Wait()
	el := time.Since(t0).Seconds()
	total := 0.0
	for _, f := range flops {
		total += f
	}
	return total / el / 1e9, isa
}
