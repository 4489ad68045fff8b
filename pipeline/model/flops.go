package model

// ConvFLOPs is the number of floating-point operations (2 per
// multiply-add) of the model's 2D convolutions in one forward pass over a
// batch of b chains of length l, counted on the full L x L maps:
//
//	sum over convolutions of 2 * b * l*l * k*k * Cin * Cout
//
// It is the same for a CNN and an SCNN of one configuration (an SCNN
// computes only the upper triangle, about half of it), and excludes the
// BiLSTM, the pair map, batchnorm and activations (under 1% at L = 100
// for both configurations). A training step computes the forward pass,
// the input gradient and the kernel gradient of every convolution: 3x.
// InferenceFLOPs counts what an inference pass executes.
func (a Arch) ConvFLOPs(b, l int) float64 {
	return 2 * a.convMACs() * float64(b*l*l)
}

// convMACs is ConvFLOPs' multiply-adds per pixel of the materialised
// maps.
func (a Arch) convMACs() float64 {
	n1 := a.N1D + a.LSTMOut
	n2 := a.N2D + a.SepChannels
	in := 2*n1 + n2
	macs := 0.0 // per pixel
	for _, ks := range a.Blocks {
		for _, k := range ks {
			macs += float64(k * k * in * a.Width)
		}
		in = a.Width * len(ks)
	}
	in += 2*a.N1D + n2
	for hi, k := range a.Head {
		out := a.HeadWidth
		if hi == len(a.Head)-1 {
			out = 1
		}
		macs += float64(k * k * in * out)
		in = out
	}
	return macs
}

// InferenceFLOPs is the number of floating-point operations (2 per
// multiply-add, 1 per addition) of the model's 2D convolutions that an
// inference pass over a batch of b chains of length l executes: the
// layers ConvFLOPs counts (not the BiLSTM, the pair maps and their
// halves, batchnorm, activations or biases), on the pixels the pass
// computes, P = l*l per map for the CNN and the L(L+1)/2 of the packed
// upper triangle for the SCNN.
//
// Inference goes by halves (pairnet.Spec.InfersByHalves; the protein
// networks of both kinds always do): the convolutions that read a pair
// map, every branch of the first block and the first head convolution
// after the re-injection (the output convolution when Head has one
// kernel), are computed from the map's two 1D halves
// (scnn.ForwardBranchesCartesian, ForwardBranchesSymCartesian), the other
// convolutions as ConvFLOPs counts them. For one chain:
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
//	        flops += 2 * P * k*k * cin * cout          // as ConvFLOPs, on P pixels
//
// The loops over V(i) visit taps(l, k) = sum_i |V(i)| = l*k - h*(h+1)
// offsets once l >= h. The halves are the CNN's self-Cartesian product
// halves, nr = nc = n (n = N1D+LSTMOut channels for the pair map, N1D for
// the re-injection), or the SCNN's sgConv halves, both on the map's 2n
// kernel channels: nr = nc = 2n. Every chain is taken to be l long (a
// shorter chain of a padded batch visits fewer offsets), and the R and Q
// loops' skipping of zero inputs is not counted. An Arch whose inference
// would materialise its maps (no blocks) counts ConvFLOPs' convolutions
// on P pixels: ConvFLOPs for a CNN, (l+1)/(2l) of it for an SCNN.
func (a Arch) InferenceFLOPs(b, l int) float64 {
	p := float64(l * l)
	if a.Kind == SCNN {
		p = float64(l * (l + 1) / 2)
	}
	if !a.Spec().InfersByHalves() {
		return 2 * a.convMACs() * p * float64(b)
	}
	n1 := a.N1D + a.LSTMOut
	n2 := a.N2D + a.SepChannels
	nAfter := 0 // the 2D tensors given with the batch
	for _, c := range []int{a.N2D, a.SepChannels} {
		if c > 0 {
			nAfter++
		}
	}
	// halves is nr + nc of a pair map of a 1D input of n channels.
	halves := func(n int) int {
		if a.Kind == SCNN {
			return 4 * n // the sgConv's 2n channels, in each half
		}
		return 2 * n
	}
	fl := float64(l)
	byParts := func(k, cout, cd, nrc int) float64 {
		kf, co := float64(k), float64(cout)
		return 2*p*kf*kf*float64(cd)*co + float64(nAfter)*p*co +
			2*float64(taps(l, k))*kf*float64(nrc)*co + 2*fl*kf*co + 4*p*co
	}
	flops := 0.0
	in := 2*n1 + n2
	for bi, ks := range a.Blocks {
		for _, k := range ks {
			if bi == 0 {
				flops += byParts(k, a.Width, n2, halves(n1))
			} else {
				flops += 2 * p * float64(k*k*in*a.Width)
			}
		}
		in = a.Width * len(ks)
	}
	before := in
	in += 2*a.N1D + n2
	for hi, k := range a.Head {
		out := a.HeadWidth
		if hi == len(a.Head)-1 {
			out = 1
		}
		if hi == 0 {
			flops += byParts(k, out, before+n2, halves(a.N1D))
		} else {
			flops += 2 * p * float64(k*k*in*out)
		}
		in = out
	}
	return flops * float64(b)
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
