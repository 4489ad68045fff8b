package kern

import (
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"unsafe"
)

// The bfloat16 GEMM: C = alpha * op(A) * op(B) + beta * C with op(A) and
// alpha * op(B) rounded to bfloat16 (8 significant bits, float32's
// exponent range) and every product summed in float32. It is the GEMM
// behind Gemm and GemmPacked after SetGemmPrecision("bfloat16"); inputs,
// outputs and the callers' weights stay float32 (master weights).
//
// Two K steps travel as one 32-bit word, lo the even step and hi the odd
// one, as VDPBF16PS (AVX512_BF16) multiplies them: each of its 16 lanes
// adds hi(a)*hi(b) and then lo(a)*lo(b) to a float32 accumulator, each
// product exact in float32 (8 x 8 bits) while it stays in float32's
// normal range, each sum rounded to nearest even, denormal sums flushed
// to zero. The portable kernel does the same in the same order, so both
// kernel sets give the same bits on the values networks compute
// (TestGemmBF16Kernels); where a product underflows or a denormal
// reaches an accumulator (a denormal bias) they may differ in the last
// bit, which the tests do not exercise.

// bf16KC is the pairs of K steps in one block: a kc x nr panel of B.
const bf16KC = sgemmKC / 2

// bf16Of rounds x to bfloat16 as VCVTNE2PS2BF16 does: to nearest even,
// a denormal to zero of its sign, a NaN to a quiet NaN.
func bf16Of(x float32) uint16 {
	u := math.Float32bits(x)
	switch {
	case u&0x7f800000 == 0:
		return uint16(u>>16) & 0x8000
	case u&0x7fffffff > 0x7f800000:
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// bf16Float is the float32 value of the bfloat16 h.
func bf16Float(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// bf16Word packs the pair (lo, hi) of K steps.
func bf16Word(lo, hi float32) uint32 { return uint32(bf16Of(lo)) | uint32(bf16Of(hi))<<16 }

// A bf16Kernel computes one mr x nr block of C from kp pairs of K steps:
//
//	for p < kp, r < mr, j < nr:
//	    acc[r][j] = ftz(acc[r][j] + hi(a[ao + r*rs + p*cs]) * hi(b[p*nr + j]))
//	    acc[r][j] = ftz(acc[r][j] + lo(a[ao + r*rs + p*cs]) * lo(b[p*nr + j]))
//	c[co + r*ldc + j] = acc[r][j]   (with add: c[co + r*ldc + j] += acc[r][j])
//
// for the columns j < nb (1 <= nb <= nr); a and b hold pairs (bf16Word).
type bf16Kernel struct {
	mr, nr int
	speed  float64 // relative throughput, as microKernel.speed
	run    func(kp int, a []uint32, ao, rs, cs int, b []uint32, c []float32, co, ldc int, add bool, nb int)
}

// A bf16Set is the kernels and conversion loops of one instruction set.
type bf16Set struct {
	name    string
	kernels []bf16Kernel
	// cvtPairs sets dst[i] = bf16Word(src[2i], src[2i+1]) for i < len(dst);
	// cvtInterleave sets dst[i] = bf16Word(lo[i], hi[i]).
	cvtPairs      func(dst []uint32, src []float32)
	cvtInterleave func(dst []uint32, lo, hi []float32)
	direct        directBF16Kernel // the direct convolution's (direct.go)
}

// pick returns the kernel with the least estimated time for n columns
// (pickPanel).
func (s *bf16Set) pick(n int) *bf16Kernel {
	return &s.kernels[pickPanel(n, len(s.kernels), func(i int) (int, float64) { return s.kernels[i].nr, s.kernels[i].speed })]
}

// bf16Sets are the bfloat16 kernel sets this CPU and build can run, best
// first; the portable one is always last.
var bf16Sets = append(archBF16Sets(), &bf16Set{name: "go", kernels: []bf16Kernel{{mr: 4, nr: 4, speed: 1, run: kernBF16Go4x4}},
	cvtPairs: cvtPairsGo, cvtInterleave: cvtInterleaveGo, direct: directBF16Go})

// bf16Active is the set Gemm uses for bfloat16; nil: Gemm runs float32.
var bf16Active atomic.Pointer[bf16Set]

// SetGemmPrecision chooses the arithmetic of Gemm and GemmPacked:
// "float32" (the default), or "bfloat16" with the best bfloat16 kernels
// of this CPU ("bfloat16/go" names the portable ones, for tests). It
// returns an error, and changes nothing, where the build or CPU has no
// such kernels (the OpenBLAS build has none). PackB packs for the
// precision in force when it is called.
func SetGemmPrecision(p string) error {
	switch {
	case p == "float32" || p == "":
		bf16Active.Store(nil)
		return nil
	case backend != "go":
		return fmt.Errorf("gemm precision %q: the %s build has only float32", p, backend)
	case p == "bfloat16":
		if bf16Sets[0].name == "go" {
			return fmt.Errorf("gemm precision %q: this CPU has no AVX512_BF16 (the portable kernels are for tests: bfloat16/go)", p)
		}
		bf16Active.Store(bf16Sets[0])
		return nil
	}
	for _, s := range bf16Sets {
		if p == "bfloat16/"+s.name {
			bf16Active.Store(s)
			return nil
		}
	}
	names := []string{"float32"}
	for _, s := range bf16Sets {
		names = append(names, "bfloat16/"+s.name)
	}
	if bf16Sets[0].name != "go" {
		names = append(names, "bfloat16")
	}
	sort.Strings(names)
	return fmt.Errorf("gemm precision %q not available here (have %v)", p, names)
}

// GemmPrecision names the precision in force: "float32" or
// "bfloat16/<kernel set>".
func GemmPrecision() string {
	if s := bf16Active.Load(); s != nil {
		return "bfloat16/" + s.name
	}
	return "float32"
}

// wordScratch is n words of the float32 scratch pool (same size, no
// pointers); give it back with putWords.
func wordScratch(n int) []uint32 {
	f := getScratch(n)
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&f[:cap(f)][0])), cap(f))[:n]
}

