package kern

import "sync"

// scratch recycles the large workspaces of the convolution kernels (im2col
// tiles, output-side Z bands) between calls, so that a forward pass does
// not leave one per layer and worker for the garbage collector. Their
// contents are overwritten before use, never read stale.
var scratch sync.Pool

// getScratch returns a workspace of n floats (contents undefined).
func getScratch(n int) []float32 {
	if v, ok := scratch.Get().(*[]float32); ok {
		if cap(*v) >= n {
			return (*v)[:n]
		}
		scratch.Put(v)
	}
	return make([]float32, n)
}

// putScratch gives workspaces back for later calls.
func putScratch(bufs ...[]float32) {
	for _, b := range bufs {
		if b != nil {
			b := b
			scratch.Put(&b)
		}
	}
}
