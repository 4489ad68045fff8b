package kern

// addRows adds cnt rows of z, step floats apart, to o:
//
//	for r < cnt, f < len(o):  o[f] += z[r*step + f]
//
// each o[f] summed in row order, so every implementation gives the same
// bits. It is the gather of the output-side convolution (gatherPixel):
// one call per kernel row, cnt = the kernel positions inside the map.
// The kernel set in use supplies a vector version (addRowsFunc).
type addRowsFunc func(o, z []float32, step, cnt int)

// checkRows panics unless z holds the cnt rows addRows reads.
func checkRows(o, z []float32, step, cnt int) {
	if cnt > 0 && len(o) > 0 && len(z) < (cnt-1)*step+len(o) {
		panic("kern: addRows: z too short")
	}
}

// addRowsGo is the portable addRows.
func addRowsGo(o, z []float32, step, cnt int) {
	checkRows(o, z, step, cnt)
	if len(o) == 8 {
		add8(o, z, step, cnt)
		return
	}
	for r := 0; r < cnt; r++ {
		addTo(o, z[r*step:r*step+len(o)])
	}
}

// addTo adds src to o elementwise; len(src) == len(o).
func addTo(o, src []float32) {
	src = src[:len(o)]
	for f, v := range src {
		o[f] += v
	}
}

// add8 adds cnt rows of 8 values of z, step apart from z[0], to o[:8].
func add8(o, z []float32, step, cnt int) {
	o = o[:8]
	s0, s1, s2, s3, s4, s5, s6, s7 := o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]
	for r := 0; r < cnt; r++ {
		v := z[r*step : r*step+8]
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
		s4 += v[4]
		s5 += v[5]
		s6 += v[6]
		s7 += v[7]
	}
	o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = s0, s1, s2, s3, s4, s5, s6, s7
}
