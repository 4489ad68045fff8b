package kern

import (
	"fmt"
	"sort"
	"sync/atomic"
)

// A microKernel computes one mr x nr block of C from k steps:
//
//	for p < k, r < mr, j < nr:
//	    acc[r][j] += a[ao + r*rs + p*cs] * b[p*nr + j]
//	c[co + r*ldc + j] = acc[r][j]   (with add: c[co + r*ldc + j] += acc[r][j])
//
// a is read in place with any row stride rs and column stride cs; b is a
// packed panel of nr columns (see packB). k >= 1. A masked kernel writes
// (and with add reads) only columns j < nb of C, for any 1 <= nb <= nr;
// the others need nb == nr.
type microKernel struct {
	mr, nr int
	// speed is the kernel's throughput relative to the fastest of its set
	// on panels in cache (BenchmarkMicroKernel).
	speed  float64
	run    func(k int, a []float32, ao, rs, cs int, b, c []float32, co, ldc int, add bool, nb int)
	masked bool
	// tails are the kernel's variants with fewer rows, fewest first: a
	// ragged last block of rb < mr rows runs on the first whose mr is at
	// least rb (each row's operations are the full kernel's, so its bits
	// too), straight into C where it fits exactly.
	tails []microKernel
}

// tailsNever makes forRows return the full kernel (tests and
// benchmarks).
var tailsNever bool

// forRows returns the kernel of mk's family for a block of rb rows: mk,
// or the tail with the fewest rows at least rb.
func (mk *microKernel) forRows(rb int) *microKernel {
	if rb < mk.mr && !tailsNever {
		for i := range mk.tails {
			if t := &mk.tails[i]; t.mr >= rb {
				return t
			}
		}
	}
	return mk
}

// A kernelSet is the micro-kernels of one instruction set. Gemm takes,
// for each call, the kernel whose panel width wastes the least of n.
type kernelSet struct {
	name    string
	kernels []microKernel
	addRows addRowsFunc  // the output-side convolution's gather (addrows.go)
	direct  directKernel // the direct convolution's micro-kernel (direct.go); nil: none
	// directPair is its kernel for a position pair of a symmetric kernel
	// (direct.go's directPairKernel); nil: none, the pairs unfolded.
	directPair directPairKernel
	// directDW is the direct backward pass's kernel-gradient micro-kernel
	// (directbwd.go); nil: none.
	directDW directDWKernel
	// axpyF64 is AxpyRowsF64 (axpy.go), relu and reluMask ReLU and
	// ReLUMask (relu.go); nil: the portable ones.
	axpyF64 func(r []float64, x, w []float32, cout int)
	// adam is AdamUpdate (adam.go); nil: the portable one.
	adam func(val, grad, m, v []float32, decay bool, l2, b1, omb1, b2, omb2 float32, c1, c2, lr, eps float64)
	// prefixF64 is PrefixSumsF64 (axpy.go); nil: the portable one.
	prefixF64 func(pre []float64, x []float32, n, c int)
	relu      func(v []float32)
	reluMask  func(d, y []float32)
	bn        *bnKernels // batchnorm's loops (bn.go); nil: the portable ones
	// gemvRows and ger are GemvRowsF32 and GerF32 (gemv32.go); nil: the
	// portable ones.
	gemvRows func(y, a, w []float32, ldw int, skipZero bool)
	ger      func(w []float32, ldw int, a, b []float32)
	// foldRows writes folded im2col rows (fold.go), mirrorColumn a packed
	// map's column into a window row's mirrored pixels (1-16 channels);
	// nil: the portable loops.
	foldRows     func(dst []float32, nd int, x, zero []float32, ops []foldOp, m, c int)
	mirrorColumn func(dst, src []float32, p, w, c int)
	// copyRuns is CopyRuns (copyruns.go); nil: the portable one.
	copyRuns func(dst, src []float32, run, count, dstStride, srcStride int)
	// gatherRows is the direct convolution's row transposition
	// (gather.go); nil: the portable one.
	gatherRows func(dst []float32, ldr int, xs []float32, idx []int32, c int)
	// storeAcc8 is the direct convolution's write-out of its accumulators
	// (storeacc.go); nil: the portable one.
	storeAcc8 func(out []float32, ldo int, acc []float32, n, jn int)
	// accInit8 sets its accumulators (storeacc.go); nil: the portable one.
	accInit8 func(acc []float32, n int, vals []float32)
	// addRuns is AddRuns, cartesianAdd CartesianAdd (addruns.go); nil:
	// the portable ones.
	addRuns      func(dst, src []float32, run, count, dstStride, srcStride int)
	sumRuns      func(dst, src []float32, run, count, srcStride int) // AddRuns with dstStride 0
	cartesianAdd func(dst []float32, ldd int, row, col []float64, count, cout int)
	// packRows is packRows (copyruns.go), for widths of whole vectors;
	// nil: the portable one.
	packRows func(dst, src []float32, run, count, width, srcStride int)
	// outerSumRow and rowSumsRow are the rows of OuterSum and RowSums
	// (outersum.go); nil: the portable ones.
	outerSumRow func(out, ai, aj, bias []float32, cnt, f int)
	rowSumsRow  func(r, y []float32, cnt, f int)
}

