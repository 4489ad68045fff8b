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

// FuzzGemmPacked: over shapes, flags and kernel sets, GemmPacked with a
// PackB shared by two products equals Gemm bit for bit, and addRows the
// row-order loop.
func FuzzGemmPacked(f *testing.F) {
	f.Add(uint16(7), uint16(54), uint16(130), uint8(5))
	f.Add(uint16(1), uint16(1), uint16(1), uint8(0))
	f.Add(uint16(96), uint16(8), uint16(300), uint8(255))
	f.Fuzz(func(t *testing.T, m16, n16, k16 uint16, flags uint8) {
		m, n, k := int(m16%97)+1, int(n16%170)+1, int(k16%300)+1
		transA, transB := flags&1 != 0, flags&2 != 0
		alpha := []float32{1, 1.5}[flags>>2&1]
		beta := []float32{0, 1, -0.5, 2}[flags>>4&3]
		rng := rand.New(rand.NewPCG(uint64(m16), uint64(k16)))
		old := activeSet.Load()
		defer activeSet.Store(old)
		for _, name := range KernelSets() {
			if err := SetKernels(name); err != nil {
				t.Fatal(err)
			}
			ldb, brows := n, k
			if transB {
				ldb, brows = k, n
			}
			b := randSlice(brows*ldb, rng)
			p := PackB(transB, k, n, alpha, b, ldb)
			for rep := 0; rep < 2; rep++ {
				lda, arows := k, m
				if transA {
					lda, arows = m, k
				}
				a := randSlice(arows*lda, rng)
				c0 := randSlice(m*n, rng)
				want, got := append([]float32(nil), c0...), append([]float32(nil), c0...)
				Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, want, n)
				GemmPacked(transA, m, a, lda, p, beta, got, n)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s: c[%d] = %v, Gemm %v", name, i, got[i], want[i])
					}
				}
			}
			p.Release()
			// addRows: n floats, cnt = k%8 rows, step n + m%5.
			cnt, step := k%8, n+m%5
			z := randSlice(max(cnt-1, 0)*step+n, rng)
			o := randSlice(n, rng)
			want := append([]float32(nil), o...)
			for r := 0; r < cnt; r++ {
				for j := range want {
					want[j] += z[r*step+j]
				}
			}
			activeSet.Load().addRows(o, z, step, cnt)
			for j := range want {
				if math.Float32bits(o[j]) != math.Float32bits(want[j]) {
					t.Fatalf("%s: addRows o[%d] = %v, want %v", name, j, o[j], want[j])
				}
			}
		}
	})
}

// gemmPackedOwnA gives GemmPacked's bits on every kernel set, for row
// counts around every kernel's mr and panel widths, with NaN in A's spare
// capacity (which a ragged last block reads in place, its rows' results
// dropped) and with no spare capacity (the block copied as before).
func TestGemmPackedOwnA(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	withKernels(t, func(t *testing.T) {
		for _, m := range []int{1, 5, 6, 7, 11, 12, 13, 23, 24, 25, 100} {
			for _, shape := range [][2]int{{72, 8}, {72, 26}, {200, 40}} {
				k, n := shape[0], shape[1]
				for _, spare := range []int{0, 30} {
					buf := make([]float32, (m+spare)*k)
					for i := range buf {
						buf[i] = float32(rng.NormFloat64())
					}
					for i := m * k; i < len(buf); i++ {
						buf[i] = float32(math.NaN())
					}
					a := buf[:m*k]
					w := make([]float32, k*n)
					for i := range w {
						w[i] = float32(rng.NormFloat64())
					}
					p := PackB(false, k, n, 1, w, n)
					got, want := make([]float32, m*(n+3)), make([]float32, m*(n+3))
					for i := range got {
						got[i] = float32(rng.NormFloat64())
						want[i] = got[i]
					}
					gemmPackedOwnA(m, a, k, p, 1, got, n+3)
					GemmPacked(false, m, a, k, p, 1, want, n+3)
					p.Release()
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("m %d k %d n %d spare %d: C[%d] = %v, want %v", m, k, n, spare, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
}

// gemmOwnATrans gives Gemm's bits (op(A) = A^T) on every kernel set, for
// row counts of op(A) around the kernels' mr, with NaN in A's spare
// capacity and with none.
func TestGemmOwnATrans(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	withKernels(t, func(t *testing.T) {
		for _, m := range []int{1, 5, 7, 13, 25, 72, 234} {
			for _, shape := range [][2]int{{100, 8}, {300, 26}} {
				k, n := shape[0], shape[1]
				for _, spare := range []int{0, 40} {
					buf := make([]float32, k*m+spare*m)
					for i := range buf {
						buf[i] = float32(rng.NormFloat64())
					}
					for i := k * m; i < len(buf); i++ {
						buf[i] = float32(math.NaN())
					}
					a := buf[:k*m] // k x m: op(A) = A^T is m x k
					b := make([]float32, k*n)
					for i := range b {
						b[i] = float32(rng.NormFloat64())
					}
					got, want := make([]float32, m*n), make([]float32, m*n)
					for i := range got {
						got[i] = float32(rng.NormFloat64())
						want[i] = got[i]
					}
					gemmOwnATrans(m, n, k, 1, a, m, b, n, 1, got, n)
					Gemm(true, false, m, n, k, 1, a, m, b, n, 1, want, n)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("m %d k %d n %d spare %d: C[%d] = %v, want %v", m, k, n, spare, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
}
