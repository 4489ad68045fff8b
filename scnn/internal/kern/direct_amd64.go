//go:build amd64 && !purego

package kern

//go:generate go run gen_direct.go

// The direct convolution's micro-kernels (direct_amd64.s, gen_direct.go):
// directKernel for nv = 1, 2, 3 vectors, cin >= 1 and k >= 1.

//go:noescape
func directAVX512_1(acc, x *float32, ldx int, w *float32, cin, k int)

//go:noescape
func directAVX512_2(acc, x *float32, ldx int, w *float32, cin, k int)

//go:noescape
func directAVX512_3(acc, x *float32, ldx int, w *float32, cin, k int)

// directAVX512 is the directKernel of the AVX-512 set. It checks that
// every element the assembly touches is inside its slices.
func directAVX512(nv int, acc, x []float32, ldx int, w []float32, cin, k int) {
	n := nv * directV
	if nv < 1 || nv > directMaxNV || cin < 1 || k < 1 || len(acc) < directF*n ||
		len(x) < (cin-1)*ldx+k-1+n || len(w) < cin*k*directF {
		panic("kern: directAVX512: arguments out of range")
	}
	switch nv {
	case 1:
		directAVX512_1(&acc[0], &x[0], ldx, &w[0], cin, k)
	case 2:
		directAVX512_2(&acc[0], &x[0], ldx, &w[0], cin, k)
	default:
		directAVX512_3(&acc[0], &x[0], ldx, &w[0], cin, k)
	}
}

//go:noescape
func directPairAVX512_1(acc, xa *float32, xbs **float32, nb, ldx int, w *float32, cin int)

//go:noescape
func directPairAVX512_2(acc, xa *float32, xbs **float32, nb, ldx int, w *float32, cin int)

//go:noescape
func directPairAVX512_3(acc, xa *float32, xbs **float32, nb, ldx int, w *float32, cin int)

// directPairAVX512 is the directPairKernel of the AVX-512 set. It checks
// that every element the assembly touches is inside its slices.
func directPairAVX512(nv int, acc, xa []float32, xbs [][]float32, ldx int, w []float32, cin int) {
	n, nb := nv*directV, len(xbs)
	if nv < 1 || nv > directMaxNV || cin < 1 || nb < 1 || nb > directMaxK || len(acc) < directF*n ||
		len(xa) < (cin-1)*ldx+nb-1+n || len(w) < cin*nb*directF {
		panic("kern: directPairAVX512: arguments out of range")
	}
	var ptrs [directMaxK]*float32
	for j, xb := range xbs {
		if len(xb) < (cin-1)*ldx+n {
			panic("kern: directPairAVX512: arguments out of range")
		}
		ptrs[j] = &xb[0]
	}
	switch nv {
	case 1:
		directPairAVX512_1(&acc[0], &xa[0], &ptrs[0], nb, ldx, &w[0], cin)
	case 2:
		directPairAVX512_2(&acc[0], &xa[0], &ptrs[0], nb, ldx, &w[0], cin)
	default:
		directPairAVX512_3(&acc[0], &xa[0], &ptrs[0], nb, ldx, &w[0], cin)
	}
}

//go:noescape
func directDWAVX512_1(acc, x *float32, ldx int, dy *float32, ldd, nv, cin int)

//go:noescape
func directDWAVX512_2(acc, x *float32, ldx int, dy *float32, ldd, nv, cin int)

//go:noescape
func directDWAVX512_3(acc, x *float32, ldx int, dy *float32, ldd, nv, cin int)

// directDWAVX512 is the directDWKernel of the AVX-512 set. It checks that
// every element the assembly touches is inside its slices.
func directDWAVX512(kb int, acc, x []float32, ldx int, dy []float32, ldd, nv, cin int) {
	n := nv * directV
	if kb < 1 || kb > 3 || nv < 1 || cin < 1 || ldd < n || len(acc) < cin*kb*directF*directV ||
		len(x) < (cin-1)*ldx+kb-1+n || len(dy) < (directF-1)*ldd+n {
		panic("kern: directDWAVX512: arguments out of range")
	}
	switch kb {
	case 1:
		directDWAVX512_1(&acc[0], &x[0], ldx, &dy[0], ldd, nv, cin)
	case 2:
		directDWAVX512_2(&acc[0], &x[0], ldx, &dy[0], ldd, nv, cin)
	default:
		directDWAVX512_3(&acc[0], &x[0], ldx, &dy[0], ldd, nv, cin)
	}
}
