package scnn

import (
	"fmt"
	"math"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// Layout says how a Tensor's elements are placed in Data.
type Layout uint8

const (
	// RowMajor stores elements contiguously in row-major (C) order over
	// Shape: the last index varies fastest.
	// Maps are channels-last: a batch of 2D maps is (B, H, W, C) and a batch
	// of sequences (B, L, C).
	RowMajor Layout = iota
	// Packed holds a batch of symmetric L x L maps, Shape (B, L, L, C), by
	// their upper triangles only: element (b, i, j, c) with i <= j is at
	//
	//	(b*P + PackedIndex(L, i, j))*C + c,   P = L(L+1)/2,
	//
	// and (b, i, j, c) with i > j is (b, j, i, c). A gradient held in a Packed tensor is the
	// gradient of the full symmetric map at (i, j), not the sum over the two
	// mirrored entries.
	Packed
)

// PackedIndex is the position of pixel (i, j), 0 <= i <= j < l, among
// the l(l+1)/2 pixels of an l x l symmetric map stored Packed (the upper
// triangle, row by row):
//
//	PackedIndex(l, i, j) = i*l - i*(i-1)/2 + (j - i)
//
// Pixel (i, j) with i > j is PackedIndex(l, j, i). Feature files, contact
// labels and packed tensors share this order.
func PackedIndex(l, i, j int) int { return kern.Tri(l, i, j) }

func (l Layout) String() string {
	switch l {
	case RowMajor:
		return "row-major"
	case Packed:
		return "packed"
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// Tensor is a contiguous float32 array with a shape and a layout (no
// strides: every tensor is stored densely as its Layout says).
type Tensor struct {
	Data   []float32
	Shape  []int
	Layout Layout
}

// New returns a zero dense tensor of the given shape. It panics on a
// negative dimension; use FromData to check input.
func New(shape ...int) *Tensor {
	t, err := newTensor(nil, RowMajor, shape)
	if err != nil {
		panic(err)
	}
	return t
}

// NewPacked returns a zero packed tensor of b symmetric l x l maps with c
// channels.
func NewPacked(b, l, c int) *Tensor {
	t, err := newTensor(nil, Packed, []int{b, l, l, c})
	if err != nil {
		panic(err)
	}
	return t
}

// FromData wraps data as a dense tensor of the given shape, without copying.
func FromData(data []float32, shape ...int) (*Tensor, error) {
	return newTensor(data, RowMajor, shape)
}

// FromPackedData wraps data as a packed (b, l, l, c) tensor.
func FromPackedData(data []float32, b, l, c int) (*Tensor, error) {
	return newTensor(data, Packed, []int{b, l, l, c})
}

func newTensor(data []float32, layout Layout, shape []int) (*Tensor, error) {
	n, err := storedLen(layout, shape)
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = make([]float32, n)
	}
	if len(data) != n {
		return nil, fmt.Errorf("scnn: %d values for %s shape %v (want %d)", len(data), layout, shape, n)
	}
	return &Tensor{Data: data, Shape: append([]int(nil), shape...), Layout: layout}, nil
}

// storedLen is the number of stored elements of a tensor of the given
// layout and shape.
func storedLen(layout Layout, shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("scnn: negative dimension in shape %v", shape)
		}
		n *= d
	}
	if layout == Packed {
		if len(shape) != 4 || shape[1] != shape[2] {
			return 0, fmt.Errorf("scnn: packed shape must be (B, L, L, C), got %v", shape)
		}
		n = shape[0] * kern.TriSize(shape[1]) * shape[3]
	}
	return n, nil
}

// SampleLen is the number of stored elements of one sample (the first
// axis).
func (t *Tensor) SampleLen() int {
	if len(t.Shape) == 0 || t.Shape[0] == 0 {
		return 0
	}
	return len(t.Data) / t.Shape[0]
}

// Len is the number of stored elements.
func (t *Tensor) Len() int { return len(t.Data) }

