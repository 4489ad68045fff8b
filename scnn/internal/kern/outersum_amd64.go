//go:build amd64 && !purego

package kern

//go:noescape
func outerSumRowAVX512(out, ai, aj, bias *float32, cnt, f int)

//go:noescape
func rowSumsRowAVX512(r, y *float32, cnt, f int)

// outerSumRowAVX512Go and rowSumsRowAVX512Go adapt the assembly rows of
// OuterSum and RowSums (outersum_amd64.s); the callers have checked the
// slices.
func outerSumRowAVX512Go(out, ai, aj, bias []float32, cnt, f int) {
	outerSumRowAVX512(&out[0], &ai[0], &aj[0], &bias[0], cnt, f)
}

func rowSumsRowAVX512Go(r, y []float32, cnt, f int) {
	rowSumsRowAVX512(&r[0], &y[0], cnt, f)
}
