package kern

// AddRuns adds count runs of run floats of src to strided places of dst:
//
//	for i := 0; i < count; i++ {
//	    for r := 0; r < run; r++ {
//	        dst[i*dstStride+r] += src[i*srcStride+r]
//	    }
//	}
//
// each sum one float32 addition, in that order, so every kernel set gives
// the same bits. The strides are at least 0; the runs of dst must not
// overlap those of src, nor each other unless they are one (dstStride 0:
// the runs of src summed into dst in order).
func AddRuns(dst, src []float32, run, count, dstStride, srcStride int) {
	if !checkRuns("AddRuns", dst, src, run, count, dstStride, srcStride) {
		return
	}
	if dstStride == 0 && count > 1 {
		// One run summed into: dst's values stay in registers (a store
		// and a load of the same place per run would wait on each other).
		if f := activeSet.Load().sumRuns; f != nil {
			f(dst, src, run, count, srcStride)
			return
		}
	}
	if f := activeSet.Load().addRuns; f != nil {
		f(dst, src, run, count, dstStride, srcStride)
		return
	}
	addRunsGo(dst, src, run, count, dstStride, srcStride)
}

func addRunsGo(dst, src []float32, run, count, dstStride, srcStride int) {
	for i := 0; i < count; i++ {
		d := dst[i*dstStride : i*dstStride+run]
		for r, v := range src[i*srcStride : i*srcStride+run] {
			d[r] += v
		}
	}
}

// CartesianAdd adds the row and column terms of the first layer of a
// self-Cartesian map (scnn's cartesianTerms) to count output pixels of
// cout channels:
//
//	for j := 0; j < count; j++ {
//	    for o := 0; o < cout; o++ {
//	        dst[j*ldd+o] += float32(row[o] + col[j*cout+o])
//	    }
//	}
//
// the terms summed in float64, rounded to float32 (to nearest even), then
// added in float32, on every kernel set.
func CartesianAdd(dst []float32, ldd int, row, col []float64, count, cout int) {
	if count <= 0 || cout <= 0 {
		return
	}
	if ldd < cout || len(row) < cout || len(col) < count*cout || len(dst) < (count-1)*ldd+cout {
		panic("kern: CartesianAdd: slices too short")
	}
	if f := activeSet.Load().cartesianAdd; f != nil {
		f(dst, ldd, row, col, count, cout)
		return
	}
	cartesianAddGo(dst, ldd, row, col, count, cout)
}

func cartesianAddGo(dst []float32, ldd int, row, col []float64, count, cout int) {
	row = row[:cout]
	for j := 0; j < count; j++ {
		d := dst[j*ldd : j*ldd+cout]
		c := col[j*cout : (j+1)*cout]
		for o, r := range row {
			d[o] += float32(r + c[o])
		}
	}
}
