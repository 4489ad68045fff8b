package kern

import (
	"math/bits"
	"sync"
)

// scratch recycles the workspaces of the kernels (im2col tiles,
// output-side Z bands, the sgemm's packed panels) between calls, so that a
// forward pass does not leave one per layer and worker for the garbage
// collector. Their contents are overwritten before use, never read stale.
//
// There is one pool per power-of-two capacity: a request takes a buffer
// of its own class, which always fits. (With one pool for all sizes, a
// request that drew a too-small buffer put it back and allocated, and the
// pool grew with every such miss until the next collection: 2.07 GiB
// instead of 1.23 GiB max RSS for one L = 2,000 prediction.)
var scratch [64]sync.Pool

// getScratch returns a workspace of n floats (contents undefined).
func getScratch(n int) []float32 {
	if n == 0 {
		return nil
	}
	c := bits.Len(uint(n - 1)) // 2^c >= n
	if v, ok := scratch[c].Get().(*[]float32); ok {
		return (*v)[:n]
	}
	return make([]float32, n, 1<<c)
}

// putScratch gives workspaces back for later calls. Slices that did not
// come from getScratch are dropped unless their capacity is a power of two.
func putScratch(bufs ...[]float32) {
	for _, b := range bufs {
		n := cap(b)
		if n == 0 || n&(n-1) != 0 {
			continue
		}
		b = b[:n]
		scratch[bits.Len(uint(n-1))].Put(&b)
	}
}
