package kern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// foldChunk is the number of output pixels whose full im2col the
// reference fold (foldPairs) folds at a time in the benchmarks.
const foldChunk = 64

// foldPairs is the reference fold (fold.go's definition): n rows of the
// full im2col of dy (k*k positions of c channels per row) folded into
// the k(k+1)/2 position pairs (a, b), a <= b, numbered row by row:
//
//	dst[r*P*c + s*c + f] = src[r*k*k*c + (a*k+b)*c + f] + src[r*k*k*c + (b*k+a)*c + f]   (a < b)
//	dst[r*P*c + s*c + f] = src[r*k*k*c + (a*k+a)*c + f]                                 (a == b)
func foldPairs(dst, src []float32, n, k, c int) {
	nf, nd := k*k*c, k*(k+1)/2*c
	for r := 0; r < n; r++ {
		s := 0
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				d := dst[r*nd+s*c : r*nd+(s+1)*c]
				first := src[r*nf+(a*k+b)*c : r*nf+(a*k+b+1)*c]
				if b == a {
					copy(d, first)
				} else {
					second := src[r*nf+(b*k+a)*c : r*nf+(b*k+a+1)*c]
					for f := range d {
						d[f] = first[f] + second[f]
					}
				}
				s++
			}
		}
	}
}

// randomFoldOps returns seven operations of c channels at places up to
// last (the last place whose run fits x): random places, then every
// kind of term: a diagonal pair (foldNone), zero first and second terms,
// both, and places at last.
func randomFoldOps(rng *rand.Rand, c, last int) []foldOp {
	ops := make([]foldOp, 7)
	for s := range ops {
		ops[s] = foldOp{d: int32(s * c), a: int32(rng.IntN(last + 1)), b: int32(rng.IntN(last + 1))}
	}
	ops[0].b = foldNone
	ops[1].a = foldZero
	ops[2].b = foldZero
	ops[3].a, ops[3].b = foldZero, foldNone
	ops[4].a = int32(last)
	ops[5].b = int32(last)
	ops[6].a, ops[6].b = int32(last), foldNone
	return ops
}

// foldRows on every kernel set against the loop of its definition, bit
// for bit (zeros of both signs among the values): runs of 1-5 pixels,
// 1-40 channels (vectors whole and partial; 4 and 8 by four pixels and
// one by one), places in x, foldZero and foldNone; x's last place ends at its
// last float.
func TestFoldRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	withKernels(t, func(t *testing.T) {
		for _, c := range []int{1, 4, 8, 15, 16, 17, 40} {
			for _, m := range []int{1, 2, 4, 5, 11} {
				x := randSlice(50*c, rng)
				signedZeros(x, rng)
				ops := randomFoldOps(rng, c, len(x)-m*c)
				nd := len(ops)*c + 3
				zero := make([]float32, max(c, 32))
				got := randSlice(m*nd, rng)
				want := append([]float32(nil), got...)
				foldRows(got, nd, x, zero, ops, m, c)
				for p := 0; p < m; p++ {
					for _, op := range ops {
						for f := 0; f < c; f++ {
							var xa, xb float32
							if op.a != foldZero {
								xa = x[int(op.a)+p*c+f]
							}
							if op.b == foldNone {
								want[p*nd+int(op.d)+f] = xa
								continue
							}
							if op.b != foldZero {
								xb = x[int(op.b)+p*c+f]
							}
							want[p*nd+int(op.d)+f] = xa + xb
						}
					}
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("c %d m %d: dst[%d] = %v, want %v", c, m, i, got[i], want[i])
					}
				}
			}
		}
	})
}

// foldRows refuses places outside x or the row.
func TestFoldRowsBounds(t *testing.T) {
	x, zero, dst := make([]float32, 40), make([]float32, 32), make([]float32, 2*20)
	for _, tc := range []struct {
		name string
		op   foldOp
	}{
		{"first past x", foldOp{a: 33, b: foldNone}}, // 33 + 2*8 > 40
		{"second past x", foldOp{a: 0, b: 25}},
		{"negative place", foldOp{a: -5, b: foldNone}},
		{"no first term", foldOp{a: foldNone, b: 0}},
		{"past the row", foldOp{d: 13, a: 0, b: foldNone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("foldRows(%+v) did not panic", tc.op)
				}
			}()
			foldRows(dst, 20, x, zero, []foldOp{tc.op}, 2, 8)
		})
	}
	// The largest places that fit run.
	foldRows(dst, 20, x, zero, []foldOp{{d: 12, a: 24, b: 24}}, 2, 8)
}

// BenchmarkFoldRows times foldRows on runs of 64 pixels (9x9 kernel, 8
// channels: 45 pairs, 1,440 bytes a row) into a tile of 128 rows, and a
// copy of the same number of bytes a row; both report ns/pixel.
func BenchmarkFoldRows(b *testing.B) {
	const rows, m = 128, 64
	x := randSlice(9*100*8+128*8, rand.New(rand.NewPCG(1, 2)))
	nd := 45 * 8
	col := make([]float32, rows*nd)
	b.Run("fold", func(b *testing.B) {
		// The pairs of pixel 30 of an output row, from window rows 100
		// pixels apart in x, as im2colFolded lays them out.
		ops, zero := make([]foldOp, 45), make([]float32, 32)
		s := 0
		for a := 0; a < 9; a++ {
			for bb := a; bb < 9; bb++ {
				ops[s] = foldOp{d: int32(s * 8), a: int32((a*100 + 30 + bb) * 8), b: foldNone}
				if bb > a {
					ops[s].b = int32((bb*100 + 30 + a) * 8)
				}
				s++
			}
		}
		for i := 0; i < b.N; i++ {
			for r := 0; r < rows; r += m {
				foldRows(col[r*nd:(r+m)*nd], nd, x, zero, ops, m, 8)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/pixel")
	})
	b.Run("copy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for r := 0; r < rows; r++ {
				copy(col[r*nd:(r+1)*nd], x[r*8:r*8+nd])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/pixel")
	})
}
