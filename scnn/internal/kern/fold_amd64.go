//go:build amd64 && !purego

package kern

//go:noescape
func foldRowsAVX512(dst *float32, nd int, x, zero *float32, ops *foldOp, nops, m, c int)

// foldRowsAVX512Go adapts the assembly foldRows (fold_amd64.s); the
// caller has checked every place.
func foldRowsAVX512Go(dst []float32, nd int, x, zero []float32, ops []foldOp, m, c int) {
	if len(x) == 0 {
		x = zero // every place is foldZero (checked)
	}
	foldRowsAVX512(&dst[0], nd, &x[0], &zero[0], &ops[0], len(ops), m, c)
}

//go:noescape
func mirrorColumnAVX512(dst, src *float32, p, w, c int)

// mirrorColumnAVX512Go is windowRow's mirrored pixels with AVX-512
// (fold_amd64.s), for 1 <= c <= 16: dst[q*c:(q+1)*c] = the c floats of
// (q, p) of a packed w x w triangle in src, q < p. It checks the slices.
func mirrorColumnAVX512Go(dst, src []float32, p, w, c int) {
	if p <= 0 {
		return
	}
	if c < 1 || c > 16 || p >= w || len(dst) < p*c || len(src) < (Tri(w, p-1, p)+1)*c {
		panic("kern: mirrorColumn: slices too short")
	}
	mirrorColumnAVX512(&dst[0], &src[0], p, w, c)
}
