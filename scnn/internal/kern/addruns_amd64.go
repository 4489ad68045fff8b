//go:build amd64 && !purego

package kern

//go:noescape
func addRunsAVX512(dst, src *float32, run, count, dstStride, srcStride int)

// addRunsAVX512Go adapts the assembly AddRuns (addruns_amd64.s); the
// caller has checked the slices.
func addRunsAVX512Go(dst, src []float32, run, count, dstStride, srcStride int) {
	addRunsAVX512(&dst[0], &src[0], run, count, dstStride, srcStride)
}

//go:noescape
func cartesianAddAVX512(dst *float32, ldd int, row, col *float64, count, cout int)

// cartesianAddAVX512Go adapts the assembly CartesianAdd
// (addruns_amd64.s); the caller has checked the slices.
func cartesianAddAVX512Go(dst []float32, ldd int, row, col []float64, count, cout int) {
	cartesianAddAVX512(&dst[0], ldd, &row[0], &col[0], count, cout)
}

//go:noescape
func sumRunsAVX512(dst, src *float32, run, count, srcStride int)

// sumRunsAVX512Go adapts the assembly AddRuns into one run
// (addruns_amd64.s); the caller has checked the slices.
func sumRunsAVX512Go(dst, src []float32, run, count, srcStride int) {
	sumRunsAVX512(&dst[0], &src[0], run, count, srcStride)
}
