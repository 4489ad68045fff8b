package kern

import (
	"runtime"
	"sync"
)

// Workers returns w if w > 0, otherwise GOMAXPROCS.
func Workers(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}

// ParallelFor runs fn(worker, item) for item = 0..n-1 on workers goroutines.
// Items are dealt statically, item i to worker i%workers, each worker in
// increasing item order, so anything a worker accumulates is the same on
// every run with the same worker count.
func ParallelFor(n, workers int, fn func(worker, item int)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(0, i)
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				fn(w, i)
			}
		}(w)
	}
	wg.Wait()
}
