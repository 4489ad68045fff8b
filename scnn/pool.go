package scnn

import "fmt"

// An inference pass recycles the storage of intermediates: a layer that
// consumes a tensor the caller gives up can Release it, and later outputs
// take a released buffer that fits (the smallest) instead of allocating,
// so a deep network runs in the memory of a few feature maps. A training
// pass keeps every intermediate for its backward step; its storage is
// recycled only from one pass to the next, by its Recycler (recycle.go).
// A Pass is used by one goroutine at a time.

// alloc returns n zeroed floats, from the pool of an inference pass when
// a released buffer fits.
func (p *Pass) alloc(n int) []float32 {
	if p.Training() {
		return p.zeros(n)
	}
	if p == nil || len(p.pool) == 0 {
		return make([]float32, n)
	}
	best := -1
	for i, b := range p.pool {
		if cap(b) >= n && (best < 0 || cap(b) < cap(p.pool[best])) {
			best = i
		}
	}
	if best < 0 {
		return make([]float32, n)
	}
	b := p.pool[best][:n]
	p.pool = append(p.pool[:best], p.pool[best+1:]...)
	clear(b)
	return b
}

// newTensor is newTensor with storage from p.
func (p *Pass) newTensor(layout Layout, shape []int) (*Tensor, error) {
	n, err := storedLen(layout, shape)
	if err != nil {
		return nil, err
	}
	return newTensor(p.alloc(n), layout, shape)
}

// newOverwritten is newTensor for a tensor whose every element the
// caller writes before it reads any: a training pass's storage comes
// unzeroed from its Recycler (Pass.overwritten).
func (p *Pass) newOverwritten(layout Layout, shape []int) (*Tensor, error) {
	n, err := storedLen(layout, shape)
	if err != nil {
		return nil, err
	}
	if p.Training() {
		return newTensor(p.overwritten(n), layout, shape)
	}
	return newTensor(p.alloc(n), layout, shape)
}

// Release gives the storage of tensors the caller no longer uses to an
// inference pass, for later outputs of the pass. They must not be used
// afterwards. In a training pass, or with a nil pass, it does nothing.
func (p *Pass) Release(ts ...*Tensor) {
	if p == nil || p.Training() {
		return
	}
	for _, t := range ts {
		if t != nil && cap(t.Data) > 0 {
			p.pool = append(p.pool, t.Data[:0])
			t.Data = nil
		}
	}
}

// Reserve makes sure an inference pass's pool holds a buffer of at least
// n floats, so that the next output that fits takes it and has room to
// grow into (ConcatInPlace). It does nothing in a training pass.
func (p *Pass) Reserve(n int) {
	if p == nil || p.Training() {
		return
	}
	for _, b := range p.pool {
		if cap(b) >= n {
			return
		}
	}
	p.pool = append(p.pool, make([]float32, 0, n))
}

// ConcatInPlace is Concat for an inference pass that gives up xs[base]:
// when xs[base]'s buffer has room for the joined map, the result is
// written into it, moving its channels to their place (pixels from last
// to first, so nothing is overwritten before it is read), and xs[base]
// must not be used afterwards (a nil pass counts as inference). Otherwise,
// and in a training pass, it is Concat (releasing xs[base] in inference).
func ConcatInPlace(p *Pass, base int, xs ...*Tensor) (*Tensor, error) {
	if base < 0 || base >= len(xs) {
		return nil, fmt.Errorf("scnn: ConcatInPlace: base %d of %d inputs", base, len(xs))
	}
	g := xs[base]
	total, off := 0, 0
	for i, x := range xs {
		if x.Layout != g.Layout || len(x.Shape) != len(g.Shape) || x.Len()/x.Shape[len(x.Shape)-1] != g.Len()/g.Shape[len(g.Shape)-1] {
			return nil, fmt.Errorf("scnn: ConcatInPlace: input %d is %s %v, input %d is %s %v", i, x.Layout, x.Shape, base, g.Layout, g.Shape)
		}
		if i < base {
			off += x.Shape[len(x.Shape)-1]
		}
		total += x.Shape[len(x.Shape)-1]
	}
	r := len(g.Shape)
	rows := g.Len() / g.Shape[r-1]
	if p.Training() || cap(g.Data) < rows*total {
		y, err := Concat(p, xs...)
		if err == nil {
			p.Release(g)
		}
		return y, err
	}
	w := g.Shape[r-1]
	data := g.Data[:rows*total]
	for q := rows - 1; q >= 0; q-- {
		copy(data[q*total+off:q*total+off+w], data[q*w:(q+1)*w]) // memmove
		o := 0
		for i, x := range xs {
			xw := x.Shape[r-1]
			if i != base {
				copy(data[q*total+o:q*total+o+xw], x.Data[q*xw:(q+1)*xw])
			}
			o += xw
		}
	}
	shape := append(append([]int(nil), g.Shape[:r-1]...), total)
	g.Data = nil
	return &Tensor{Data: data, Shape: shape, Layout: g.Layout}, nil
}
