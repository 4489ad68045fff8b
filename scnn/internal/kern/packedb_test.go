package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// GemmPacked equals Gemm bit for bit, for every kernel set, with one
// PackedB shared by several products of different A (ragged m, both
// layouts of A, beta 0 and 1), as a convolution's tiles share its kernel.
func TestGemmPackedEqualsGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	withKernels(t, func(t *testing.T) {
		for _, sh := range [][2]int{{1, 1}, {7, 3}, {54, 1350}, {64, 576}, {162, 129}, {8, 200}, {33, 17}} {
			n, k := sh[0], sh[1]
			for _, transB := range []bool{false, true} {
				for _, alpha := range []float32{1, 0.5} {
					t.Run(fmt.Sprintf("n%d_k%d_tb%v_a%g", n, k, transB, alpha), func(t *testing.T) {
						ldb := n + 3
						if transB {
							ldb = k + 3
						}
						rows := k
						if transB {
							rows = n
						}
						b := randSlice(rows*ldb, rng)
						p := PackB(transB, k, n, alpha, b, ldb)
						defer p.Release()
						for _, m := range []int{1, 5, 13, 100} {
							for _, transA := range []bool{false, true} {
								for _, beta := range []float32{0, 1} {
									lda := k + 2
									arows := m
									if transA {
										lda, arows = m+2, k
									}
									a := randSlice(arows*lda, rng)
									ldc := n + 1
									c0 := randSlice(m*ldc, rng)
									want := append([]float32(nil), c0...)
									got := append([]float32(nil), c0...)
									Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
									GemmPacked(transA, m, a, lda, p, beta, got, ldc)
									for i := range want {
										if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
											t.Fatalf("m %d transA %v beta %v: c[%d] = %v, Gemm %v", m, transA, beta, i, got[i], want[i])
										}
									}
								}
							}
						}
					})
				}
			}
		}
	})
}

func TestPackBChecksB(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a B too small for its shape was packed")
		}
	}()
	PackB(false, 4, 4, 1, make([]float32, 15), 4)
}