func putWords(w []uint32) {
	if cap(w) == 0 {
		return
	}
	putScratch(unsafe.Slice((*float32)(unsafe.Pointer(&w[:cap(w)][0])), cap(w)))
}

// bf16PackedB is alpha * op(B) (k x n) as pairs, in panels of the
// kernel chosen for n: the panel of columns [jp*nr, jp*nr+nr) for the
// pairs pc..pc+kb-1 (kb = min(bf16KC, kp-pc), kp = ceil(k/2)) is
//
//	bp[pc*np*nr + jp*kb*nr + (p-pc)*nr + j] = bf16Word(B'[2p, jp*nr+j], B'[2p+1, jp*nr+j])
//
// with B' = alpha * op(B), zero beyond its k rows and n columns.
type bf16PackedB struct {
	bp   []uint32
	k, n int
	mk   *bf16Kernel
	set  *bf16Set
}

func packBF16B(set *bf16Set, transB bool, k, n int, alpha float32, b []float32, ldb int) *bf16PackedB {
	mk := set.pick(n)
	nr := mk.nr
	np, kp := (n+nr-1)/nr, (k+1)/2
	bp := wordScratch(kp * np * nr)
	var zeros []float32 // the hi row of an odd k's last pair
	if k%2 == 1 {
		zeros = make([]float32, n)
	}
	at := func(p, j int) float32 { // alpha * op(B)[p, j], 0 past k
		if p >= k {
			return 0
		}
		if transB {
			return alpha * b[j*ldb+p]
		}
		return alpha * b[p*ldb+j]
	}
	for pc := 0; pc < kp; pc += bf16KC {
		kb := min(bf16KC, kp-pc)
		for jp := 0; jp < np; jp++ {
			j0 := jp * nr
			nb := min(nr, n-j0)
			panel := bp[pc*np*nr+jp*kb*nr : pc*np*nr+(jp+1)*kb*nr]
			for p := 0; p < kb; p++ {
				row := panel[p*nr : (p+1)*nr]
				q := 2 * (pc + p)
				if !transB && alpha == 1 { // every convolution's call
					var hi []float32
					if q+1 < k {
						hi = b[(q+1)*ldb+j0 : (q+1)*ldb+j0+nb]
					} else {
						hi = zeros[:nb]
					}
					set.cvtInterleave(row[:nb], b[q*ldb+j0:q*ldb+j0+nb], hi)
				} else {
					for j := 0; j < nb; j++ {
						row[j] = bf16Word(at(q, j0+j), at(q+1, j0+j))
					}
				}
				clear(row[nb:])
			}
		}
	}
	return &bf16PackedB{bp: bp, k: k, n: n, mk: mk, set: set}
}

func (p *bf16PackedB) release() {
	putWords(p.bp)
	p.bp = nil
}

// bf16A converts op(A) (m x k) to pairs: for A itself, m rows of
// ceil(k/2) words (rs = ceil(k/2), cs = 1); for A^T, ceil(k/2) rows of m
// words (rs = 1, cs = m). An odd k's last pair has hi 0. The whole of A
// is converted at once, into m*ceil(k/2) words of scratch (half of A's
// size) that the float32 GEMM, which reads A in place, does not take.
func bf16A(set *bf16Set, transA bool, m, k int, a []float32, lda int) (w []uint32, rs, cs int) {
	kp := (k + 1) / 2
	w = wordScratch(m * kp)
	if !transA {
		for i := 0; i < m; i++ {
			row := w[i*kp : (i+1)*kp]
			set.cvtPairs(row[:k/2], a[i*lda:i*lda+k/2*2])
			if k%2 == 1 {
				row[kp-1] = bf16Word(a[i*lda+k-1], 0)
			}
		}
		return w, kp, 1
	}
	for p := 0; p < k/2; p++ {
		set.cvtInterleave(w[p*m:(p+1)*m], a[2*p*lda:2*p*lda+m], a[(2*p+1)*lda:(2*p+1)*lda+m])
	}
	if k%2 == 1 {
		row := w[(kp-1)*m : kp*m]
		for i := range row {
			row[i] = bf16Word(a[(k-1)*lda+i], 0)
		}
	}
	return w, 1, m
}