// pick returns the kernel with the least estimated time for n columns
// (pickPanel).
func (s *kernelSet) pick(n int) *microKernel {
	return &s.kernels[pickPanel(n, len(s.kernels), func(i int) (int, float64) { return s.kernels[i].nr, s.kernels[i].speed })]
}

// pickPanel returns the index of the kernel, of count whose panel widths
// and relative speeds shape gives, with the least estimated time for n
// columns: n padded to its panel width, divided by its speed, the widest
// one on a tie (fewer panels, fewer passes over A).
func pickPanel(n, count int, shape func(i int) (nr int, speed float64)) int {
	best, bc, bnr := 0, 0.0, 0
	for i := range count {
		nr, speed := shape(i)
		if c := float64((n+nr-1)/nr*nr) / speed; i == 0 || c < bc || c == bc && nr > bnr {
			best, bc, bnr = i, c, nr
		}
	}
	return best
}

// kernelSets are the instruction sets this CPU and build can run, best
// first; the portable Go kernels are always last.
var kernelSets = func() []*kernelSet {
	sets := append(archKernelSets(), &kernelSet{name: "go", kernels: []microKernel{{mr: 4, nr: 4, speed: 1, run: kernGo4x4}}, addRows: addRowsGo})
	for _, s := range sets {
		if s.axpyF64 == nil {
			s.axpyF64 = axpyRowsF64Go
		}
		if s.prefixF64 == nil {
			s.prefixF64 = prefixSumsF64Go
		}
		if s.relu == nil {
			s.relu, s.reluMask = reluGo, reluMaskGo
		}
		if s.copyRuns == nil {
			s.copyRuns = copyRunsGo
		}
		if s.bn == nil {
			s.bn = &bnGo
		}
	}
	return sets
}()

// activeSet is the kernel set Gemm uses: the best one the CPU runs until
// SetKernels chooses another.
var activeSet = func() *atomic.Pointer[kernelSet] {
	p := new(atomic.Pointer[kernelSet])
	p.Store(kernelSets[0])
	return p
}()

// Kernels names the sgemm micro-kernels in use: "avx512", "avx2" or "go"
// (portable), or "openblas" in the OpenBLAS build.
func Kernels() string {
	if backend == "openblas" {
		return backend
	}
	return activeSet.Load().name
}

// KernelSets lists the kernel sets this CPU and build can run, best first.
func KernelSets() []string {
	names := make([]string, len(kernelSets))
	for i, s := range kernelSets {
		names[i] = s.name
	}
	return names
}

// SetKernels makes Gemm use the named kernel set ("avx512", "avx2" or
// "go"); "" is the best one this CPU and build can run, the choice at
// start. It returns an error, and changes nothing, if this CPU or build
// cannot run the named set.
func SetKernels(name string) error {
	if name == "" {
		activeSet.Store(kernelSets[0])
		return nil
	}
	for _, s := range kernelSets {
		if s.name == name {
			activeSet.Store(s)
			return nil
		}
	}
	sorted := KernelSets()
	sort.Strings(sorted)
	return fmt.Errorf("sgemm kernels %q not available here (have %v)", name, sorted)
}

// Blocking of the Go sgemm: a kc x nr panel of B (16-32 KB) stays in L1
// while the micro-kernel walks an mc-row block of A.
const (
	sgemmKC = 128
	sgemmMC = 192
)

