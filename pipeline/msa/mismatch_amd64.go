//go:build amd64 && !purego

package msa

import "golang.org/x/sys/cpu"

// mismatches64AVX512 returns the number of places in which a[0:n] and
// b[0:n] differ, 64 bytes a step (the last step masked, its bytes past
// n neither read nor counted), or as soon as the count passes maxMis a
// count above it. n is at least 1.
//
//go:noescape
func mismatches64AVX512(a, b *byte, n, maxMis int) int

// mismatches32AVX2 is the same over the first n bytes, n a multiple of
// 32 and at least 32, 32 bytes a step.
//
//go:noescape
func mismatches32AVX2(a, b *byte, n, maxMis int) int

func withinMismatchesAVX512(a, b []byte, maxMis int) bool {
	b = b[:len(a)]
	if len(a) == 0 {
		return maxMis >= 0
	}
	return mismatches64AVX512(&a[0], &b[0], len(a), maxMis) <= maxMis
}

func withinMismatchesAVX2(a, b []byte, maxMis int) bool {
	b = b[:len(a)]
	n := len(a) &^ 31
	mis := 0
	if n > 0 {
		if mis = mismatches32AVX2(&a[0], &b[0], n, maxMis); mis > maxMis {
			return false
		}
	}
	return withinMismatchesGo(a[n:], b[n:], maxMis-mis)
}

// mismatchKernels lists the kernels this CPU runs, the default first.
func mismatchKernels() []mismatchKernel {
	var ks []mismatchKernel
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasPOPCNT {
		ks = append(ks, mismatchKernel{"avx512", withinMismatchesAVX512})
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT {
		ks = append(ks, mismatchKernel{"avx2", withinMismatchesAVX2})
	}
	return append(ks, mismatchKernel{"go", withinMismatchesGo})
}

func init() { withinMismatches = mismatchKernels()[0].within }
