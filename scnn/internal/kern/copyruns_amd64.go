//go:build amd64 && !purego

package kern

//go:noescape
func copyRunsAVX512(dst, src *float32, run, count, dstStride, srcStride int)

// copyRunsAVX512Go adapts the assembly CopyRuns (copyruns_amd64.s); the
// caller has checked the slices.
func copyRunsAVX512Go(dst, src []float32, run, count, dstStride, srcStride int) {
	copyRunsAVX512(&dst[0], &src[0], run, count, dstStride, srcStride)
}
