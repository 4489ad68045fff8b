//go:build amd64 && !purego

package kern

//go:noescape
func copyRunsAVX512(dst, src *float32, run, count, dstStride, srcStride int)

// copyRunsAVX512Go adapts the assembly CopyRuns (copyruns_amd64.s); the
// caller has checked the slices.
func copyRunsAVX512Go(dst, src []float32, run, count, dstStride, srcStride int) {
	copyRunsAVX512(&dst[0], &src[0], run, count, dstStride, srcStride)
}

//go:noescape
func packRowsAVX512(dst, src *float32, run, count, width, srcStride int)

// packRowsAVX512Go adapts the assembly packRows (copyruns_amd64.s), for
// widths that are whole vectors; the caller has checked the slices.
func packRowsAVX512Go(dst, src []float32, run, count, width, srcStride int) {
	packRowsAVX512(&dst[0], &src[0], run, count, width, srcStride)
}
