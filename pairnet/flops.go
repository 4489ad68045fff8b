package pairnet

import "github.com/contactmap/contactmap/scnn"

// ConvMACs is the multiply-adds per pixel of the network's 2D
// convolutions on materialised maps: every branch of every block and head
// block, and the output convolution,
//
//	sum over convolutions of k*k * Cin * Cout
//
// (not the BiLSTM, the pair maps' sgConv or product, batchnorm,
// activations or biases). A forward pass over b maps of l x l pixels
// costs 2 * ConvMACs * b*l*l floating-point operations on full maps; a
// training step computes the forward pass, the input gradient and the
// kernel gradient of every convolution, 3x that.
func (s Spec) ConvMACs() float64 {
	return s.convMACs(func(k, cin, cout int) float64 { return float64(k * k * cin * cout) }, nil)
}

// convMACs is ConvMACs with each convolution of kernel k from cin to
// cout channels counted as macs(k, cin, cout) multiply-adds per pixel.
// stage, when not nil, is given the running total after each layer
// (layerWork).
func (s Spec) convMACs(macs func(k, cin, cout int) float64, stage func(total float64)) float64 {
	if stage == nil {
		stage = func(float64) {}
	}
	in := s.Pair.width(s.Symmetric, s.seqWidth()) + s.In2D + s.Fixed2D
	total := 0.0
	for _, b := range s.Blocks {
		for i, k := range b.Kernels {
			total += macs(k, in, b.Widths[i])
		}
		in = b.Width()
		stage(total)
	}
	if s.Reinject != nil {
		in += s.Reinject.width(s.Symmetric, s.In1D) + s.In2D + s.Fixed2D
	}
	for _, b := range s.Head {
		for i, k := range b.Kernels {
			total += macs(k, in, b.Widths[i])
		}
		in = b.Width()
		stage(total)
	}
	total += macs(s.OutKernel, in, 1)
	stage(total)
	return total
}

// StepMACs is what a convolution of kernel k from cin to cout channels
// on l x l maps executes per pixel, in multiply-adds: k*k*cin*cout for
// inference; for a training step 3x that (forward, input gradient,
// kernel gradient). An SCNN's spConv (symmetric) differs in two passes,
// each working on the k(k+1)/2 position pairs (a, b), a <= b, of its
// spatially symmetric kernel where the kernels fold them:
//   - its forward pass, k(k+1)/2 * cin*cout, where it goes by the direct
//     method's pair kernel (scnn.ForwardFoldsPairs: narrow
//     layers, this CPU's kernels); the additions of each pair's two
//     inputs (k(k-1)/2 * cin per 8 output channels) are not counted;
//   - its input and kernel gradients, k*(k+1) * cin*cout for the two,
//     where its backward pass folds (scnn.FoldsPairs).
//
// Counted in integers.
func StepMACs(symmetric bool, k, cin, cout, l int, train bool) float64 {
	fwd := k * k
	if symmetric && scnn.ForwardFoldsPairs(k, cin, cout, l) {
		fwd = k * (k + 1) / 2
	}
	switch {
	case !train:
		return float64(fwd * cin * cout)
	case symmetric && scnn.FoldsPairs(k, cin, cout):
		return float64((fwd + k*(k+1)) * cin * cout)
	}
	return float64((fwd + 2*k*k) * cin * cout)
}

