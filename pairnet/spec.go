package pairnet

import (
	"errors"
	"fmt"

	"github.com/contactmap/contactmap/scnn"
)

// Spec describes a pair network; see the package documentation for the
// layout. The zero values of optional parts leave them out.
type Spec struct {
	// Symmetric builds the SCNN: sgConv pair maps and spConv convolutions
	// on packed symmetric maps. Otherwise the CNN: self-Cartesian products
	// and ordinary convolutions on row-major maps.
	Symmetric bool `json:"symmetric"`

	In1D    int `json:"in_1d"`    // channels of the 1D input
	In2D    int `json:"in_2d"`    // channels of the 2D input (0: none)
	Fixed2D int `json:"fixed_2d"` // fixed pair channels given with each batch (0: none)

	// LSTMHidden is the BiLSTM's width per direction, LSTMOut the width
	// of the Dense layer after it; the pair map is built from the 1D
	// input concatenated with that output (n = In1D + LSTMOut channels).
	// LSTMHidden 0 leaves both out (n = In1D).
	LSTMHidden int `json:"lstm_hidden"`
	LSTMOut    int `json:"lstm_out"`

	Pair     MapSpec  `json:"pair"`               // the first pair map
	Blocks   []Block  `json:"blocks"`             // after the pair map
	Reinject *MapSpec `json:"reinject,omitempty"` // nil: no re-injection
	Head     []Block  `json:"head"`               // after the re-injection
	// OutKernel is the kernel size of the last convolution, to one
	// channel (the logits).
	OutKernel int `json:"out_kernel"`
}

// MapSpec describes a pair map of a 1D input of n channels: the CNN's
// self-Cartesian product (2n channels; Width must be 0 or 2n), or the
// SCNN's 1x1 sgConv of it to Width channels (0: 2n), each optionally
// followed by batchnorm and ReLU.
type MapSpec struct {
	Width int  `json:"width,omitempty"`
	BN    bool `json:"bn,omitempty"`
	ReLU  bool `json:"relu,omitempty"`
}

// Block is a set of parallel convolutions on one input, with kernel sizes
// Kernels and output channels Widths, joined by channel, then batchnorm
// and ReLU.
type Block struct {
	Kernels []int `json:"kernels"`
	Widths  []int `json:"widths"`
}

// Uniform returns a block of convolutions of the given kernel sizes, each
// with width output channels.
func Uniform(width int, kernels ...int) Block {
	w := make([]int, len(kernels))
	for i := range w {
		w[i] = width
	}
	return Block{Kernels: kernels, Widths: w}
}

// Width is the block's output channels.
func (b Block) Width() int {
	n := 0
	for _, w := range b.Widths {
		n += w
	}
	return n
}

// ErrSpec marks an invalid network description.
var ErrSpec = errors.New("pairnet: invalid network description")

// seqWidth is the width of the 1D features the pair map is built from.
func (s Spec) seqWidth() int {
	if s.LSTMHidden > 0 {
		return s.In1D + s.LSTMOut
	}
	return s.In1D
}

func (m MapSpec) width(symmetric bool, n int) int {
	if symmetric && m.Width > 0 {
		return m.Width
	}
	return 2 * n
}

// Bounds of a description, checked by Check before anything is
// allocated, so that a corrupt or hostile model file is refused with a
// message instead of running the process out of memory. They are far
// above every shipped network and the paper-size ones (widths up to 86
// channels, kernels up to 13, 5 blocks, 2.5M parameters).
const (
	// MaxWidth bounds every channel count: In1D, In2D, Fixed2D,
	// LSTMHidden, LSTMOut, the pair and re-injection map widths, each
	// convolution's and each block's output width.
	MaxWidth = 4096
	// MaxBlocks bounds len(Blocks) + len(Head).
	MaxBlocks = 64
	// MaxBranches bounds the parallel convolutions of one block.
	MaxBranches = 16
	// MaxParams bounds ParamBound, the parameter values the description
	// asks for (64M float32 values, 256 MiB).
	MaxParams = 1 << 26
)

