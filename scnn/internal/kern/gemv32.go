package kern

// Matrix-vector products in float32 whose sums run in a fixed order, each
// product rounded before it is added (no fused multiply-add, whatever
// GOAMD64 allows the compiler: the explicit float32 conversions forbid
// it), so every kernel set gives the bits of the plain loops. scnn's LSTM
// runs its recurrences with them.

// GemvRowsF32 adds to y (n values) the rows of w (m rows, ldw floats
// apart) times the values of a, in row order:
//
//	for i < m (skipping a[i] == 0 where skipZero); j < n:
//	    y[j] += float32(a[i] * w[i*ldw + j])
func GemvRowsF32(y, a, w []float32, ldw int, skipZero bool) {
	n, m := len(y), len(a)
	if n == 0 || m == 0 {
		return
	}
	if ldw < n || len(w) < (m-1)*ldw+n {
		panic("kern: GemvRowsF32: slices too short")
	}
	if f := activeSet.Load().gemvRows; f != nil {
		f(y, a, w, ldw, skipZero)
		return
	}
	gemvRowsGo(y, a, w, ldw, skipZero)
}

func gemvRowsGo(y, a, w []float32, ldw int, skipZero bool) {
	for i, av := range a {
		if skipZero && av == 0 {
			continue
		}
		for j, wv := range w[i*ldw : i*ldw+len(y)] {
			y[j] += float32(av * wv)
		}
	}
}

// GerF32 adds the outer product of a (m values) and b (n values) to w
// (m rows, ldw floats apart):
//
//	for i < m; j < n:  w[i*ldw + j] += float32(a[i] * b[j])
func GerF32(w []float32, ldw int, a, b []float32) {
	m, n := len(a), len(b)
	if n == 0 || m == 0 {
		return
	}
	if ldw < n || len(w) < (m-1)*ldw+n {
		panic("kern: GerF32: slices too short")
	}
	if f := activeSet.Load().ger; f != nil {
		f(w, ldw, a, b)
		return
	}
	gerGo(w, ldw, a, b)
}

func gerGo(w []float32, ldw int, a, b []float32) {
	for i, av := range a {
		row := w[i*ldw : i*ldw+len(b)]
		for j, bv := range b {
			row[j] += float32(av * bv)
		}
	}
}
