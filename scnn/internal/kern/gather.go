package kern

// gatherRowsGo is the portable gatherRows: the transposition of the
// direct convolution's row buffers (directRow),
//
//	dst[ch*ldr + q] = xs[idx[q] + ch]   for 0 <= ch < c, 0 <= q < len(idx)
//
// idx[q] the offset of pixel q's c channels in xs.
func gatherRowsGo(dst []float32, ldr int, xs []float32, idx []int32, c int) {
	for ch := 0; ch < c; ch++ {
		d := dst[ch*ldr : ch*ldr+len(idx)]
		s := xs[ch:]
		for q, o := range idx {
			d[q] = s[o]
		}
	}
}

// gatherRows is the active kernel set's gatherRows (the portable one
// where the set has none). The caller has checked the bounds
// (directRow).
func gatherRows(dst []float32, ldr int, xs []float32, idx []int32, c int) {
	if f := activeSet.Load().gatherRows; f != nil {
		f(dst, ldr, xs, idx, c)
		return
	}
	gatherRowsGo(dst, ldr, xs, idx, c)
}
