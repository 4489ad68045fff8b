//go:build amd64 && !purego

package kern

import "golang.org/x/sys/cpu"

//go:generate go run gen_bf16.go

// The AVX512_BF16 micro-kernels of bf16_amd64.s (see gen_bf16.go): MR x
// NR blocks of C from pairs of K steps, a read at a + r*rs + p*cs words,
// b a packed NR-column panel of pairs, C written under a column mask.

//go:noescape
func kernBF16_6x64(k int, a *uint32, rs, cs int, b *uint32, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernBF16_12x32(k int, a *uint32, rs, cs int, b *uint32, c *float32, ldc int, add bool, mask uint64)

//go:noescape
func kernBF16_24x16(k int, a *uint32, rs, cs int, b *uint32, c *float32, ldc int, add bool, mask uint64)

// cvtPairsBF16 and cvtInterleaveBF16 convert n >= 1 words, the last
// n%16 under a mask (gen_bf16.go).
//
//go:noescape
func cvtPairsBF16(dst *uint32, src *float32, n int)

//go:noescape
func cvtInterleaveBF16(dst *uint32, lo, hi *float32, n int, perm *uint16)

//go:noescape
func dpLoopBF16(n int)

//go:noescape
func directBF16_1(acc *float32, x *uint32, ldx int, w *uint32, cp, k int)

//go:noescape
func directBF16_2(acc *float32, x *uint32, ldx int, w *uint32, cp, k int)

//go:noescape
func directBF16_3(acc *float32, x *uint32, ldx int, w *uint32, cp, k int)

// directBF16AVX512 is the directBF16Kernel of the AVX512_BF16 set. It
// checks that every element the assembly touches is inside its slices.
func directBF16AVX512(nv int, acc []float32, x []uint32, ldx int, w []uint32, cp, k int) {
	n := nv * directV
	if nv < 1 || nv > directMaxNV || cp < 1 || k < 1 || len(acc) < directF*n ||
		len(x) < (cp-1)*ldx+k-1+n || len(w) < cp*k*directF {
		panic("kern: directBF16AVX512: arguments out of range")
	}
	switch nv {
	case 1:
		directBF16_1(&acc[0], &x[0], ldx, &w[0], cp, k)
	case 2:
		directBF16_2(&acc[0], &x[0], ldx, &w[0], cp, k)
	default:
		directBF16_3(&acc[0], &x[0], ldx, &w[0], cp, k)
	}
}

// interleavePerm takes word i of the low half and word i of the high
// half of a converted register to words 2i and 2i+1.
var interleavePerm = func() (p [32]uint16) {
	for i := range 16 {
		p[2*i], p[2*i+1] = uint16(i), uint16(16+i)
	}
	return p
}()

func maskedBF16(mr, nr int, speed float64, f func(k int, a *uint32, rs, cs int, b *uint32, c *float32, ldc int, add bool, mask uint64)) bf16Kernel {
	return bf16Kernel{mr: mr, nr: nr, speed: speed, run: func(kp int, a []uint32, ao, rs, cs int, b []uint32, c []float32, co, ldc int, add bool, nb int) {
		mask := ^uint64(0)
		if nb < 64 {
			mask = 1<<nb - 1
		}
		f(kp, &a[ao], rs, cs, &b[0], &c[co], ldc, add, mask)
	}}
}

func cvtPairsAVX512(dst []uint32, src []float32) {
	if n := len(dst); n > 0 {
		_ = src[2*n-1]
		cvtPairsBF16(&dst[0], &src[0], n)
	}
}

func cvtInterleaveAVX512(dst []uint32, lo, hi []float32) {
	if n := len(dst); n > 0 {
		_, _ = lo[n-1], hi[n-1]
		cvtInterleaveBF16(&dst[0], &lo[0], &hi[0], n, &interleavePerm[0])
	}
}

// archBF16Sets returns the AVX512_BF16 kernels on a CPU that has them,
// with relative speeds as the float32 kernels'.
func archBF16Sets() []*bf16Set {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasAVX512BW || !cpu.X86.HasAVX512BF16 {
		return nil
	}
	return []*bf16Set{{name: "avx512bf16", kernels: []bf16Kernel{
		maskedBF16(6, 64, 1, kernBF16_6x64),
		maskedBF16(12, 32, 0.93, kernBF16_12x32),
		maskedBF16(24, 16, 0.78, kernBF16_24x16),
	}, cvtPairs: cvtPairsAVX512, cvtInterleave: cvtInterleaveAVX512, direct: directBF16AVX512}}
}

// dpLoop runs n (at least 1) steps of the bfloat16 peak loop and returns
// the operations done (two per multiply-add), 0 without AVX512_BF16.
func dpLoop(n int) float64 {
	if bf16Sets[0].name == "go" {
		return 0
	}
	n = max(n, 1)
	dpLoopBF16(n)
	return float64(n) * 16 * 32 * 2
}
