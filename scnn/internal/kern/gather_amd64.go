//go:build amd64 && !purego

package kern

//go:noescape
func gatherRowsAVX512(dst *float32, ldr int, xs *float32, idx *int32, n, c int)

// gatherRowsAVX512Go adapts the assembly gatherRows (gather_amd64.s). It
// checks that every element the assembly touches is inside its slices.
func gatherRowsAVX512Go(dst []float32, ldr int, xs []float32, idx []int32, c int) {
	n := len(idx)
	if n == 0 || c == 0 {
		return
	}
	if c < 0 || ldr < n || len(dst) < (c-1)*ldr+n {
		panic("kern: gatherRows: dst out of range")
	}
	for _, o := range idx {
		if o < 0 || int(o)+c > len(xs) {
			panic("kern: gatherRows: offset out of range")
		}
	}
	gatherRowsAVX512(&dst[0], ldr, &xs[0], &idx[0], n, c)
}
