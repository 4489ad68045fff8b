// Package pairnet builds the pair networks of Maduranga, Zadorozhnyy and
// Ye ("Symmetry-structured convolutional neural networks", Neural
// Computing and Applications 35:4421–4434, 2023, arXiv:2203.02056) from a
// description, Spec, as an ordinary CNN or as its symmetric twin (SCNN):
//
//	1D input (B, L, In1D)
//	  -> BiLSTM (LSTMHidden per direction) -> Dense to LSTMOut -> concat with the input
//	  -> pair map: CNN, the self-Cartesian product [x_i, x_j] (2n channels);
//	     SCNN, a 1x1 sgConv of it to Pair.Width channels (an outer sum)
//	     [-> batchnorm] [-> ReLU]
//	  -> concat the 2D inputs (In2D) and the fixed pair channels (Fixed2D)
//	  -> Blocks: parallel convolutions of several kernel sizes on one input,
//	     joined by channel, batchnorm, ReLU (spConv in the SCNN)
//	  -> concat the re-injected pair map of the 1D input (and the 2D and
//	     fixed channels again)
//	  -> Head blocks -> a last convolution to one channel: the logits
//	     (sigmoid gives contact or base-pair probabilities)
//
// The protein contact networks of the paper (1D L x 25 + 2D L x L x 3
// features) and its RNA secondary-structure networks (one-hot L x 5, no
// 2D input, a re-injected one-hot pair map) are instances; the
// applications own their feature layouts and build the inputs.
//
// A Net holds parameters only. A forward pass runs in an scnn.Pass: in a
// training pass the pass records each layer's backward step, so
// Pass.Backward gives every parameter gradient (no hand-written backward
// wiring); in an inference pass nothing is recorded, each intermediate is
// dropped as soon as it is consumed and batchnorm and ReLU work in place,
// and any number of goroutines may run inference passes on one Net.
//
// Symmetric maps are packed upper triangles (scnn.Packed): the SCNN takes
// and returns packed 2D maps, the CNN row-major ones.
//
// Spec.Check bounds every architecture field (MaxWidth, MaxBlocks,
// MaxBranches, MaxParams, scnn.MaxKernel) before New allocates anything,
// so that a model file with absurd widths is refused with the field named
// instead of running the process out of memory; both the protein and the
// RNA model loaders check their records with it.
//
// Spec.InferenceBytes(l, workers) estimates the memory of one inference
// pass on a sequence of length l (an upper bound of its peak heap, within
// a factor 2): a command compares it with what the process has (package
// internal/memavail) to refuse an over-long input with a message.
package pairnet
