package kern

// storeAcc8Go is the portable storeAcc8: the direct convolution's
// write-out of eight accumulator rows (output channel f's pixels at
// acc[f*n:], directF = 8 of them) as pixel rows of the output map,
//
//	out[j*ldo + f] = acc[f*n + j]   for 0 <= j < jn, 0 <= f < 8
//
// (an 8 x jn transposition; ldo >= 8, jn <= n).
func storeAcc8Go(out []float32, ldo int, acc []float32, n, jn int) {
	a0, a1, a2, a3 := acc[:jn], acc[n:n+jn], acc[2*n:2*n+jn], acc[3*n:3*n+jn]
	a4, a5, a6, a7 := acc[4*n:4*n+jn], acc[5*n:5*n+jn], acc[6*n:6*n+jn], acc[7*n:7*n+jn]
	for j := range a0 {
		o := out[j*ldo : j*ldo+8]
		o[0], o[1], o[2], o[3] = a0[j], a1[j], a2[j], a3[j]
		o[4], o[5], o[6], o[7] = a4[j], a5[j], a6[j], a7[j]
	}
}

// storeAcc8 is the active kernel set's storeAcc8 (the portable one where
// the set has none).
func storeAcc8(out []float32, ldo int, acc []float32, n, jn int) {
	if f := activeSet.Load().storeAcc8; f != nil {
		f(out, ldo, acc, n, jn)
		return
	}
	storeAcc8Go(out, ldo, acc, n, jn)
}

// accInit8Go is the portable accInit8: the direct convolution's
// accumulator rows set to their starting values,
//
//	acc[f*n + j] = vals[f]   for 0 <= f < 8, 0 <= j < n.
func accInit8Go(acc []float32, n int, vals []float32) {
	for f, v := range vals[:8] {
		a := acc[f*n : (f+1)*n]
		for j := range a {
			a[j] = v
		}
	}
}

// accInit8 is the active kernel set's accInit8 (the portable one where
// the set has none).
func accInit8(acc []float32, n int, vals []float32) {
	if f := activeSet.Load().accInit8; f != nil {
		f(acc, n, vals)
		return
	}
	accInit8Go(acc, n, vals)
}
