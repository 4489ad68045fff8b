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
