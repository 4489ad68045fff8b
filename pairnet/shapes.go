package pairnet

import (
	"fmt"

	"github.com/contactmap/contactmap/scnn"
)

// ParamShapes lists the names and shapes of the parameters New builds
// for s, in the order of Net.Params, without allocating them: a model
// file's reader checks the file's arrays against them before allocating
// the network (scnn.ReadParamsExpect). s must pass Check.
func (s Spec) ParamShapes() []scnn.ParamShape {
	var out []scnn.ParamShape
	add := func(ps []scnn.ParamShape) { out = append(out, ps...) }
	if s.LSTMHidden > 0 {
		add(scnn.BiLSTMShapes("lstm", s.In1D, s.LSTMHidden))
		add(scnn.DenseShapes("lstm_dense", 2*s.LSTMHidden, s.LSTMOut))
	}
	seq := s.seqWidth()
	pairWidth := s.Pair.width(s.Symmetric, seq)
	if s.Symmetric {
		add(scnn.SymGenConvShapes("pair", 1, seq, pairWidth))
		if s.Reinject != nil {
			add(scnn.SymGenConvShapes("reinject", 1, s.In1D, s.Reinject.width(true, s.In1D)))
		}
	}
	if s.Pair.BN {
		add(scnn.BatchNorm2DShapes("pair.bn", pairWidth))
	}
	if s.Reinject != nil && s.Reinject.BN {
		add(scnn.BatchNorm2DShapes("reinject.bn", s.Reinject.width(s.Symmetric, s.In1D)))
	}
	conv := func(name string, k, cin, cout int) {
		if s.Symmetric {
			add(scnn.SymPresConvShapes(name, k, cin, cout))
		} else {
			add(scnn.Conv2DShapes(name, k, cin, cout))
		}
	}
	// block mirrors New's newBlock: the convolutions, then the batchnorm.
	block := func(prefix, bn string, b Block, in int) {
		seen := map[int]bool{}
		for i, k := range b.Kernels {
			name := fmt.Sprintf("%s.k%d", prefix, k)
			if seen[k] {
				name = fmt.Sprintf("%s.k%d.%d", prefix, k, i+1)
			}
			seen[k] = true
			conv(name, k, in, b.Widths[i])
		}
		add(scnn.BatchNorm2DShapes(bn, b.Width()))
	}
	in := pairWidth + s.In2D + s.Fixed2D
	for bi, b := range s.Blocks {
		prefix := fmt.Sprintf("block%d", bi+1)
		block(prefix, prefix+".bn", b, in)
		in = b.Width()
	}
	if s.Reinject != nil {
		in += s.Reinject.width(s.Symmetric, s.In1D) + s.In2D + s.Fixed2D
	}
	for hi, b := range s.Head {
		prefix := fmt.Sprintf("head%d", hi+1)
		bn := prefix + ".bn"
		if len(b.Kernels) == 1 {
			bn = fmt.Sprintf("head%d.k%d.bn", hi+1, b.Kernels[0])
		}
		block(prefix, bn, b, in)
		in = b.Width()
	}
	conv(fmt.Sprintf("head%d.k%d", len(s.Head)+1, s.OutKernel), s.OutKernel, in, 1)
	return out
}
