package scnn

import (
	"slices"
	"time"

	"github.com/contactmap/contactmap/scnn/internal/kern"
	"golang.org/x/sys/cpu"
)

// BLASBackend names the sgemm behind the convolutions: "go" (the Go
// sgemm with assembly micro-kernels on amd64, portable Go elsewhere and
// with the purego tag), or "openblas" in a build with the openblas tag.
func BLASBackend() string { return kern.Backend() }

// SgemmKernels names the micro-kernels of the Go sgemm in use: "avx512",
// "avx2" or "go" (portable), the best the CPU runs unless SetKernels chose
// another, or "openblas" in the OpenBLAS build.
func SgemmKernels() string { return kern.Kernels() }

// SetKernels makes the Go sgemm use the named micro-kernels for every
// later call, process-wide: "avx512", "avx2" or "go" (portable), or "" for
// the best this CPU and build runs (the default). It returns an error, and
// changes nothing, if this CPU or build cannot run the named set. Every set
// computes the same products up to float32 rounding; the choice is for
// tests and speed comparisons (the commands read it from the environment
// variable CONTACTMAP_SGEMM). In the OpenBLAS build it has no effect on
// the convolutions.
func SetKernels(name string) error { return kern.SetKernels(name) }

// SetGemmPrecision chooses the arithmetic of every later GEMM and direct
// convolution, process-wide: "float32" (the default), or "bfloat16",
// where the CPU has AVX512_BF16: both operands rounded to bfloat16 (to
// nearest even) and their products summed in float32 by VDPBF16PS, twice
// the multiply-adds of an FMA per instruction. Weights, activations and
// gradients stay float32. It returns an error, and changes nothing,
// where the CPU or build has no bfloat16 kernels. Training runs set it
// from their Precision option (contactmap train and rna train
// --precision) and record it; make bench's worker takes
// --gemm-precision.
func SetGemmPrecision(p string) error { return kern.SetGemmPrecision(p) }

// GemmPrecision names the arithmetic of the GEMMs: "float32" or
// "bfloat16/<kernel set>".
func GemmPrecision() string { return kern.GemmPrecision() }

// RecordedPrecision is a precision as training runs record it in their
// checkpoints and model files: "" for float32 (or ""), p otherwise.
// SetGemmPrecision takes either form.
func RecordedPrecision(p string) string {
	if p == "float32" {
		return ""
	}
	return p
}

// KernelSets lists the names SetKernels accepts on this CPU and build,
// best first ("go" always last).
func KernelSets() []string { return kern.KernelSets() }

// FMAPeak measures the machine's float32 fused multiply-add peak in
// GFLOP/s with workers goroutines (0: GOMAXPROCS) for about d, and names
// the instruction set; 0 and "" in a build without the vector loop.
func FMAPeak(workers int, d time.Duration) (gflops float64, isa string) {
	return kern.FMAPeak(workers, d)
}

// FMAWork runs steps steps of FMAPeak's loop on each of workers
// goroutines (0: GOMAXPROCS) at once and returns the floating-point
// operations done (0 in a build without the loop): FMAPeak's work, to be
// timed beside other work.
func FMAWork(workers, steps int) float64 { return kern.FMAWork(workers, steps) }

// BLASCore names the kernel set OpenBLAS chose at load time (for example
// "SkylakeX", "Haswell", "Prescott"), or "" in the default (Go) build.
func BLASCore() string { return kern.BLASCore() }

// PreferredBLASCore returns the OPENBLAS_CORETYPE value that suits this CPU
// better than the kernel set OpenBLAS chose, or "" if its choice is fine.
//
// OpenBLAS picks its kernels from the CPU model number. On virtual
// machines that report an unlisted model (seen: "Intel(R) Xeon(R)
// Processor" with AVX-512, where OpenBLAS 0.3.21 falls back to its SSE3
// "Prescott" kernels) sgemm runs several times slower than the CPU allows.
// OpenBLAS reads OPENBLAS_CORETYPE only when it is loaded, so a program
// must set it before it starts; the commands re-execute themselves with it
// (scnn/blasenv).
func PreferredBLASCore() string {
	avx512 := cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512CD
	avx2 := cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX
	return preferredCore(BLASCore(), avx512, avx2)
}

// preferredCore is PreferredBLASCore's rule: OpenBLAS kernel sets that use
// AVX-512 or AVX2 are kept; an older set is replaced by SkylakeX on a CPU
// with AVX-512 (F, BW, DQ, VL, CD), by Haswell on one with AVX2 and FMA.
func preferredCore(current string, avx512, avx2 bool) string {
	if current == "" {
		return ""
	}
	wide := []string{"SkylakeX", "Cooperlake", "SapphireRapids"}
	modern := append([]string{"Haswell", "Zen"}, wide...)
	switch {
	case avx512 && !slices.Contains(wide, current):
		return "SKYLAKEX"
	case !avx512 && avx2 && !slices.Contains(modern, current):
		return "HASWELL"
	}
	return ""
}

// Sgemm computes, with row-major matrices, C = alpha * op(A) * op(B) +
// beta * C (op(A) m x k, op(B) k x n, transA/transB select the transpose)
// on one goroutine with the sgemm of the convolutions. It panics if a
// slice is shorter than its shape needs.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	kern.Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// DirectConv reports whether a convolution of kernel size k from cin to
// cout channels on an l x l map runs by the direct method of the kernels in use (narrow
// layers, vectorised over the pixels of a row; see package
// scnn/internal/kern), for a caller that models its workspaces
// (pairnet's InferenceBytes).
func DirectConv(k, cin, cout, l int) bool {
	return kern.ConvGeom{H: l, W: l, K: k, Cin: cin, Cout: cout}.UseDirect()
}

// FoldsPairs reports whether the backward pass of an spConv of kernel
// size k from cin to cout channels works on the k(k+1)/2 position pairs
// of its spatially symmetric kernel instead of its k*k positions (see
// package scnn/internal/kern), for a caller that counts the FLOPs it
// executes (pairnet's TrainFLOPs).
func FoldsPairs(k, cin, cout int) bool { return kern.FoldsPairs(k, cin, cout) }

// ForwardFoldsPairs reports whether the forward pass of an spConv
// (SymPresConv) of kernel k from cin to cout channels on l x l maps
// computes its k(k+1)/2 position pairs (a, b), a <= b, each on the sum of
// its two mirrored inputs, instead of its k*k positions: the direct
// method's pair kernel, in float32, on this CPU's
// kernel set (scnn/internal/kern's ForwardFoldsPairs).
func ForwardFoldsPairs(k, cin, cout, l int) bool { return kern.ForwardFoldsPairs(k, cin, cout, l) }

// DirectWorkspace is the workspace of the direct method, in floats, for
// a block of largest kernel k on l x l maps of cin channels: per worker,
// its row buffers (ring) and accumulators (acc), and the repacked weights
// of one of its convolutions, of kernel kb and cout channels.
func DirectWorkspace(k, cin, l, kb, cout int) (ring, acc, weights int) {
	return kern.DirectWorkspace(k, cin, l, kb, cout)
}
