//go:build amd64 && !purego

package kern

//go:noescape
func gemvRowsAVX512(y *float32, n int, a *float32, m int, w *float32, ldw int, skipZero bool)

//go:noescape
func gerAVX512(w *float32, ldw int, a *float32, m int, b *float32, n int)

// gemvRowsAVX512Go is GemvRowsF32 with AVX-512 (gemv32_amd64.s); the
// caller has checked the slices.
func gemvRowsAVX512Go(y, a, w []float32, ldw int, skipZero bool) {
	gemvRowsAVX512(&y[0], len(y), &a[0], len(a), &w[0], ldw, skipZero)
}

// gerAVX512Go is GerF32 with AVX-512 (gemv32_amd64.s); the caller has
// checked the slices.
func gerAVX512Go(w []float32, ldw int, a, b []float32) {
	gerAVX512(&w[0], ldw, &a[0], len(a), &b[0], len(b))
}
