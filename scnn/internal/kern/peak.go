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
	t0 := time.Now()
	total := FMAWork(workers, n)
	return total / time.Since(t0).Seconds() / 1e9, isa
}

// FMAWork runs steps (at least 1) steps of FMAPeak's loop on each of
// workers goroutines (0: GOMAXPROCS) at once and returns the
// floating-point operations done, 0 in a build without the loop. Timed
// beside other work, it is the peak measured in the same moments (make
// bench's conv cases).
func FMAWork(workers, steps int) float64 {
	if _, isa := fmaLoop(1); isa == "" {
		return 0
	}
	flops := make([]float64, Workers(workers))
	var wg sync.WaitGroup
	for w := range flops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			flops[w], _ = fmaLoop(steps)
		}()
	}
	wg.Wait()
	total := 0.0
	for _, f := range flops {
		total += f
	}
	return total
}
