package kern

import "fmt"

// A PackedB is the B operand of many Gemm calls, packed once: a
// convolution's kernel matrix, which every tile of pixels multiplies.
// With the Go sgemm, Gemm packs op(B) into the kernel's panels on every
// call (packB); GemmPacked reuses the panels. In the OpenBLAS build it
// only records B, and GemmPacked is Gemm.
//
// A PackedB is read-only once made, so concurrent GemmPacked calls may
// share it; Release returns its panels to the scratch pool after the last.
type PackedB struct {
	transB bool
	b      []float32
	ldb    int
	k, n   int
	alpha  float32
	g      *goPackedB   // nil: call Gemm
	bf     *bf16PackedB // packed for bfloat16 (SetGemmPrecision)
}

// PackB packs alpha * op(B), op(B) k x n (B^T with transB), for GemmPacked.
func PackB(transB bool, k, n int, alpha float32, b []float32, ldb int) *PackedB {
	if k < 0 || n < 0 {
		panic(fmt.Sprintf("kern: PackB: negative shape %d x %d", k, n))
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if k > 0 && n > 0 {
		checkGemm("B", b, br, bc, ldb)
	}
	p := &PackedB{transB: transB, b: b, ldb: ldb, k: k, n: n, alpha: alpha}
	if backend == "go" && k > 0 && n > 0 && alpha != 0 {
		if bs := bf16Active.Load(); bs != nil {
			p.bf = packBF16B(bs, transB, k, n, alpha, b, ldb)
		} else {
			p.g = packGo(transB, k, n, alpha, b, ldb)
		}
	}
	return p
}

// Release gives the panels back; p must not be used afterwards.
func (p *PackedB) Release() {
	if p.g != nil {
		putScratch(p.g.bp)
		p.g = nil
	}
	if p.bf != nil {
		p.bf.release()
		p.bf = nil
	}
	p.b = nil
}

// GemmPacked is Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb,
// beta, c, ldc) with the transB, n, k, alpha and B of p, bit for bit,
// in the precision in force when p was packed:
//
//	C = alpha * op(A) * op(B) + beta * C
func GemmPacked(transA bool, m int, a []float32, lda int, p *PackedB, beta float32, c []float32, ldc int) {
	if p.g == nil && p.bf == nil {
		Gemm(transA, p.transB, m, p.n, p.k, p.alpha, a, lda, p.b, p.ldb, beta, c, ldc)
		return
	}
	if m < 0 {
		panic(fmt.Sprintf("kern: GemmPacked: negative m %d", m))
	}
	if m == 0 {
		return
	}
	ar, ac := m, p.k
	if transA {
		ar, ac = p.k, m
	}
	checkGemm("A", a, ar, ac, lda)
	checkGemm("C", c, m, p.n, ldc)
	if p.bf != nil {
		gemmBF16Packed(transA, m, a, lda, p.bf, beta, c, ldc)
		return
	}
	sgemmPacked(transA, m, a, lda, p.g, beta, c, ldc, false)
}

// gemmPackedOwnA is GemmPacked for an A that is the caller's own
// workspace (an im2col tile from getScratch): the float32 products read
// a ragged last block's missing rows in place from the workspace's spare
// capacity rather than copying the block (sgemmPacked's ownA); C is the
// same bit for bit.
func gemmPackedOwnA(m int, a []float32, lda int, p *PackedB, beta float32, c []float32, ldc int) {
	if p.g == nil || p.bf != nil || m <= 0 {
		GemmPacked(false, m, a, lda, p, beta, c, ldc)
		return
	}
	checkGemm("A", a, m, p.k, lda)
	checkGemm("C", c, m, p.n, ldc)
	sgemmPacked(false, m, a, lda, p.g, beta, c, ldc, true)
}

// gemmOwnATrans is Gemm for an A that is the caller's own workspace, op(A) =
// A^T (an im2col tile, transposed, in the kernel gradients): a ragged
// last block reads its missing rows in place from the workspace
// (sgemmPacked's ownA); C is the same bit for bit.
func gemmOwnATrans(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if backend != "go" || bf16Active.Load() != nil || m <= 0 || n <= 0 || k <= 0 || alpha == 0 {
		Gemm(true, false, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	checkGemm("A", a, k, m, lda)
	checkGemm("B", b, k, n, ldb)
	checkGemm("C", c, m, n, ldc)
	pb := packGo(false, k, n, alpha, b, ldb)
	defer putScratch(pb.bp)
	sgemmPacked(true, m, a, lda, pb, beta, c, ldc, true)
}
