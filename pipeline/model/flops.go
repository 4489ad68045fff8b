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
func (a Arch) ConvFLOPs(b, l int) float64 {
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
	return 2 * macs * float64(b*l*l)
}
