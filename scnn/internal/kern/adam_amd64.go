//go:build amd64 && !purego

package kern

//go:noescape
func adamAVX512(val, grad, m, v *float32, n int, decay bool, l2, b1, omb1, b2, omb2 float32, c1, c2, lr, eps float64)

// adamAVX512Go is AdamUpdate with AVX-512 (adam_amd64.s); AdamUpdate has
// checked the slices.
func adamAVX512Go(val, grad, m, v []float32, decay bool, l2, b1, omb1, b2, omb2 float32, c1, c2, lr, eps float64) {
	adamAVX512(&val[0], &grad[0], &m[0], &v[0], len(val), decay, l2, b1, omb1, b2, omb2, c1, c2, lr, eps)
}
