//go:build amd64 && !purego

package kern

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// minMaxInt32AVX512, the bounds check of the AVX-512 gatherRows, finds
// the least and greatest of 1-40 offsets wherever they lie, negative
// ones included.
func TestMinMaxInt32(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(32, 32))
	for n := 1; n <= 40; n++ {
		for rep := 0; rep < 20; rep++ {
			v := make([]int32, n+5)
			for i := range v {
				v[i] = int32(rng.IntN(2000)) - 100
			}
			v[n], v[n+1] = -1<<31, 1<<31-1 // past n: never read
			lo, hi := v[0], v[0]
			for _, x := range v[:n] {
				lo, hi = min(lo, x), max(hi, x)
			}
			if glo, ghi := minMaxInt32AVX512(&v[0], n); glo != lo || ghi != hi {
				t.Fatalf("n %d: (%d, %d), want (%d, %d)", n, glo, ghi, lo, hi)
			}
		}
	}
}

// The AVX-512 gatherRows refuses an offset whose channels reach past xs,
// or a negative one, wherever it lies in idx.
func TestTransposeRowsBounds(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	const c, n = 3, 20
	xs := make([]float32, 64)
	dst := make([]float32, c*32)
	for _, bad := range []int32{-1, 62} {
		for pos := 0; pos < n; pos += 7 {
			idx := make([]int32, n)
			for q := range idx {
				idx[q] = int32(q * 2)
			}
			idx[pos] = bad
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("offset %d at %d accepted", bad, pos)
					}
				}()
				transposeRowsAVX512Go(dst, 32, xs, idx, c)
			}()
		}
	}
}