// sgemmGo is Gemm with the Go kernels (k >= 1, shapes checked):
//
//	C = alpha * op(A) * op(B) + beta * C
//
// op(B) is packed once per call, scaled by alpha; A is read in place.
// After SetGemmPrecision("bfloat16") it is gemmBF16.
func sgemmGo(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if bs := bf16Active.Load(); bs != nil {
		gemmBF16(bs, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if alpha == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	pb := packGo(transB, k, n, alpha, b, ldb)
	defer putScratch(pb.bp)
	sgemmPacked(transA, m, a, lda, pb, beta, c, ldc, false)
}

// goPackedB is alpha * op(B) packed for the kernel chosen for its width.
type goPackedB struct {
	bp   []float32
	k, n int
	mk   *microKernel
}

// packGo packs alpha * op(B) (k x n) for the active kernel set (packB).
func packGo(transB bool, k, n int, alpha float32, b []float32, ldb int) *goPackedB {
	mk := activeSet.Load().pick(n)
	np := (n + mk.nr - 1) / mk.nr
	bp := getScratch(k * np * mk.nr)
	packB(bp, transB, b, ldb, k, n, mk.nr, alpha)
	return &goPackedB{bp: bp, k: k, n: n, mk: mk}
}

// sgemmPacked is sgemmGo on a packed B: C = op(A) * B' + beta * C (m x
// pb.n, k = pb.k >= 1), B' the packed alpha * op(B). ownA says that A is
// the caller's own workspace, whose capacity past its length nobody else
// uses: a ragged last block of rows then reads its missing rows in place
// where that capacity holds them (their results are computed aside and
// dropped, so C is the same), instead of copying the block's rows.
func sgemmPacked(transA bool, m int, a []float32, lda int, pb *goPackedB, beta float32, c []float32, ldc int, ownA bool) {
	edge := getScratch(sgemmEdge(pb.mk))
	defer putScratch(edge)
	sgemmPackedEdge(transA, m, a, lda, pb, beta, c, ldc, ownA, edge)
}

// sgemmEdge is the length of sgemmPackedEdge's edge buffer for kernel mk.
func sgemmEdge(mk *microKernel) int { return mk.mr*sgemmKC + mk.mr*mk.nr }

// sgemmPackedEdge is sgemmPacked with the caller's buffer for ragged
// blocks (sgemmEdge(pb.mk) floats at least): for callers that make many
// small products.
func sgemmPackedEdge(transA bool, m int, a []float32, lda int, pb *goPackedB, beta float32, c []float32, ldc int, ownA bool, edge []float32) {
	n, k, mk, bp := pb.n, pb.k, pb.mk, pb.bp
	// The first K block overwrites C when beta is 0 (no clearing, no
	// reading); otherwise C is scaled first and every block adds.
	overwrite := beta == 0
	if !overwrite {
		scaleC(m, n, beta, c, ldc)
	}
	mr, nr := mk.mr, mk.nr
	rs, cs := lda, 1
	if transA {
		rs, cs = 1, lda
	}
	np := (n + nr - 1) / nr
	ea, ec := edge[:mr*sgemmKC], edge[mr*sgemmKC:sgemmEdge(mk)]

	mc := max(sgemmMC/mr, 1) * mr
	for ic := 0; ic < m; ic += mc {
		mb := min(mc, m-ic)
		for pc := 0; pc < k; pc += sgemmKC {
			kb := min(sgemmKC, k-pc)
			add := pc > 0 || !overwrite
			for jp := 0; jp < np; jp++ {
				j0 := jp * nr
				nb := min(nr, n-j0)
				panel := bp[pc*np*nr+jp*kb*nr : pc*np*nr+(jp+1)*kb*nr]
				for i := ic; i < ic+mb; i += mr {
					rb := min(mr, ic+mb-i)
					ao := i*rs + pc*cs
					if rb == mr && (nb == nr || mk.masked) {
						mk.run(kb, a, ao, rs, cs, panel, c, i*ldc+j0, ldc, add, nb)
						continue
					}
					// A ragged last block of rows: the family's kernel with
					// the fewest rows at least rb (forRows), straight into C
					// where its rows are exactly rb.
					tk := mk.forRows(rb)
					if rb == tk.mr && (nb == nr || tk.masked) {
						tk.run(kb, a, ao, rs, cs, panel, c, i*ldc+j0, ldc, add, nb)
						continue
					}
					tmr := tk.mr
					// A ragged block (the last rows of A, fewer than the
					// tail kernel's; or the last columns, for a kernel
					// without a mask): the rows of A copied and zero-padded
					// to the kernel's rows, the block computed aside and its
					// valid part written to C.
					src, srs, scs := a, rs, cs
					if rb < tmr && ownA && (i+tmr-1)*rs+(pc+kb-1)*cs < cap(a) {
						src = a[:cap(a)]
					} else if rb < tmr {
						src, ao, srs, scs = ea, 0, 1, tmr
						copyEdge(ea, a, i*rs+pc*cs, rs, cs, rb, tmr, kb)
					}
					tk.run(kb, src, ao, srs, scs, panel, ec, 0, nr, false, nr)
					for r := 0; r < rb; r++ {
						crow := c[(i+r)*ldc+j0 : (i+r)*ldc+j0+nb]
						if add {
							for j, v := range ec[r*nr : r*nr+nb] {
								crow[j] += v
							}
						} else {
							copy(crow, ec[r*nr:r*nr+nb])
						}
					}
				}
			}
		}
	}
}

// copyEdge writes the rb rows of A from a[ao] (row stride rs, column
// stride cs) for kb steps into ea column by column, mr floats a step,
// rows rb..mr-1 zero:
//
//	ea[p*mr + r] = a[ao + r*rs + p*cs]   (r < rb), 0 (rb <= r < mr)
//
// A transposed A (rs = 1) copies each step's rows at once.
func copyEdge(ea, a []float32, ao, rs, cs, rb, mr, kb int) {
	for p := 0; p < kb; p++ {
		col := ea[p*mr : (p+1)*mr]
		if rs == 1 {
			copy(col[:rb], a[ao+p*cs:ao+p*cs+rb])
		} else {
			for r := range rb {
				col[r] = a[ao+r*rs+p*cs]
			}
		}
		clear(col[rb:])
	}
}

// scaleC sets C = beta*C (beta 0 clears C, NaNs included, as BLAS does).
func scaleC(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// packB writes alpha * op(B) (k x n) as panels of nr columns, zero-padded
// on the right, in chunks of sgemmKC rows: the panel of columns
// [jp*nr, jp*nr+nr) for rows pc..pc+kb-1 (kb = min(sgemmKC, k-pc)) is
//
//	bp[pc*np*nr + jp*kb*nr + (p-pc)*nr + j] = alpha * op(B)[p, jp*nr+j]
//
// with np = ceil(n/nr) and op(B)[p, q] = b[p*ldb+q], or b[q*ldb+p]
// transposed.
func packB(bp []float32, transB bool, b []float32, ldb, k, n, nr int, alpha float32) {
	np := (n + nr - 1) / nr
	for pc := 0; pc < k; pc += sgemmKC {
		kb := min(sgemmKC, k-pc)
		for jp := 0; jp < np; jp++ {
			j0 := jp * nr
			nb := min(nr, n-j0)
			panel := bp[pc*np*nr+jp*kb*nr : pc*np*nr+(jp+1)*kb*nr]
			if !transB && alpha == 1 { // every convolution's call: rows copied, zero-padded
				packRows(panel, b[pc*ldb+j0:], nb, kb, nr, ldb)
				continue
			}
			for p := 0; p < kb; p++ {
				row := panel[p*nr : (p+1)*nr]
				if transB {
					for j := 0; j < nb; j++ {
						row[j] = alpha * b[(j0+j)*ldb+pc+p]
					}
				} else {
					for j, v := range b[(pc+p)*ldb+j0 : (pc+p)*ldb+j0+nb] {
						row[j] = alpha * v
					}
				}
				clear(row[nb:])
			}
		}
	}
}

// kernGo4x4 is the portable micro-kernel (mr = nr = 4): sixteen
// accumulators in local variables.
func kernGo4x4(k int, a []float32, ao, rs, cs int, b, c []float32, co, ldc int, add bool, _ int) {
	var c00, c01, c02, c03, c10, c11, c12, c13 float32
	var c20, c21, c22, c23, c30, c31, c32, c33 float32
	b = b[:4*k]
	for p := 0; p < k; p++ {
		q := ao + p*cs
		a0, a1, a2, a3 := a[q], a[q+rs], a[q+2*rs], a[q+3*rs]
		bb := b[4*p : 4*p+4 : 4*p+4]
		b0, b1, b2, b3 := bb[0], bb[1], bb[2], bb[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	put := func(r int, v0, v1, v2, v3 float32) {
		row := c[co+r*ldc : co+r*ldc+4 : co+r*ldc+4]
		if !add {
			row[0], row[1], row[2], row[3] = v0, v1, v2, v3
			return
		}
		row[0] += v0
		row[1] += v1
		row[2] += v2
		row[3] += v3
	}
	put(0, c00, c01, c02, c03)
	put(1, c10, c11, c12, c13)
	put(2, c20, c21, c22, c23)
	put(3, c30, c31, c32, c33)
}
