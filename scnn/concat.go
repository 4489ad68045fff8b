package scnn

import (
	"fmt"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// Concat joins tensors of one layout and equal leading shape along the
// last (channel) axis. Its backward step splits the gradient
// (SplitChannels).
func Concat(p *Pass, xs ...*Tensor) (*Tensor, error) {
	if len(xs) == 0 {
		return nil, fmt.Errorf("scnn: Concat of nothing")
	}
	first := xs[0]
	r := len(first.Shape)
	rows := first.Len() / first.Shape[r-1]
	widths := make([]int, len(xs))
	total := 0
	for i, x := range xs {
		if x.Layout != first.Layout || len(x.Shape) != r {
			return nil, fmt.Errorf("scnn: Concat: input %d is %s %v, input 0 is %s %v", i, x.Layout, x.Shape, first.Layout, first.Shape)
		}
		for k := 0; k < r-1; k++ {
			if x.Shape[k] != first.Shape[k] {
				return nil, fmt.Errorf("scnn: Concat: input %d shape %v, input 0 shape %v", i, x.Shape, first.Shape)
			}
		}
		widths[i] = x.Shape[r-1]
		total += x.Shape[r-1]
	}
	shape := append(append([]int(nil), first.Shape[:r-1]...), total)
	y, err := p.newOverwritten(first.Layout, shape) // every channel run copied
	if err != nil {
		return nil, err
	}
	forChunks(p, rows, func(_, lo, hi int) {
		off := 0
		for i, x := range xs {
			w := widths[i]
			// y[q*total+off : +w] = x[q*w : +w] for q in [lo, hi)
			kern.CopyRuns(y.Data[lo*total+off:], x.Data[lo*w:], w, hi-lo, total, w)
			off += w
		}
	})
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		off := 0
		for i, x := range xs {
			if p.wants(x) {
				part, err := p.newOverwritten(x.Layout, x.Shape)
				if err != nil {
					return err
				}
				copyChannels(p, part, dy, off)
				p.addGrad(x, part)
			}
			off += widths[i]
		}
		return nil
	})
	return y, nil
}

// SplitChannels splits t along its last (channel) axis into new tensors
// of the given widths, which must add up to t's channels.
func SplitChannels(t *Tensor, widths ...int) ([]*Tensor, error) {
	return splitChannels(nil, t, widths...)
}

func splitChannels(p *Pass, t *Tensor, widths ...int) ([]*Tensor, error) {
	r := len(t.Shape)
	total := 0
	for _, w := range widths {
		if w < 1 {
			return nil, fmt.Errorf("scnn: SplitChannels: width %d", w)
		}
		total += w
	}
	if r == 0 || t.Shape[r-1] != total {
		return nil, fmt.Errorf("scnn: SplitChannels: %v into widths %v", t.Shape, widths)
	}
	out := make([]*Tensor, len(widths))
	off := 0
	for i, w := range widths {
		part, err := p.newTensor(t.Layout, append(append([]int(nil), t.Shape[:r-1]...), w))
		if err != nil {
			return nil, err
		}
		copyChannels(p, part, t, off)
		out[i] = part
		off += w
	}
	return out, nil
}

// copyChannels copies channels off, off+1, ... of src (same pixels) into
// dst, which has fewer channels.
func copyChannels(p *Pass, dst, src *Tensor, off int) {
	w, total := dst.Shape[len(dst.Shape)-1], src.Shape[len(src.Shape)-1]
	forChunks(p, dst.Len()/w, func(_, lo, hi int) {
		// dst[q*w : +w] = src[q*total+off : +w] for q in [lo, hi)
		kern.CopyRuns(dst.Data[lo*w:], src.Data[lo*total+off:], w, hi-lo, w, total)
	})
}
