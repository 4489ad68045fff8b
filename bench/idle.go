package main

import "time"

// Settling between sides. A worker that has answered a run may still be
// running: PyTorch's OpenMP threads (libgomp's default wait policy) spin
// for about 10 ms of a core after each parallel call (measured), a
// threaded BLAS's threads may too, and a Go runtime's idle threads
// briefly. Left alone, that
// spin runs on the cores of the next side's first milliseconds: a narrow
// layer's burst of 5 runs takes 15 ms, the FMA loop 10 ms. So before the
// next side runs, settle waits until the worker that just ran is idle.

const (
	settlePoll = time.Millisecond // the interval between two readings
	// settleBusy: the worker is idle when its threads ran less than this
	// share of the time between two readings (a tenth of a core).
	settleBusy = 0.1
	settleMax  = 250 * time.Millisecond // give up waiting after this
)

// settle waits until process pid is idle (between two readings about
// settlePoll apart its threads ran under settleBusy of the time), at most
// settleMax, and returns how long it waited; 0 where the CPU time can't
// be read.
func settle(pid int) time.Duration {
	start := time.Now()
	prev, ok := cpuNanos(pid)
	if !ok {
		return 0
	}
	last := start
	for time.Since(start) < settleMax {
		time.Sleep(settlePoll)
		cur, ok := cpuNanos(pid)
		now := time.Now()
		if !ok {
			break
		}
		if float64(cur-prev) < settleBusy*float64(now.Sub(last)) {
			break
		}
		prev, last = cur, now
	}
	return time.Since(start)
}
