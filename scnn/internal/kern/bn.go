package kern

// The inner loops of batch normalisation (scnn's BatchNorm2D) over n
// pixels of c channels, x[q*c + k], with per-pixel weights w[q] (0:
// padding, skipped). Each is written once here as the loop it computes;
// the AVX-512 set runs them over 8 or 16 channels at a time in the same
// order of operations per element, so every kernel set gives the same
// bits (TestBNKernels).

// BNVarSums adds the weighted squared deviations of n pixels to acc:
//
//	for q < n, w[q] != 0; k < c:
//	    d := float64(x[q*c+k]) - mean[k]
//	    acc[k] += float64(float64(float64(w[q])*d) * d)
func BNVarSums(acc, mean []float64, w, x []float32, c int) {
	if len(w) == 0 || c == 0 {
		return
	}
	if len(acc) < c || len(mean) < c || len(x) < len(w)*c {
		panic("kern: BNVarSums: slices too short")
	}
	activeSet.Load().bn.varSums(acc[:c], mean[:c], w, x[:len(w)*c], c)
}

// BNBackSums adds the sums of batch normalisation's backward step over n
// pixels: with xh = (x[q*c+k] - mean[k]) * inv[k] in float32,
//
//	for q < n, w[q] != 0; k < c:
//	    g := float64(float64(w[q]) * float64(dy[q*c+k]))
//	    sdy[k] += g
//	    sdyxh[k] += float64(g * float64(xh))
func BNBackSums(sdy, sdyxh []float64, w, dy, x, mean, inv []float32, c int) {
	if len(w) == 0 || c == 0 {
		return
	}
	if len(sdy) < c || len(sdyxh) < c || len(mean) < c || len(inv) < c || len(dy) < len(w)*c || len(x) < len(w)*c {
		panic("kern: BNBackSums: slices too short")
	}
	activeSet.Load().bn.backSums(sdy[:c], sdyxh[:c], w, dy[:len(w)*c], x[:len(w)*c], mean[:c], inv[:c], c)
}

// BNApply writes the normalised pixels, zero where w[q] == 0:
//
//	out[q*c+k] = gamma[k]*((x[q*c+k] - mean[k]) * inv[k]) + beta[k]
//
// in float32, the product and the sum each rounded.
func BNApply(out, x, w, gamma, beta, mean, inv []float32, c int) {
	if len(w) == 0 || c == 0 {
		return
	}
	n := len(w) * c
	if len(out) < n || len(x) < n || len(gamma) < c || len(beta) < c || len(mean) < c || len(inv) < c {
		panic("kern: BNApply: slices too short")
	}
	activeSet.Load().bn.apply(out[:n], x[:n], w, gamma[:c], beta[:c], mean[:c], inv[:c], c)
}

// BNBackOut writes the input gradient of batch normalisation, zero where
// w[q] == 0: with xh as in BNBackSums,
//
//	dx[q*c+k] = scale[k] * ((dy[q*c+k] - a[k]) - xh*b[k])
func BNBackOut(dx, dy, x, w, scale, a, b, mean, inv []float32, c int) {
	if len(w) == 0 || c == 0 {
		return
	}
	n := len(w) * c
	if len(dx) < n || len(dy) < n || len(x) < n || len(scale) < c || len(a) < c || len(b) < c || len(mean) < c || len(inv) < c {
		panic("kern: BNBackOut: slices too short")
	}
	activeSet.Load().bn.backOut(dx[:n], dy[:n], x[:n], w, scale[:c], a[:c], b[:c], mean[:c], inv[:c], c)
}

// bnKernels are a kernel set's batchnorm loops.
type bnKernels struct {
	varSums  func(acc, mean []float64, w, x []float32, c int)
	backSums func(sdy, sdyxh []float64, w, dy, x, mean, inv []float32, c int)
	apply    func(out, x, w, gamma, beta, mean, inv []float32, c int)
	backOut  func(dx, dy, x, w, scale, a, b, mean, inv []float32, c int)
}

var bnGo = bnKernels{varSums: bnVarSumsGo, backSums: bnBackSumsGo, apply: bnApplyGo, backOut: bnBackOutGo}

func bnVarSumsGo(acc, mean []float64, w, x []float32, c int) {
	for q, wq := range w {
		wp := float64(wq)
		if wp == 0 {
			continue
		}
		for k, v := range x[q*c : (q+1)*c] {
			d := float64(v) - mean[k]
			acc[k] += float64(float64(wp*d) * d)
		}
	}
}

func bnBackSumsGo(sdy, sdyxh []float64, w, dy, x, mean, inv []float32, c int) {
	for q, wq := range w {
		wp := float64(wq)
		if wp == 0 {
			continue
		}
		d, xs := dy[q*c:(q+1)*c], x[q*c:(q+1)*c]
		for k := range d {
			g := float64(wp * float64(d[k]))
			sdy[k] += g
			xh := float32(float32(xs[k]-mean[k]) * inv[k])
			sdyxh[k] += float64(g * float64(xh))
		}
	}
}

func bnApplyGo(out, x, w, gamma, beta, mean, inv []float32, c int) {
	for q, wq := range w {
		o := out[q*c : (q+1)*c]
		if wq == 0 {
			clear(o)
			continue
		}
		for k, v := range x[q*c : (q+1)*c] {
			xh := float32(float32(v-mean[k]) * inv[k])
			o[k] = float32(gamma[k]*xh) + beta[k]
		}
	}
}

func bnBackOutGo(dx, dy, x, w, scale, a, b, mean, inv []float32, c int) {
	for q, wq := range w {
		o := dx[q*c : (q+1)*c]
		if wq == 0 {
			clear(o)
			continue
		}
		d, xs := dy[q*c:(q+1)*c], x[q*c:(q+1)*c]
		for k := range o {
			xh := float32(float32(xs[k]-mean[k]) * inv[k])
			o[k] = scale[k] * float32(float32(d[k]-a[k])-float32(xh*b[k]))
		}
	}
}