// At returns the element at a full index of Shape. For a packed tensor
// (b, i, j, c) with i > j reads (b, j, i, c).
func (t *Tensor) At(idx ...int) float32 { return t.Data[t.offset(idx)] }

// Set sets the element at a full index of Shape (for a packed tensor, both
// mirrored entries at once).
func (t *Tensor) Set(v float32, idx ...int) { t.Data[t.offset(idx)] = v }

func (t *Tensor) offset(idx []int) int {
	if len(idx) != len(t.Shape) {
		panic(fmt.Sprintf("scnn: index %v for shape %v", idx, t.Shape))
	}
	for k, i := range idx {
		if i < 0 || i >= t.Shape[k] {
			panic(fmt.Sprintf("scnn: index %v out of range for shape %v", idx, t.Shape))
		}
	}
	if t.Layout == Packed {
		c := t.Shape[3]
		return idx[0]*t.SampleLen() + kern.TriSym(t.Shape[1], idx[1], idx[2])*c + idx[3]
	}
	off := 0
	for k, i := range idx {
		off = off*t.Shape[k] + i
	}
	return off
}

// Clone returns a deep copy.
func (t *Tensor) Clone() *Tensor {
	c, _ := newTensor(append([]float32(nil), t.Data...), t.Layout, t.Shape)
	return c
}

// ZerosLike returns a zero tensor of the same shape and layout.
func ZerosLike(t *Tensor) *Tensor {
	c, _ := newTensor(nil, t.Layout, t.Shape)
	return c
}

// SameShape reports whether a and b have equal shapes and layouts.
func SameShape(a, b *Tensor) bool {
	if a.Layout != b.Layout || len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		if a.Shape[i] != b.Shape[i] {
			return false
		}
	}
	return true
}

// Pack returns the packed upper triangle of a dense (B, L, L, C) tensor.
// The lower triangle is ignored: Pack is exact only for symmetric maps.
func Pack(t *Tensor) (*Tensor, error) {
	if t.Layout != RowMajor || len(t.Shape) != 4 || t.Shape[1] != t.Shape[2] {
		return nil, fmt.Errorf("scnn: Pack needs a row-major (B, L, L, C) tensor, got %s %v", t.Layout, t.Shape)
	}
	b, l, c := t.Shape[0], t.Shape[1], t.Shape[3]
	p := NewPacked(b, l, c)
	for s := 0; s < b; s++ {
		n, m := p.SampleLen(), t.SampleLen()
		kern.Pack(p.Data[s*n:(s+1)*n], t.Data[s*m:(s+1)*m], l, c)
	}
	return p, nil
}

// Unpack returns the full dense (B, L, L, C) map of a packed tensor.
func Unpack(t *Tensor) (*Tensor, error) {
	if t.Layout != Packed {
		return nil, fmt.Errorf("scnn: Unpack needs a packed tensor, got %s", t.Layout)
	}
	b, l, c := t.Shape[0], t.Shape[1], t.Shape[3]
	d := New(b, l, l, c)
	for s := 0; s < b; s++ {
		n, m := d.SampleLen(), t.SampleLen()
		kern.Unpack(d.Data[s*n:(s+1)*n], t.Data[s*m:(s+1)*m], l, c)
	}
	return d, nil
}

// MaxAbsAsymmetry returns max |t[b,i,j,c] - t[b,j,i,c]| of a dense
// (B, L, L, C) tensor; 0 means exactly symmetric. NaN counts as asymmetric
// (+Inf is returned).
func MaxAbsAsymmetry(t *Tensor) float64 {
	b, l, c := t.Shape[0], t.Shape[1], t.Shape[3]
	worst := 0.0
	for s := 0; s < b; s++ {
		for i := 0; i < l; i++ {
			for j := i + 1; j < l; j++ {
				for k := 0; k < c; k++ {
					d := math.Abs(float64(t.At(s, i, j, k) - t.At(s, j, i, k)))
					if math.IsNaN(d) {
						return math.Inf(1)
					}
					worst = max(worst, d)
				}
			}
		}
	}
	return worst
}
