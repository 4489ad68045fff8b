//go:build amd64 && !purego

package kern

//go:noescape
func transposeRowsAVX512(dst *float32, ldr int, xs *float32, idx *int32, n, c int)

//go:noescape
func minMaxInt32AVX512(v *int32, n int) (lo, hi int32)

// transposeRowsAVX512Go is gatherRows by in-register 16 x 16
// transpositions (transpose_amd64.s). It checks that every element the
// assembly touches is inside its slices. The assembly loads 16 pixels a
// block; a last block of fewer takes its offsets from a copy padded with
// the block's first offset (loaded, not stored).
func transposeRowsAVX512Go(dst []float32, ldr int, xs []float32, idx []int32, c int) {
	n := len(idx)
	if n == 0 || c == 0 {
		return
	}
	if c < 0 || ldr < n || len(dst) < (c-1)*ldr+n {
		panic("kern: gatherRows: dst out of range")
	}
	if lo, hi := minMaxInt32AVX512(&idx[0], n); lo < 0 || int(hi)+c > len(xs) {
		panic("kern: gatherRows: offset out of range")
	}
	full := n &^ (directV - 1)
	if full > 0 {
		transposeRowsAVX512(&dst[0], ldr, &xs[0], &idx[0], full, c)
	}
	if t := n - full; t > 0 {
		var pad [directV]int32
		copy(pad[:], idx[full:])
		for i := t; i < directV; i++ {
			pad[i] = idx[full]
		}
		transposeRowsAVX512(&dst[full], ldr, &xs[0], &pad[0], t, c)
	}
}
