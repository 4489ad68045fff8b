package kern

// AxpyRowsF64 adds to r (cout float64 sums) each input value times its
// row of w, widened to float64, skipping zero inputs:
//
//	for q < len(x), x[q] != 0; o < cout:
//	    r[o] += float64(float64(x[q]) * float64(w[q*cout + o]))
//
// in q order, a multiply then an add, so every implementation gives the
// same bits (the float32 x float32 products are exact in float64; the
// running sums round). scnn's batchnorm sums its channels with it.
func AxpyRowsF64(r []float64, x, w []float32, cout int) {
	if len(x) == 0 || cout == 0 {
		return
	}
	if len(r) < cout || len(w) < len(x)*cout {
		panic("kern: AxpyRowsF64: slices too short")
	}
	activeSet.Load().axpyF64(r[:cout], x, w[:len(x)*cout], cout)
}

// axpyRowsF64Go is the portable AxpyRowsF64.
func axpyRowsF64Go(r []float64, x, w []float32, cout int) {
	for q, xv := range x {
		if xv == 0 {
			continue
		}
		x64 := float64(xv)
		for o, wv := range w[q*cout : (q+1)*cout] {
			r[o] += float64(x64 * float64(wv))
		}
	}
}

// PrefixSumsF64 writes the running sums of n rows of c values of x,
// widened to float64, after the first row of pre:
//
//	for j < n; o < c:  pre[(j+1)*c + o] = pre[j*c + o] + float64(x[j*c + o])
//
// in j order, so every implementation gives the same bits. scnn's
// training by halves sums the rows of a gradient map with it.
func PrefixSumsF64(pre []float64, x []float32, n, c int) {
	if n <= 0 || c <= 0 {
		return
	}
	if len(pre) < (n+1)*c || len(x) < n*c {
		panic("kern: PrefixSumsF64: slices too short")
	}
	activeSet.Load().prefixF64(pre[:(n+1)*c], x[:n*c], n, c)
}

// prefixSumsF64Go is the portable PrefixSumsF64.
func prefixSumsF64Go(pre []float64, x []float32, n, c int) {
	for j := 0; j < n; j++ {
		for o := 0; o < c; o++ {
			pre[(j+1)*c+o] = pre[j*c+o] + float64(x[j*c+o])
		}
	}
}
