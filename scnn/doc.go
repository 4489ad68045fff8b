// Package scnn is a small float32 neural-network library for contact-map
// prediction with Symmetry-Structured Convolutional Neural Networks:
//
//	K. D. G. Maduranga, V. Zadorozhnyy, Q. Ye. Symmetry-structured
//	convolutional neural networks. Neural Computing and Applications 35,
//	4421–4434 (2023). arXiv:2203.02056.
//
// A contact map is symmetric, and so is every 2D feature map of an SCNN:
//
//   - SelfCartesian turns 1D features x (B, L, n) into y (B, L, L, 2n),
//     y[i,j] = [x_i, x_j].
//   - SymGenConv (sgConv) convolves a self-Cartesian product with a kernel
//     tied so the output is symmetric (W[a,b] = W[b,a], W[a,b,k] =
//     W[a,b,n+k]); its gradient follows the paper's Theorem 2. At kernel
//     size 1 it is computed as an outer sum a_i + a_j.
//   - SymPresConv (spConv) convolves a symmetric map with a spatially
//     symmetric kernel, Q[a,b] = Q[b,a], and so keeps it symmetric.
//
// Symmetric maps are stored packed (Layout Packed): the upper triangle
// only, so they take about half the memory, and the symmetric convolutions
// compute only output pixels i <= j, forward and backward, so they take
// about half the FLOPs of an ordinary convolution with the same kernel.
// Because the network output is symmetric, the loss gradient can be
// symmetrised without changing any parameter gradient; WeightedBCE does so
// for packed outputs, and every backward map is then symmetric and packed
// too. BatchNorm2D weights off-diagonal pixels of a packed map twice, so its
// statistics equal those of the full map.
//
// Ordinary layers (Conv2D, Dense, BiLSTM, BatchNorm2D on row-major maps)
// build the paper's baseline CNN. For the paper's recommendation system
// (CosRec and SCosRec) the library also has valid (unpadded)
// convolutions, Conv2D.ApplyValid and, on triangles, SymPresConv.ApplyValid;
// Embedding lookups with a sparse gradient; RowDot, the scores of chosen
// candidate rows; GlobalAvgPool (dense or packed); Tanh; and seeded
// Dropout. Layers hold parameters only; each Apply
// runs in a Pass (pass.go). A training pass records every operation's
// hand-written backward step, with what it needs, on a tape, and
// Pass.Backward replays the tape from the loss gradient, adding to the
// parameter gradients; composing layers is all a model writes. An
// inference pass records nothing, recycles the buffers of intermediates
// its caller releases (pool.go), and only reads the layers, so one model
// serves concurrent passes. Adam with L2 decay updates the trainable
// params; WriteParams and ReadParams store them in a versioned binary
// format (see io.go) together with a caller-defined architecture record;
// ReadParamsExpect checks a file's arrays against the params (ParamShape)
// of the model its record describes before allocating them.
//
// Convolutions are GEMMs through the package's own sgemm. The forward pass
// uses im2col + sgemm (the direct method for narrow layers), or, when a layer has at most half as many output as
// input channels, the output-side ("kn2row") method, which multiplies the
// input by every kernel position in one GEMM without copying it and then
// gathers; parallel branches of a block share one im2col (ForwardBranches).
// The backward pass takes one im2col of the output gradient per tile for
// both the input and the kernel gradient. Work is split over fixed (sample,
// pixel tile or row band) items dealt statically to goroutines, so results
// are deterministic for a given worker count (inference: whatever the count).
//
// The sgemm is Go (internal/kern/sgemm.go): packing of B, A read in place,
// and register-blocked micro-kernels in Go assembly for AVX-512 and
// AVX2+FMA, chosen at run time from the CPU (golang.org/x/sys/cpu), with a
// portable Go kernel for other platforms and the purego build tag;
// SetKernels forces a set (the commands read CONTACTMAP_SGEMM for it). The
// openblas build tag (cgo, libopenblas-dev) calls OpenBLAS instead, for
// comparison; only that build re-executes the commands with
// OPENBLAS_CORETYPE set when OpenBLAS misjudges the CPU (scnn/blasenv).
// The library calls its BLAS directly and leaves gonum's global
// implementation alone. Besides the kernels' workspace cache (a
// sync.Pool, emptied by the garbage collector), its only process-wide
// state is a choice the caller controls: the sgemm kernel set
// (SetKernels; the default is the best the CPU runs). Buffers are
// recycled only through a Recycler the caller owns (TrainingWith).
package scnn
