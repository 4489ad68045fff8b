package scnn

import "github.com/contactmap/contactmap/scnn/internal/kern"

// chunkRows is the number of pixels (rows of C channels) per work item of
// the elementwise layers: fixed, so that sums combined chunk by chunk in
// order are the same whatever the number of goroutines.
const chunkRows = 2048

// forChunks calls fn(chunk, lo, hi) for the consecutive ranges [lo, hi) of
// chunkRows rows covering 0..rows-1, in parallel over the pass's workers.
func forChunks(p *Pass, rows int, fn func(chunk, lo, hi int)) {
	n := (rows + chunkRows - 1) / chunkRows
	kern.ParallelFor(n, p.workers(), func(_, item int) {
		lo := item * chunkRows
		fn(item, lo, min(lo+chunkRows, rows))
	})
}