// InferenceFLOPs is the number of floating-point operations (2 per
// multiply-add, 1 per addition) of the 2D convolutions that an inference
// pass over a batch of b chains of length l executes: the convolutions
// ConvMACs counts, on the pixels the pass computes, P = l*l per map for
// the CNN and the L(L+1)/2 of the packed upper triangle for the SCNN.
//
// A network that infers by halves (InfersByHalves) computes the
// convolutions that read a pair map, every branch of the first block and
// the first convolution after the re-injection (a head block's branches,
// or the output convolution without a head), from the map's two 1D
// halves (scnn.ForwardBranchesCartesian, ForwardBranchesSymCartesian),
// the other convolutions as ConvMACs counts them. For one chain:
//
//	for each convolution (kernel k, h = k/2, cin inputs, cout outputs):
//	    if it reads a pair map, by parts: cd dense channels (the 2D input
//	    and fixed pair channels, nAfter tensors of them, and after the
//	    re-injection the last block's output), a product part of halves
//	    nr and nc channels wide:
//	        flops += 2 * P * k*k * cd * cout           // the dense parts, convolved
//	        flops += nAfter * P * cout                 // each 2D tensor's output added
//	        for i := 0; i < l; i++ {
//	            for t in V(i), the offsets t < k with 0 <= i+t-h < l {
//	                flops += 2 * k * (nr + nc) * cout  // R[i, c, o] (a = t, every c), Q[i, a, o] (c = t, every a)
//	            }
//	            flops += 2 * k * cout                  // the prefix sums of R[i] and Q[i] over the offsets
//	        }
//	        flops += 4 * P * cout                      // each pixel: two differences, their sum, into y
//	    else:
//	        flops += 2 * P * k*k * cin * cout          // as ConvMACs, on P pixels
//	                                                  // (an spConv's folded pairs: k(k+1)/2, StepMACs)
//
// The loops over V(i) visit taps(l, k) = sum_i |V(i)| = l*k - h*(h+1)
// offsets once l >= h. The halves of a map of a 1D input of n channels
// are the CNN's self-Cartesian product halves, nr = nc = n, or the SCNN's
// sgConv outer-sum halves, nr = nc = the map's width, both in the
// kernel. Every chain is taken to be l long (a shorter chain of a padded
// batch visits fewer offsets). A network that materialises its maps
// counts ConvMACs on P pixels.
func (s Spec) InferenceFLOPs(b, l int) float64 { return s.executedFLOPs(b, l, false, nil) }

// TrainFLOPs is InferenceFLOPs for a training step: the forward pass, and
// the backward pass of every 2D convolution. A convolution on P pixels
// costs 3x its forward pass (forward, input gradient, kernel gradient);
// an SCNN's spConv whose gradients work on the k(k+1)/2 position pairs
// of its symmetric kernel (scnn.FoldsPairs), 1 + (k+1)/k, and less
// where its forward pass works on them too (StepMACs).
// One that reads a pair map by parts adds to its forward pass
// (scnn's training by halves, cartesian_train.go):
//
//	flops += 2 * P * k*k * cd * cout        // the dense parts' kernel gradient
//	flops += 2 * P * k*k * c0 * cout        // the input gradient of the last block's output (after the re-injection)
//	flops += 2 * taps(l, k) * k * (nr + nc) * cout  // the kernel's gradient, one GEMM per offset and half
//	flops += 2 * taps(l, k) * k * (nr + nc) * cout  // the halves' gradients, unless nothing learns from them
//	flops += l*l * cout                     // the row sums RS over the full map
//	flops += l*l * cout                     // the column sums CS (a CNN's; an SCNN's are the row sums)
//
// per chain. Nothing learns from the halves of a CNN's map without
// batchnorm of an input the step does not differentiate (the
// re-injection of the 1D input; the pair map without a BiLSTM).
func (s Spec) TrainFLOPs(b, l int) float64 { return s.executedFLOPs(b, l, true, nil) }

