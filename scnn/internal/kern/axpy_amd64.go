//go:build amd64 && !purego

package kern

//go:noescape
func axpyRowsF64AVX512(r *float64, x *float32, nx int, w *float32, cout, full int, mask uint64)

// axpyRowsF64AVX512Go adapts the assembly AxpyRowsF64 (axpy_amd64.s);
// AxpyRowsF64 has checked the slices.
// Up to regSums outputs, the sums stay in registers (bnreg_amd64.s).
func axpyRowsF64AVX512Go(r []float64, x, w []float32, cout int) {
	if cout <= regSums {
		nch, masks := regChunks(cout)
		axpyRowsF64RegAVX512(&r[0], &x[0], len(x), &w[0], cout, nch, masks)
		return
	}
	axpyRowsF64AVX512(&r[0], &x[0], len(x), &w[0], cout, cout/8, 1<<(cout%8)-1)
}

//go:noescape
func prefixSumsF64RegAVX512(pre *float64, x *float32, n, c, nch int, masks uint64)

// prefixSumsF64AVX512Go runs PrefixSumsF64 with the running sums in
// registers up to regSums channels (bnreg_amd64.s), the portable loop
// past them; PrefixSumsF64 has checked the slices.
func prefixSumsF64AVX512Go(pre []float64, x []float32, n, c int) {
	if c > regSums {
		prefixSumsF64Go(pre, x, n, c)
		return
	}
	nch, masks := regChunks(c)
	prefixSumsF64RegAVX512(&pre[0], &x[0], n, c, nch, masks)
}