// gemmBF16 is Gemm in bfloat16 with the kernel set s (shapes checked,
// k >= 1).
func gemmBF16(s *bf16Set, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if alpha == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	pb := packBF16B(s, transB, k, n, alpha, b, ldb)
	defer pb.release()
	gemmBF16Packed(transA, m, a, lda, pb, beta, c, ldc)
}

// gemmBF16Packed is gemmBF16 on a packed B.
func gemmBF16Packed(transA bool, m int, a []float32, lda int, pb *bf16PackedB, beta float32, c []float32, ldc int) {
	n, k, mk, bp := pb.n, pb.k, pb.mk, pb.bp
	overwrite := beta == 0
	if !overwrite {
		scaleC(m, n, beta, c, ldc)
	}
	aw, rs, cs := bf16A(pb.set, transA, m, k, a, lda)
	defer putWords(aw)
	mr, nr := mk.mr, mk.nr
	np, kp := (n+nr-1)/nr, (k+1)/2
	ea := wordScratch(mr * bf16KC)
	defer putWords(ea)
	ecf := getScratch(mr * nr)
	defer putScratch(ecf)

	mc := max(sgemmMC/mr, 1) * mr
	for ic := 0; ic < m; ic += mc {
		mb := min(mc, m-ic)
		for pc := 0; pc < kp; pc += bf16KC {
			kb := min(bf16KC, kp-pc)
			add := pc > 0 || !overwrite
			for jp := 0; jp < np; jp++ {
				j0 := jp * nr
				nb := min(nr, n-j0)
				panel := bp[pc*np*nr+jp*kb*nr : pc*np*nr+(jp+1)*kb*nr]
				for i := ic; i < ic+mb; i += mr {
					rb := min(mr, ic+mb-i)
					ao := i*rs + pc*cs
					if rb == mr {
						mk.run(kb, aw, ao, rs, cs, panel, c, i*ldc+j0, ldc, add, nb)
						continue
					}
					// The last rows of A: copied and zero-padded to mr,
					// the block computed aside, its rows written to C.
					for p := 0; p < kb; p++ {
						col := ea[p*mr : (p+1)*mr]
						for r := range col {
							if r < rb {
								col[r] = aw[(i+r)*rs+(pc+p)*cs]
							} else {
								col[r] = 0
							}
						}
					}
					mk.run(kb, ea, 0, 1, mr, panel, ecf, 0, nr, false, nr)
					for r := 0; r < rb; r++ {
						crow := c[(i+r)*ldc+j0 : (i+r)*ldc+j0+nb]
						if add {
							for j, v := range ecf[r*nr : r*nr+nb] {
								crow[j] += v
							}
						} else {
							copy(crow, ecf[r*nr:r*nr+nb])
						}
					}
				}
			}
		}
	}
}

// ftz flushes a denormal float32 to zero of its sign, as VDPBF16PS does
// with its sums.
func ftz(x float32) float32 {
	if u := math.Float32bits(x); u&0x7f800000 == 0 {
		return math.Float32frombits(u & 0x80000000)
	}
	return x
}

// dpBF16 is one lane of VDPBF16PS: acc plus the two products of the
// pairs a and b, the odd one first.
func dpBF16(acc float32, a, b uint32) float32 {
	acc = ftz(acc + float32(bf16Float(uint16(a>>16))*bf16Float(uint16(b>>16))))
	return ftz(acc + float32(bf16Float(uint16(a))*bf16Float(uint16(b))))
}

// kernBF16Go4x4 is the portable bfloat16 kernel (mr = nr = 4).
func kernBF16Go4x4(kp int, a []uint32, ao, rs, cs int, b []uint32, c []float32, co, ldc int, add bool, nb int) {
	var acc [4][4]float32
	for p := 0; p < kp; p++ {
		bb := b[4*p : 4*p+4]
		for r := 0; r < 4; r++ {
			av := a[ao+r*rs+p*cs]
			for j := 0; j < 4; j++ {
				acc[r][j] = dpBF16(acc[r][j], av, bb[j])
			}
		}
	}
	for r := 0; r < 4; r++ {
		row := c[co+r*ldc : co+r*ldc+nb]
		for j := range row {
			if add {
				row[j] += acc[r][j]
			} else {
				row[j] = acc[r][j]
			}
		}
	}
}

func cvtPairsGo(dst []uint32, src []float32) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = bf16Word(src[2*i], src[2*i+1])
	}
}

func cvtInterleaveGo(dst []uint32, lo, hi []float32) {
	lo, hi = lo[:len(dst)], hi[:len(dst)]
	for i := range dst {
		dst[i] = bf16Word(lo[i], hi[i])
	}
}
