package scnn

import "fmt"

// Concat joins tensors of one layout and equal leading shape along the last
// (channel) axis.
type Concat struct{ widths []int }

// Forward concatenates xs along the channels.
func (c *Concat) Forward(xs ...*Tensor) (*Tensor, error) {
	if len(xs) == 0 {
		return nil, fmt.Errorf("scnn: Concat of nothing")
	}
	first := xs[0]
	r := len(first.Shape)
	rows := first.Len() / first.Shape[r-1]
	c.widths = c.widths[:0]
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
		c.widths = append(c.widths, x.Shape[r-1])
		total += x.Shape[r-1]
	}
	shape := append(append([]int(nil), first.Shape[:r-1]...), total)
	y, err := newTensor(nil, first.Layout, shape)
	if err != nil {
		return nil, err
	}
	forChunks(rows, func(_, lo, hi int) {
		off := 0
		for i, x := range xs {
			w := c.widths[i]
			for p := lo; p < hi; p++ {
				copy(y.Data[p*total+off:p*total+off+w], x.Data[p*w:(p+1)*w])
			}
			off += w
		}
	})
	return y, nil
}

// Backward splits dy into the gradients of the inputs.
func (c *Concat) Backward(dy *Tensor) ([]*Tensor, error) {
	if len(c.widths) == 0 {
		return nil, fmt.Errorf("scnn: Concat: Backward before Forward")
	}
	parts, err := SplitChannels(dy, c.widths...)
	if err != nil {
		return nil, fmt.Errorf("scnn: Concat: gradient does not match the last forward: %w", err)
	}
	return parts, nil
}
