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

// Check reports what is wrong with a description.
func (s Spec) Check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrSpec}, a...)...)
	}
	switch {
	case s.In1D < 1:
		return bad("In1D %d", s.In1D)
	case s.In2D < 0 || s.Fixed2D < 0:
		return bad("In2D %d, Fixed2D %d", s.In2D, s.Fixed2D)
	case s.LSTMHidden < 0 || s.LSTMHidden > 0 && s.LSTMOut < 1:
		return bad("LSTMHidden %d, LSTMOut %d", s.LSTMHidden, s.LSTMOut)
	case s.OutKernel < 1 || s.OutKernel%2 == 0 || s.OutKernel > scnn.MaxKernel:
		return bad("OutKernel %d", s.OutKernel)
	}
	for _, m := range []*MapSpec{&s.Pair, s.Reinject} {
		if m != nil && (m.Width < 0 || !s.Symmetric && m.Width != 0) {
			return bad("pair map width %d (the CNN's product has no width to set)", m.Width)
		}
	}
	for i, b := range append(append([]Block(nil), s.Blocks...), s.Head...) {
		if len(b.Kernels) == 0 || len(b.Kernels) != len(b.Widths) {
			return bad("block %d: %d kernels, %d widths", i+1, len(b.Kernels), len(b.Widths))
		}
		for k, ks := range b.Kernels {
			if ks < 1 || ks%2 == 0 || ks > scnn.MaxKernel || b.Widths[k] < 1 {
				return bad("block %d: kernel %d width %d", i+1, ks, b.Widths[k])
			}
		}
	}
	return nil
}