// executedFLOPs is InferenceFLOPs (train false) or TrainFLOPs; stage,
// when not nil, is given the running count of one chain after each layer
// (layerWork).
func (s Spec) executedFLOPs(b, l int, train bool, stage func(flops float64)) float64 {
	if stage == nil {
		stage = func(float64) {}
	}
	p := float64(l * l)
	if s.Symmetric {
		p = float64(l * (l + 1) / 2)
	}
	macs := func(k, cin, cout int) float64 { return StepMACs(s.Symmetric, k, cin, cout, l, train) }
	if !s.InfersByHalves() {
		return 2 * s.convMACs(macs, func(t float64) { stage(2 * t * p) }) * p * float64(b)
	}
	n2 := s.In2D + s.Fixed2D
	nAfter := 0 // the 2D tensors given with the batch
	for _, c := range []int{s.In2D, s.Fixed2D} {
		if c > 0 {
			nAfter++
		}
	}
	// halves is nr + nc of the map m of a 1D input of n channels.
	halves := func(m MapSpec, n int) int {
		if s.Symmetric {
			return 2 * m.width(true, n)
		}
		return 2 * n
	}
	fl := float64(l)
	// byParts: cd dense channels, c0 of them the last block's output.
	byParts := func(k, cout, cd, c0, nrc int, halvesLearn bool) float64 {
		kf, co := float64(k), float64(cout)
		f := 2*p*kf*kf*float64(cd)*co + float64(nAfter)*p*co +
			2*float64(taps(l, k))*kf*float64(nrc)*co + 2*fl*kf*co + 4*p*co
		if train {
			f += 2*p*kf*kf*float64(cd+c0)*co + 2*float64(taps(l, k))*kf*float64(nrc)*co + fl*fl*co
			if halvesLearn {
				f += 2 * float64(taps(l, k)) * kf * float64(nrc) * co
			}
			if !s.Symmetric {
				f += fl * fl * co
			}
		}
		return f
	}
	flops := 0.0
	in := s.Pair.width(s.Symmetric, s.seqWidth()) + n2
	for bi, blk := range s.Blocks {
		for i, k := range blk.Kernels {
			if bi == 0 {
				flops += byParts(k, blk.Widths[i], n2, 0, halves(s.Pair, s.seqWidth()), s.Symmetric || s.Pair.BN || s.LSTMHidden > 0)
			} else {
				flops += 2 * p * macs(k, in, blk.Widths[i])
			}
		}
		in = blk.Width()
		stage(flops)
	}
	before := in
	first := s.Reinject != nil // the next convolution reads the re-injected map
	if first {
		in += s.Reinject.width(s.Symmetric, s.In1D) + n2
	}
	conv := func(k, cout int) {
		if first {
			flops += byParts(k, cout, before+n2, before, halves(*s.Reinject, s.In1D), s.Symmetric || s.Reinject.BN)
		} else {
			flops += 2 * p * macs(k, in, cout)
		}
	}
	for _, blk := range s.Head {
		for i, k := range blk.Kernels {
			conv(k, blk.Widths[i])
		}
		first = false
		in = blk.Width()
		stage(flops)
	}
	conv(s.OutKernel, 1)
	stage(flops)
	return flops * float64(b)
}

// Layers is the number of layers after which Forward reports its
// progress (Inputs.AfterLayer): the blocks, the head blocks and the
// output convolution.
func (s Spec) Layers() int { return len(s.Blocks) + len(s.Head) + 1 }

// LayerWork is the work of an inference pass over one chain of length
// l after each of its Layers, cumulative: the floating-point operations
// of InferenceFLOPs (its 2D convolutions, by halves where the network
// infers by halves) done once that layer is, the last the whole pass
// (InferenceFLOPs(1, l), to rounding). The BiLSTM, the pair maps,
// batchnorm and activations are not counted: they are a small part of a
// long chain's time. Forward reports these values to Inputs.AfterLayer.
func (s Spec) LayerWork(l int) []float64 {
	w := make([]float64, 0, s.Layers())
	s.executedFLOPs(1, l, false, func(f float64) { w = append(w, f) })
	return w
}

// taps is sum over i < l of |V(i)|, V(i) the kernel offsets t < k with
// 0 <= i+t-h < l (h = k/2): the offsets the row and column terms of
// scnn's Cartesian convolutions visit along a chain of length l. An
// offset falls off each end of the chain h-i times at the position i < h
// from it, so taps = l*k - 2*(sum over i < min(h, l) of h-i).
func taps(l, k int) int {
	h := k / 2
	m := min(h, l)
	return l*k - m*(2*h-m+1)
}
