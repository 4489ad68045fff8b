package msa

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// mismatchesLoop is the loop withinMismatches documents.
func mismatchesLoop(a, b []byte, maxMis int) bool {
	mis := 0
	for i := range a {
		if a[i] != b[i] {
			mis++
		}
	}
	return mis <= maxMis
}

// Every kernel (the word loop, AVX2, AVX-512) agrees with the byte loop
// at every length (whole steps, a tail, shorter than a word or a step),
// every threshold, for byte values that differ only in the top bit or
// the low bits (rows that end where an unreadable page begins:
// TestMismatchesPageEnd).
func TestWithinMismatches(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vals := []byte{0, 1, 20, 0x7f, 0x80, 0xff}
	for _, k := range mismatchKernels() {
		for l := 0; l <= 200; l++ {
			for trial := 0; trial < 30; trial++ {
				a, b := make([]byte, l), make([]byte, l)
				for i := range a {
					a[i] = vals[r.IntN(len(vals))]
					b[i] = a[i]
					if r.IntN(3) == 0 {
						b[i] = vals[r.IntN(len(vals))]
					}
				}
				for maxMis := -1; maxMis <= l+1; maxMis++ {
					if got, want := k.within(a, b, maxMis), mismatchesLoop(a, b, maxMis); got != want {
						t.Fatalf("%s: l %d, max %d, a %v, b %v: %t, want %t", k.name, l, maxMis, a, b, got, want)
					}
				}
			}
		}
	}
}

// Weights from the kernel equal those of the byte loop on random
// alignments of related sequences (many neighbours near the threshold).
func TestWeightsMatchByteLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, l := range []int{5, 8, 63, 150} {
		n := 120
		x := make([]uint8, n*l)
		for i := 0; i < l; i++ {
			x[i] = uint8(r.IntN(Q))
		}
		for s := 1; s < n; s++ {
			p := r.IntN(s) // a mutated copy of an earlier row
			for i := 0; i < l; i++ {
				x[s*l+i] = x[p*l+i]
				if r.IntN(8) == 0 {
					x[s*l+i] = uint8(r.IntN(Q))
				}
			}
		}
		for _, id := range []Identity{DefaultIdentity, {Fraction: 0.8, AtLeast: true}, {Fraction: 0.62}} {
			w, neff := Weights(x, n, l, id, 3)
			ref := make([]float64, n)
			refNeff := 0.0
			idthres := int(math.Ceil(id.Fraction * float64(l)))
			maxMis := l - idthres - 1
			if id.AtLeast {
				maxMis = l - idthres
			}
			for s := 0; s < n; s++ {
				k := 0
				for u := 0; u < n; u++ {
					if u != s && maxMis >= 0 && mismatchesLoop(x[s*l:(s+1)*l], x[u*l:(u+1)*l], maxMis) {
						k++
					}
				}
				ref[s] = 1 / float64(1+k)
				refNeff += ref[s]
			}
			if !slices.Equal(w, ref) {
				t.Errorf("l %d, %+v: weights differ from the byte loop", l, id)
			}
			if d := neff - refNeff; d > 1e-9 || d < -1e-9 {
				t.Errorf("l %d, %+v: Neff %g, want %g", l, id, neff, refNeff)
			}
		}
	}
}

// BenchmarkMismatches compares every kernel of this CPU with the byte
// loop the word loop replaced (early exit included) on rows like an alignment's: 2,000
// rows of 188 columns, most pairs unrelated, a few close.
func BenchmarkMismatches(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	const n, l = 2000, 188
	x := make([]uint8, n*l)
	for s := 0; s < n; s++ {
		for i := 0; i < l; i++ {
			x[s*l+i] = uint8(r.IntN(Q))
			if s > 0 && r.IntN(4) != 0 && s%10 != 0 {
				x[s*l+i] = x[(s-1)*l+i]
			}
		}
	}
	maxMis := l - int(math.Ceil(0.8*l)) - 1
	byteLoop := func(a, c []byte) bool {
		mis := 0
		for i, v := range a {
			if v != c[i] {
				if mis++; mis > maxMis {
					break
				}
			}
		}
		return mis <= maxMis
	}
	kernels := []struct {
		name string
		f    func(a, c []byte) bool
	}{{"byte-loop", byteLoop}}
	for _, k := range mismatchKernels() {
		kernels = append(kernels, struct {
			name string
			f    func(a, c []byte) bool
		}{k.name, func(a, c []byte) bool { return k.within(a, c, maxMis) }})
	}
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				m := 0
				for s := 0; s < 200; s++ {
					for u := s + 1; u < n; u++ {
						if k.f(x[s*l:(s+1)*l], x[u*l:(u+1)*l]) {
							m++
						}
					}
				}
				_ = m
			}
		})
	}
}
