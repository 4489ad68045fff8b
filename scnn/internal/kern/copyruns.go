package kern

// CopyRuns copies count runs of run floats between strided places:
//
//	for i := 0; i < count; i++ {
//	    copy(dst[i*dstStride:i*dstStride+run], src[i*srcStride:i*srcStride+run])
//	}
//
// The strides are at least 0. The runs of dst must not overlap those of
// src; runs of src may overlap each other (srcStride 0 repeats one run).
// The im2col of a narrow
// layer is made of such runs (k*C floats per kernel row and output pixel,
// 12-72 floats for the shipped networks' backward passes), where a call
// of copy per run costs more than the copy.
func CopyRuns(dst, src []float32, run, count, dstStride, srcStride int) {
	if checkRuns("CopyRuns", dst, src, run, count, dstStride, srcStride) {
		activeSet.Load().copyRuns(dst, src, run, count, dstStride, srcStride)
	}
}

// checkRuns panics on a negative stride and where the last run of dst or
// src is out of range (one bounds check for every run); it reports
// whether there is anything to do (run and count positive).
func checkRuns(name string, dst, src []float32, run, count, dstStride, srcStride int) bool {
	if dstStride < 0 || srcStride < 0 {
		panic("kern: " + name + ": a negative stride")
	}
	if run <= 0 || count <= 0 {
		return false
	}
	last := count - 1
	_ = dst[last*dstStride+run-1]
	_ = src[last*srcStride+run-1]
	return true
}

func copyRunsGo(dst, src []float32, run, count, dstStride, srcStride int) {
	for i := 0; i < count; i++ {
		copy(dst[i*dstStride:i*dstStride+run], src[i*srcStride:i*srcStride+run])
	}
}

// packRows writes count rows of width floats to dst (one after another),
// row i holding src[i*srcStride : i*srcStride+run] and zeros after it:
// the packing of a panel of B for the micro-kernels (packB), run <= width.
func packRows(dst, src []float32, run, count, width, srcStride int) {
	if run <= 0 || count <= 0 {
		clear(dst[:max(count, 0)*width])
		return
	}
	_ = dst[count*width-1]
	_ = src[(count-1)*srcStride+run-1]
	if f := activeSet.Load().packRows; f != nil && width%16 == 0 {
		f(dst, src, run, count, width, srcStride)
		return
	}
	packRowsGo(dst, src, run, count, width, srcStride)
}

func packRowsGo(dst, src []float32, run, count, width, srcStride int) {
	for i := 0; i < count; i++ {
		row := dst[i*width : (i+1)*width]
		copy(row, src[i*srcStride:i*srcStride+run])
		clear(row[run:])
	}
}
