package kern

// OuterSum writes the packed symmetric maps
//
//	y[s, Tri(L,i,j), f] = a[s,i,f] + a[s,j,f] + bias[f]   (i <= j)
//
// for B samples of L positions and F channels, samples in parallel over
// workers goroutines.
func OuterSum(y, a, bias []float32, b, l, f, workers int) {
	ParallelFor(b, Workers(workers), func(_, s int) {
		p := s * TriSize(l)
		as := a[s*l*f : (s+1)*l*f]
		for i := 0; i < l; i++ {
			// row i: y[p+j-i, k] = a[i,k] + a[j,k] + bias[k] for j in [i, l)
			outerSumRow(y[p*f:(p+l-i)*f], as[i*f:(i+1)*f], as[i*f:], bias[:f], l-i, f)
			p += l - i
		}
	})
}

// RowSums writes the row sums of B packed symmetric L x L x F maps:
//
//	r[s,i,f] = sum_j y[s, TriSym(L,i,j), f]
//
// samples in parallel over workers goroutines.
func RowSums(r, y []float32, b, l, f, workers int) {
	ParallelFor(b, Workers(workers), func(_, s int) {
		p := s * TriSize(l)
		rs := r[s*l*f : (s+1)*l*f]
		clear(rs)
		for i := 0; i < l; i++ {
			// row i: r[i] += y[i,j] and r[j] += y[i,j] (j > i), j ascending
			rowSumsRow(rs[i*f:], y[p*f:(p+l-i)*f], l-i, f)
			p += l - i
		}
	})
}

// outerSumRow is one row of OuterSum: for the cnt pixels j of a packed
// row (aj at aj[j*f:]),
//
//	out[j*f+k] = ai[k] + aj[j*f+k] + bias[k]
//
// summed in that order, in float32.
func outerSumRow(out, ai, aj, bias []float32, cnt, f int) {
	if cnt <= 0 || f <= 0 {
		return
	}
	_, _, _, _ = out[cnt*f-1], ai[f-1], aj[cnt*f-1], bias[f-1]
	if fn := activeSet.Load().outerSumRow; fn != nil {
		fn(out, ai, aj, bias, cnt, f)
		return
	}
	outerSumRowGo(out, ai, aj, bias, cnt, f)
}

func outerSumRowGo(out, ai, aj, bias []float32, cnt, f int) {
	ai, bias = ai[:f], bias[:f]
	for j := 0; j < cnt; j++ {
		o, a := out[j*f:(j+1)*f], aj[j*f:(j+1)*f]
		for k := range o {
			o[k] = ai[k] + a[k] + bias[k]
		}
	}
}

// rowSumsRow is one row of RowSums: for the cnt pixels j of a packed
// row y (pixel 0 the diagonal) in order,
//
//	r[k] += y[j*f+k];  r[j*f+k] += y[j*f+k] for j > 0
//
// each sum in float32 in that order.
func rowSumsRow(r, y []float32, cnt, f int) {
	if cnt <= 0 || f <= 0 {
		return
	}
	_, _ = r[cnt*f-1], y[cnt*f-1]
	if fn := activeSet.Load().rowSumsRow; fn != nil {
		fn(r, y, cnt, f)
		return
	}
	rowSumsRowGo(r, y, cnt, f)
}

func rowSumsRowGo(r, y []float32, cnt, f int) {
	ri := r[:f]
	for j := 0; j < cnt; j++ {
		v := y[j*f : (j+1)*f]
		for k := range v {
			ri[k] += v[k]
		}
		if j > 0 {
			rj := r[j*f : (j+1)*f]
			for k := range v {
				rj[k] += v[k]
			}
		}
	}
}
