// Package kern holds the numerical kernels behind package scnn: an sgemm
// (sgemm.go: B packed in panels, A read in place with any strides, MR x NR
// register-blocked micro-kernels generated in Go assembly for AVX-512 and
// AVX2+FMA by gen_sgemm.go and chosen from the CPU at start, a portable Go
// kernel elsewhere and under the purego tag; OpenBLAS instead with the
// openblas tag), im2col for dense and packed-triangle feature maps,
// convolutions by im2col + GEMM (conv.go) or by the output-side method
// (outconv.go), and a deterministic parallel loop.
//
// Kernels work on flat []float32 slices and trust their inputs: shapes are
// checked by the layers in package scnn, not here. Each kernel is documented
// by the loop it computes. Out-of-range arguments are programmer errors and
// may panic with an index error.
//
// # Layouts
//
// A dense map of B samples, H rows, W columns and C channels is stored NHWC:
// element (b, i, j, c) is at ((b*H+i)*W+j)*C + c.
//
// A symmetric L x L map with C channels is stored packed: only the upper
// triangle i <= j, row by row, so element (b, i, j, c) with i <= j is at
// (b*P + Tri(L, i, j))*C + c with P = L(L+1)/2 and
//
//	Tri(L, i, j) = i*L - i*(i-1)/2 + (j - i).
//
// Element (b, i, j, c) with i > j is element (b, j, i, c).
package kern
