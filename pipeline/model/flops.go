package model

// ConvFLOPs is the number of floating-point operations (2 per
// multiply-add) of the model's 2D convolutions in one forward pass over a
// batch of b chains of length l, counted on the full L x L maps
// (pairnet.Spec.ConvMACs):
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
	return 2 * a.Spec().ConvMACs() * float64(b*l*l)
}

// InferenceFLOPs is the number of floating-point operations of the
// model's 2D convolutions that an inference pass over a batch of b chains
// of length l executes (pairnet.Spec.InferenceFLOPs, where the loops are
// written out): the protein networks of both kinds infer by halves, the
// convolutions that read a pair map (every branch of the first block, and
// the first head convolution after the re-injection) computed from the
// map's two 1D halves, the others on the P pixels the pass computes, l*l
// for the CNN and the L(L+1)/2 of the packed upper triangle for the
// SCNN.
func (a Arch) InferenceFLOPs(b, l int) float64 {
	return a.Spec().InferenceFLOPs(b, l)
}

// TrainFLOPs is InferenceFLOPs for a training step, forward and backward
// (pairnet.Spec.TrainFLOPs): the networks that infer by halves train so
// too.
func (a Arch) TrainFLOPs(b, l int) float64 {
	return a.Spec().TrainFLOPs(b, l)
}
