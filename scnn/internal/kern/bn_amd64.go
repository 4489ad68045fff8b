//go:build amd64 && !purego

package kern

// The batchnorm loops in assembly: bn_amd64.s, with lim the byte offset
// after the full chunks and mask the tail's lanes; and the float64 sums
// of bnreg_amd64.s for up to regSums channels, with nch chunks and a
// mask byte per chunk (regChunks). n >= 1, c >= 1.

//go:noescape
func bnVarSumsAVX512(acc, mean *float64, w, x *float32, n, c, lim int, mask uint64)

//go:noescape
func bnBackSumsAVX512(sdy, sdyxh *float64, w, dy, x, mean, inv *float32, n, c, lim int, mask uint64)

//go:noescape
func bnApplyAVX512(out, x, w, gamma, beta, mean, inv *float32, n, c, lim int, mask uint64)

//go:noescape
func bnBackOutAVX512(dx, dy, x, w, scale, a, b, mean, inv *float32, n, c, lim int, mask uint64)

//go:noescape
func bnVarSumsRegAVX512(acc, mean *float64, w, x *float32, n, c, nch int, masks uint64)

//go:noescape
func bnBackSumsRegAVX512(sdy, sdyxh *float64, w, dy, x, mean, inv *float32, n, c, nch int, masks uint64)

//go:noescape
func axpyRowsF64RegAVX512(r *float64, x *float32, nx int, w *float32, cout, nch int, masks uint64)

// regSums is the most channels the register-resident float64 sums
// (bnreg_amd64.s) take: four chunks of 8 lanes.
const regSums = 32

// regChunks gives those kernels' chunk count for c channels and their
// masks, a byte per chunk: 0xFF for a full chunk, the tail's lanes for a
// last partial one.
func regChunks(c int) (nch int, masks uint64) {
	nch = (c + 7) / 8
	for j := 0; j < nch; j++ {
		m := uint64(0xFF)
		if rest := c - 8*j; rest < 8 {
			m = 1<<rest - 1
		}
		masks |= m << (8 * j)
	}
	return nch, masks
}

// bnAVX512 adapts them to bnKernels (the exported functions in bn.go
// have checked the slices): float64 loops in chunks of 8 channels, their
// sums in registers up to regSums channels; float32 ones in chunks of 16.
var bnAVX512 = bnKernels{
	varSums: func(acc, mean []float64, w, x []float32, c int) {
		if c <= regSums {
			nch, masks := regChunks(c)
			bnVarSumsRegAVX512(&acc[0], &mean[0], &w[0], &x[0], len(w), c, nch, masks)
			return
		}
		bnVarSumsAVX512(&acc[0], &mean[0], &w[0], &x[0], len(w), c, c/8*32, 1<<(c%8)-1)
	},
	backSums: func(sdy, sdyxh []float64, w, dy, x, mean, inv []float32, c int) {
		if c <= regSums {
			nch, masks := regChunks(c)
			bnBackSumsRegAVX512(&sdy[0], &sdyxh[0], &w[0], &dy[0], &x[0], &mean[0], &inv[0], len(w), c, nch, masks)
			return
		}
		bnBackSumsAVX512(&sdy[0], &sdyxh[0], &w[0], &dy[0], &x[0], &mean[0], &inv[0], len(w), c, c/8*32, 1<<(c%8)-1)
	},
	apply: func(out, x, w, gamma, beta, mean, inv []float32, c int) {
		bnApplyAVX512(&out[0], &x[0], &w[0], &gamma[0], &beta[0], &mean[0], &inv[0], len(w), c, c/16*64, 1<<(c%16)-1)
	},
	backOut: func(dx, dy, x, w, scale, a, b, mean, inv []float32, c int) {
		bnBackOutAVX512(&dx[0], &dy[0], &x[0], &w[0], &scale[0], &a[0], &b[0], &mean[0], &inv[0], len(w), c, c/16*64, 1<<(c%16)-1)
	},
}
