package pairnet

import (
	"fmt"
	"math/rand/v2"

	"github.com/contactmap/contactmap/scnn"
)

// Net is a built pair network: its Spec and its layers, which hold the
// parameters and nothing else.
type Net struct {
	Spec Spec

	lstm     *scnn.BiLSTM
	dense    *scnn.Dense
	pair     pairMap
	blocks   []*block
	reinject *pairMap
	head     []*block
	out      scnn.BranchConv
	// mod holds every parameter, added as the layers are built.
	mod scnn.Module
	// materialize makes Forward build the pair maps even where it could
	// go by halves (byHalves); tests compare the two.
	materialize bool
}

// pairMap is the product (CNN) or the sgConv (SCNN), then optional
// batchnorm and ReLU.
type pairMap struct {
	sg   *scnn.SymGenConv // nil in the CNN
	bn   *scnn.BatchNorm2D
	relu bool
}

type block struct {
	convs []scnn.BranchConv // parallel branches on one input, joined by channel
	bn    *scnn.BatchNorm2D
}

// New builds a network with freshly initialised parameters (Glorot; half
// Glorot for the free parameters of the symmetric layers), drawn from a
// generator seeded with seed.
func New(s Spec, seed uint64) (*Net, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
	n := &Net{Spec: s}
	var err error
	if s.LSTMHidden > 0 {
		if n.lstm, err = scnn.NewBiLSTM("lstm", s.In1D, s.LSTMHidden, rng); err != nil {
			return nil, err
		}
		if n.dense, err = scnn.NewDense("lstm_dense", 2*s.LSTMHidden, s.LSTMOut, rng); err != nil {
			return nil, err
		}
		n.mod.Add(n.lstm, n.dense)
	}
	seq := s.seqWidth()
	pairWidth := s.Pair.width(s.Symmetric, seq)
	if s.Symmetric {
		if n.pair.sg, err = scnn.NewSymGenConv("pair", 1, seq, pairWidth, rng); err != nil {
			return nil, err
		}
		n.mod.Add(n.pair.sg)
	}
	if s.Reinject != nil {
		n.reinject = &pairMap{relu: s.Reinject.ReLU}
		if s.Symmetric {
			w := s.Reinject.width(true, s.In1D)
			if n.reinject.sg, err = scnn.NewSymGenConv("reinject", 1, s.In1D, w, rng); err != nil {
				return nil, err
			}
			n.mod.Add(n.reinject.sg)
		}
	}
	if s.Pair.BN {
		n.pair.bn = scnn.NewBatchNorm2D("pair.bn", pairWidth)
		n.mod.Add(n.pair.bn)
	}
	n.pair.relu = s.Pair.ReLU
	if s.Reinject != nil && s.Reinject.BN {
		n.reinject.bn = scnn.NewBatchNorm2D("reinject.bn", s.Reinject.width(s.Symmetric, s.In1D))
		n.mod.Add(n.reinject.bn)
	}
	newConv := func(name string, k, cin, cout int) (scnn.BranchConv, error) {
		if s.Symmetric {
			return scnn.NewSymPresConv(name, k, cin, cout, rng)
		}
		return scnn.NewConv2D(name, k, cin, cout, rng)
	}
	newBlock := func(prefix string, b Block, in int) (*block, error) {
		blk := &block{bn: scnn.NewBatchNorm2D(prefix+".bn", b.Width())}
		seen := map[int]bool{}
		for i, k := range b.Kernels {
			name := fmt.Sprintf("%s.k%d", prefix, k)
			if seen[k] {
				name = fmt.Sprintf("%s.k%d.%d", prefix, k, i+1)
			}
			seen[k] = true
			c, err := newConv(name, k, in, b.Widths[i])
			if err != nil {
				return nil, err
			}
			blk.convs = append(blk.convs, c)
		}
		return blk, nil
	}
	in := pairWidth + s.In2D + s.Fixed2D
	for bi, b := range s.Blocks {
		blk, err := newBlock(fmt.Sprintf("block%d", bi+1), b, in)
		if err != nil {
			return nil, err
		}
		n.blocks = append(n.blocks, blk)
		n.mod.Add(blk.layers()...)
		in = b.Width()
	}
	if s.Reinject != nil {
		in += s.Reinject.width(s.Symmetric, s.In1D) + s.In2D + s.Fixed2D
	}
	for hi, b := range s.Head {
		// Head blocks are named by their first kernel, as single
		// convolutions: head1.k5, head1.k5.bn.
		blk, err := newBlock(fmt.Sprintf("head%d", hi+1), b, in)
		if err != nil {
			return nil, err
		}
		if len(b.Kernels) == 1 {
			blk.bn = scnn.NewBatchNorm2D(fmt.Sprintf("head%d.k%d.bn", hi+1, b.Kernels[0]), b.Width())
		}
		n.head = append(n.head, blk)
		n.mod.Add(blk.layers()...)
		in = b.Width()
	}
	if n.out, err = newConv(fmt.Sprintf("head%d.k%d", len(s.Head)+1, s.OutKernel), s.OutKernel, in, 1); err != nil {
		return nil, err
	}
	n.mod.Add(n.out)
	if err := n.mod.Err(); err != nil {
		return nil, err
	}
	return n, nil
}

// layers are a block's convolutions, then its batchnorm.
func (b *block) layers() []scnn.Layer {
	var ls []scnn.Layer
	for _, c := range b.convs {
		ls = append(ls, c)
	}
	return append(ls, b.bn)
}

// Params lists every parameter (trainable and state) in the order the
// layers were built (a scnn.Module).
func (n *Net) Params() []*scnn.Param { return n.mod.Params() }

// Trainable counts the trainable parameters.
func (n *Net) Trainable() int { return n.mod.Trainable() }

// Layout is the layout of the network's 2D maps: packed for the SCNN,
// row-major for the CNN.
func (n *Net) Layout() scnn.Layout {
	if n.Spec.Symmetric {
		return scnn.Packed
	}
	return scnn.RowMajor
}
