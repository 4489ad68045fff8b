package scnn

import (
	"math"
	"math/bits"
	"sync"
)

// A training pass keeps every intermediate until its backward step, so a
// training step allocates its whole footprint anew: hundreds of megabytes
// that the runtime zeroes, and that the kernel maps in again page by page
// after the garbage collector has returned them. Free ends a training
// pass and hands its buffers to the pass's Recycler, from which the next
// training passes take theirs: the memory stays mapped and warm.
//
// Buffers are kept by size class (2^k and 3*2^(k-1) floats, so at most a
// third of a buffer goes unused and steps of slightly different lengths
// share them); small ones are left to the garbage collector. A Recycler
// holds at most as many floats as the largest pass freed into it so far.

// recycleMin is the smallest buffer (floats) worth recycling.
const recycleMin = 4096

// A Recycler keeps the storage of freed training passes for the next
// ones (TrainingWith, Pass.Free), so a training loop does not allocate and
// zero its whole footprint at every step. A training loop owns one for
// its life; it holds at most the footprint of the largest pass freed into
// it, until Reset or until it is garbage. The zero value is an empty
// Recycler, ready to use; it is safe for concurrent use. Recycling changes
// no result: a buffer is zeroed before it is handed out again, except to
// a layer that writes every element of it before reading any (its output
// or input gradient written by a kernel that overwrites), which takes it
// as it is.
type Recycler struct {
	// Poison, for tests and debugging, fills a buffer with NaN before it
	// is handed out unzeroed, so that a layer that reads storage it did
	// not write shows it in its results.
	Poison bool

	mu     sync.Mutex
	free   map[int][][]float32 // by capacity, a size class
	floats int                 // floats held
	limit  int                 // the most floats one freed pass owned
}

// Reset drops every buffer r holds (to the garbage collector) and forgets
// the largest pass it saw.
func (r *Recycler) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.free, r.floats, r.limit = nil, 0, 0
}

// Held returns the number of floats r holds for later passes.
func (r *Recycler) Held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.floats
}

// sizeClass is the capacity given to a recycled buffer of n floats: the
// smallest 2^k or 3*2^(k-1) at least n.
func sizeClass(n int) int {
	c := 1 << bits.Len(uint(n-1)) // 2^k >= n
	if t := c / 4 * 3; t >= n {
		return t
	}
	return c
}

// get returns n floats, zeroed when zero (else a recycled buffer's old
// values, or NaN with Poison): a recycled buffer of n's size class, or a
// new one with that capacity.
func (r *Recycler) get(n int, zero bool) []float32 {
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
	switch {
	case zero:
		clear(b)
	case r.Poison:
		nan := float32(math.NaN())
		for i := range b {
			b[i] = nan
		}
	}
	return b
}

// put takes back the buffers of a freed pass, keeping those of a size
// class, up to the limit.
func (r *Recycler) put(bufs [][]float32) {
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
		if r.free == nil {
			r.free = map[int][][]float32{}
		}
		r.free[c] = append(r.free[c], b[:0])
		r.floats += c
	}
}

// Free ends a training pass: the storage of every tensor the pass made
// (outputs, gradients) goes to the pass's Recycler for later training
// passes, so none of them may be used afterwards, nor the pass. Call it
// when the step is done (after the optimiser step). It does nothing to an
// inference pass; a training pass without a Recycler leaves its storage to
// the garbage collector.
func (p *Pass) Free() {
	if !p.Training() {
		return
	}
	if p.recycler != nil {
		p.recycler.put(p.owned)
	}
	p.owned = nil
	p.freed = true
}

// zeros returns n zeroed floats for a tensor of the pass: from the
// Recycler of a training pass and owned by the pass (until Free), from the
// pool of an inference pass, or new.
func (p *Pass) zeros(n int) []float32 { return p.storage(n, true) }

// overwritten returns n floats for a tensor of the pass whose every
// element the caller writes before it reads any: zeros's storage, but a
// recycled buffer is handed out without its clearing (a pass over the
// whole buffer, 5% of a default SCNN step). Recycler.Poison fills it with
// NaN instead, which the tests use to show that the caller does write
// everything.
func (p *Pass) overwritten(n int) []float32 { return p.storage(n, false) }

func (p *Pass) storage(n int, zero bool) []float32 {
	if p.Training() {
		if p.freed {
			panic("scnn: a freed training pass used")
		}
		if p.recycler == nil {
			return make([]float32, n)
		}
		b := p.recycler.get(n, zero)
		p.owned = append(p.owned, b)
		return b
	}
	return p.alloc(n)
}

// overwrittenLike is zerosLike with overwritten storage.
func (p *Pass) overwrittenLike(t *Tensor) *Tensor {
	c, _ := newTensor(p.overwritten(len(t.Data)), t.Layout, t.Shape)
	return c
}

// zerosLike is ZerosLike with storage from the pass.
func (p *Pass) zerosLike(t *Tensor) *Tensor {
	c, _ := newTensor(p.zeros(len(t.Data)), t.Layout, t.Shape)
	return c
}