// Check reports what is wrong with a description: a field out of its
// bounds (see MaxWidth and the other limits) or an inconsistent one. The
// error wraps ErrSpec and names the field.
func (s Spec) Check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrSpec}, a...)...)
	}
	width := func(name string, v, lo int) error {
		if v < lo || v > MaxWidth {
			return bad("%s %d out of bounds (%d..%d)", name, v, lo, MaxWidth)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    int
		lo   int
	}{{"in_1d", s.In1D, 1}, {"in_2d", s.In2D, 0}, {"fixed_2d", s.Fixed2D, 0}, {"lstm_hidden", s.LSTMHidden, 0}, {"lstm_out", s.LSTMOut, 0}, {"pair width", s.Pair.Width, 0}} {
		if err := width(f.name, f.v, f.lo); err != nil {
			return err
		}
	}
	if s.Reinject != nil {
		if err := width("reinject width", s.Reinject.Width, 0); err != nil {
			return err
		}
	}
	switch {
	case s.LSTMHidden > 0 && s.LSTMOut < 1:
		return bad("lstm_out %d with lstm_hidden %d (want at least 1)", s.LSTMOut, s.LSTMHidden)
	case s.OutKernel < 1 || s.OutKernel%2 == 0 || s.OutKernel > scnn.MaxKernel:
		return bad("out_kernel %d (want odd, 1..%d)", s.OutKernel, scnn.MaxKernel)
	case len(s.Blocks)+len(s.Head) > MaxBlocks:
		return bad("%d blocks and %d head blocks out of bounds (at most %d in all)", len(s.Blocks), len(s.Head), MaxBlocks)
	}
	for _, m := range []*MapSpec{&s.Pair, s.Reinject} {
		if m != nil && !s.Symmetric && m.Width != 0 {
			return bad("pair map width %d (the CNN's product has no width to set)", m.Width)
		}
	}
	for i, b := range append(append([]Block(nil), s.Blocks...), s.Head...) {
		name := fmt.Sprintf("block %d", i+1)
		if i >= len(s.Blocks) {
			name = fmt.Sprintf("head block %d", i-len(s.Blocks)+1)
		}
		if len(b.Kernels) == 0 || len(b.Kernels) != len(b.Widths) {
			return bad("%s: %d kernels, %d widths", name, len(b.Kernels), len(b.Widths))
		}
		if len(b.Kernels) > MaxBranches {
			return bad("%s: %d kernels out of bounds (at most %d)", name, len(b.Kernels), MaxBranches)
		}
		for k, ks := range b.Kernels {
			if ks < 1 || ks%2 == 0 || ks > scnn.MaxKernel {
				return bad("%s: kernel %d (want odd, 1..%d)", name, ks, scnn.MaxKernel)
			}
			if err := width(fmt.Sprintf("%s: kernel %d width", name, ks), b.Widths[k], 1); err != nil {
				return err
			}
		}
		if err := width(name+" width", b.Width(), 1); err != nil {
			return err
		}
	}
	if n := s.ParamBound(); n > MaxParams {
		return bad("%d parameters out of bounds (at most %d)", n, MaxParams)
	}
	return nil
}

// ParamBound is an upper bound of the parameter values (trainable and
// batchnorm state) of the network a description builds, counting every
// convolution as a full one (the SCNN's symmetric kernels hold about half
// as many). Its fields must be within Check's width bounds, which keep
// the count far from overflowing an int.
func (s Spec) ParamBound() int {
	n := 0
	if s.LSTMHidden > 0 {
		h := s.LSTMHidden
		n += 2 * (4*h*(s.In1D+h) + 4*h) // BiLSTM
		n += 2*h*s.LSTMOut + s.LSTMOut  // Dense
	}
	seq := s.seqWidth()
	conv := func(k, cin, cout int) int { return k*k*cin*cout + cout }
	pair := s.Pair.width(s.Symmetric, seq)
	n += conv(2, seq, pair) + 4*pair // sgConv (two n x f halves) and batchnorm
	in := pair + s.In2D + s.Fixed2D
	if s.Reinject != nil {
		re := s.Reinject.width(s.Symmetric, s.In1D)
		n += conv(2, s.In1D, re) + 4*re
	}
	for i, b := range append(append([]Block(nil), s.Blocks...), s.Head...) {
		if i == len(s.Blocks) && s.Reinject != nil {
			in += s.Reinject.width(s.Symmetric, s.In1D) + s.In2D + s.Fixed2D
		}
		for k, ks := range b.Kernels {
			n += conv(ks, in, b.Widths[k])
		}
		in = b.Width()
		n += 4 * in
	}
	if len(s.Head) == 0 && s.Reinject != nil {
		in += s.Reinject.width(s.Symmetric, s.In1D) + s.In2D + s.Fixed2D
	}
	return n + conv(s.OutKernel, in, 1)
}
