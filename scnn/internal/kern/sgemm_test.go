package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// naiveGemm is the loop Gemm documents, in float64.
func naiveGemm(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for p := 0; p < k; p++ {
				var av, bv float32
				if ta {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if tb {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			old := float64(c[i*ldc+j])
			if beta == 0 {
				old = 0
			}
			c[i*ldc+j] = float32(float64(alpha)*s + float64(beta)*old)
		}
	}
}

// withKernels runs f once per kernel set this CPU and build can run, each
// forced in turn, so that the AVX2 kernels are tested on an AVX-512 CPU.
func withKernels(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	old := activeSet.Load()
	defer activeSet.Store(old)
	for _, name := range KernelSets() {
		if err := SetKernels(name); err != nil {
			t.Fatal(err)
		}
		t.Run(name, f)
	}
}

type gemmCase struct {
	ta, tb      bool
	m, n, k     int
	pad         int // extra leading-dimension columns
	alpha, beta float32
}

// fillPadded is a rows x cols matrix with leading dimension ld of
// standard normal values, NaN in its padding columns.
func fillPadded(rng *rand.Rand, rows, cols, ld int) []float32 {
	x := make([]float32, rows*ld)
	for i := range x {
		if i%ld < cols {
			x[i] = float32(rng.NormFloat64())
		} else {
			x[i] = float32(math.NaN())
		}
	}
	return x
}

// checkGemmCase compares Gemm with naiveGemm on random matrices, with
// NaN in the padding columns of every leading dimension: a kernel that
// reads or writes outside the matrix shows it.
func checkGemmCase(t *testing.T, tc gemmCase, rng *rand.Rand) {
	t.Helper()
	ar, ac, br, bc := tc.m, tc.k, tc.k, tc.n
	if tc.ta {
		ar, ac = tc.k, tc.m
	}
	if tc.tb {
		br, bc = tc.n, tc.k
	}
	lda, ldb, ldc := ac+tc.pad, bc+tc.pad, tc.n+tc.pad
	a, b, c := fillPadded(rng, ar, ac, lda), fillPadded(rng, br, bc, ldb), fillPadded(rng, tc.m, tc.n, ldc)
	if tc.beta == 0 {
		for i := range c {
			if i%ldc < tc.n && i%3 == 0 {
				c[i] = float32(math.NaN()) // beta = 0 must clear, not multiply
			}
		}
	}
	want := append([]float32(nil), c...)
	naiveGemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
	Gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
	tol := 1e-5 * math.Sqrt(float64(tc.k)+1) * 4
	for i := range c {
		if i%ldc >= tc.n {
			if !math.IsNaN(float64(c[i])) {
				t.Fatalf("%+v: C padding element %d written: %v", tc, i, c[i])
			}
			continue
		}
		if d := math.Abs(float64(c[i] - want[i])); !(d <= tol*(1+math.Abs(float64(want[i])))) {
			t.Fatalf("%+v: C[%d,%d] = %v, want %v", tc, i/ldc, i%ldc, c[i], want[i])
		}
	}
}

func TestGemmMatchesNaive(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 7))
		// Every m, n, k around the tile sizes (4, 6, 8, 12, 16, 24, 32,
		// 64 and the K block of 128), transposes, padding, alpha, beta.
		for _, m := range []int{1, 5, 6, 7, 13, 24, 25, 200, 391} {
			for _, n := range []int{1, 3, 8, 10, 17, 20, 33, 64, 65, 130} {
				for _, k := range []int{1, 2, 7, 128, 129, 300} {
					tc := gemmCase{
						ta: rng.IntN(2) == 0, tb: rng.IntN(2) == 0,
						m: m, n: n, k: k, pad: rng.IntN(3),
						alpha: []float32{1, 0.5, -2}[rng.IntN(3)],
						beta:  []float32{0, 1, 0.25}[rng.IntN(3)],
					}
					checkGemmCase(t, tc, rng)
				}
			}
		}
	})
}

func TestGemmZeroSizes(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 3))
		for _, tc := range []gemmCase{
			{m: 3, n: 4, k: 0, alpha: 1, beta: 0.5},
			{m: 3, n: 4, k: 0, alpha: 1, beta: 0},
			{m: 3, n: 4, k: 5, alpha: 0, beta: 2},
			{m: 3, n: 4, k: 5, alpha: 0, beta: 0},
		} {
			checkGemmCase(t, tc, rng)
		}
		Gemm(false, false, 0, 5, 5, 1, nil, 5, make([]float32, 25), 5, 0, nil, 5) // m = 0: nothing to do
	})
}

func TestGemmShortSlicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Gemm with a short C did not panic")
		}
	}()
	a, b, c := make([]float32, 6), make([]float32, 6), make([]float32, 3)
	Gemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
}

func TestKernelPick(t *testing.T) {
	set := &kernelSet{kernels: []microKernel{{mr: 6, nr: 64, speed: 1}, {mr: 12, nr: 32, speed: 0.93}, {mr: 24, nr: 16, speed: 0.78}}}
	// 162 pads to 176 in 16-wide panels, 192 in 64-wide ones: 176/0.78
	// costs more than 192/1.
	for _, tc := range []struct{ n, nr int }{{64, 64}, {128, 64}, {20, 32}, {32, 32}, {10, 16}, {1, 16}, {48, 16}, {96, 32}, {162, 64}, {54, 64}} {
		if got := set.pick(tc.n).nr; got != tc.nr {
			t.Errorf("pick(%d).nr = %d, want %d", tc.n, got, tc.nr)
		}
	}
}

func FuzzGemm(f *testing.F) {
	f.Add(uint16(7), uint16(20), uint16(130), uint8(5))
	f.Add(uint16(1), uint16(1), uint16(1), uint8(0))
	f.Add(uint16(25), uint16(65), uint16(3), uint8(255))
	f.Fuzz(func(t *testing.T, m, n, k uint16, flags uint8) {
		tc := gemmCase{
			m: int(m%97) + 1, n: int(n%140) + 1, k: int(k%300) + 1,
			ta: flags&1 != 0, tb: flags&2 != 0, pad: int(flags>>2) % 3,
			alpha: 1.5, beta: []float32{0, 1, -0.5, 2}[flags>>4&3],
		}
		rng := rand.New(rand.NewPCG(uint64(m), uint64(k)))
		old := activeSet.Load()
		defer activeSet.Store(old)
		for _, name := range KernelSets() {
			if err := SetKernels(name); err != nil {
				t.Fatal(err)
			}
			checkGemmCase(t, tc, rng)
		}
	})
}

func TestSetKernelsUnknown(t *testing.T) {
	if err := SetKernels("sse9"); err == nil {
		t.Fatal("SetKernels(sse9) succeeded")
	}
}

// BenchmarkGemm reports GFLOP/s of convolution shapes (M pixels, N
// output channels, K = k*k*Cin) on one goroutine, with A as stored (NN)
// and transposed (TN, A read column by column), for every kernel set.
func BenchmarkGemm(b *testing.B) {
	shapes := []struct{ m, n, k int }{{1024, 64, 576}, {1024, 64, 1600}, {576, 64, 1024}, {1024, 32, 576}, {1024, 16, 576},
		{1024, 16, 144}, {1024, 8, 72}, {128, 64, 576}, {256, 64, 576}, {96, 64, 1600}, {1024, 54, 1458}, {1024, 162, 1350}}
	for _, name := range KernelSets() {
		for _, sh := range shapes {
			for _, ta := range []bool{false, true} {
				op := map[bool]string{false: "NN", true: "TN"}[ta]
				b.Run(fmt.Sprintf("%s/%s/M%d_N%d_K%d", name, op, sh.m, sh.n, sh.k), func(b *testing.B) {
					old := activeSet.Load()
					defer activeSet.Store(old)
					if err := SetKernels(name); err != nil {
						b.Fatal(err)
					}
					rng := rand.New(rand.NewPCG(1, 2))
					a, bb, c := randSlice(sh.m*sh.k, rng), randSlice(sh.k*sh.n, rng), make([]float32, sh.m*sh.n)
					lda := sh.k
					if ta {
						lda = sh.m
					}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						Gemm(ta, false, sh.m, sh.n, sh.k, 1, a, lda, bb, sh.n, 0, c, sh.n)
					}
					b.ReportMetric(float64(2*sh.m*sh.n*sh.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

func TestFMAPeak(t *testing.T) {
	g, isa := FMAPeak(1, 20*time.Millisecond)
	if isa == "" {
		t.Skip("no vector FMA loop in this build")
	}
	if !(g > 0) || math.IsInf(g, 0) {
		t.Fatalf("FMAPeak = %v GFLOP/s (%s)", g, isa)
	}
}

func BenchmarkFMAPeak(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprint(w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				g, _ := FMAPeak(w, 500*time.Millisecond)
				b.ReportMetric(g, "GFLOP/s")
			}
		})
	}
}
