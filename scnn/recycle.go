package scnn

import (
	"math/bits"
	"sync"
)

// A training pass keeps every intermediate until its backward step, so a
// training step allocates its whole footprint anew: hundreds of megabytes
// that the runtime zeroes, and that the kernel maps in again page by page
// after the garbage collector has returned them. Free ends a training
// pass and hands its buffers to a process-wide recycler, from which the
// next training passes take theirs: the memory stays mapped and warm.
//
// Buffers are kept by size class (2^k and 3*2^(k-1) floats, so at most a
// third of a buffer goes unused and steps of slightly different lengths
// share them); small ones are left to the garbage collector. The recycler
// holds at most as many floats as the largest pass freed so far.

// recycleMin is the smallest buffer (floats) worth recycling.
const recycleMin = 4096

type recycler struct {
	mu     sync.Mutex
	free   map[int][][]float32 // by capacity, a size class
	floats int                 // floats held
	limit  int                 // the most floats one freed pass owned
}

var recycled = recycler{free: map[int][][]float32{}}

// sizeClass is the capacity given to a recycled buffer of n floats: the
// smallest 2^k or 3*2^(k-1) at least n.
func sizeClass(n int) int {
	c := 1 << bits.Len(uint(n-1)) // 2^k >= n
	if t := c / 4 * 3; t >= n {
		return t
	}
	return c
}

// get returns n zeroed floats: a recycled buffer of n's size class, or a
// new one with that capacity.
func (r *recycler) get(n int) []float32 {
	if n < recycleMin {
		return make([]float32, n)
	}
	c := sizeClass(n)
	r.mu.Lock()
	var b []float32
	if l := r.free[c]; len(l) > 0 {
		b = l[len(l)-1]
		r.free[c] = l[:len(l)-1]
		r.floats -= c
	}
	r.mu.Unlock()
	if b == nil {
		return make([]float32, n, c)
	}
	b = b[:n]
	clear(b)
	return b
}

// put takes back the buffers of a freed pass, keeping those of a size
// class, up to the limit.
func (r *recycler) put(bufs [][]float32) {
	total := 0
	for _, b := range bufs {
		total += cap(b)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limit = max(r.limit, total)
	for _, b := range bufs {
		c := cap(b)
		if c < recycleMin || c != sizeClass(c) || r.floats+c > r.limit {
			continue
		}
		r.free[c] = append(r.free[c], b[:0])
		r.floats += c
	}
}

// Free ends a training pass: the storage of every tensor the pass made
// (outputs, gradients) goes to later training passes, so none of them
// may be used afterwards, nor the pass. Call it when the step is done
// (after the optimiser step). It does nothing to an inference pass.
func (p *Pass) Free() {
	if !p.Training() {
		return
	}
	recycled.put(p.owned)
	p.owned = nil
	p.freed = true
}

// zeros returns n zeroed floats for a tensor of the pass: recycled and
// owned by a training pass (until Free), from the pool of an inference
// pass, or new.
func (p *Pass) zeros(n int) []float32 {
	if p.Training() {
		if p.freed {
			panic("scnn: a freed training pass used")
		}
		b := recycled.get(n)
		p.owned = append(p.owned, b)
		return b
	}
	return p.alloc(n)
}

// zerosLike is ZerosLike with storage from the pass.
func (p *Pass) zerosLike(t *Tensor) *Tensor {
	c, _ := newTensor(p.zeros(len(t.Data)), t.Layout, t.Shape)
	return c
}
