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
			ai := as[i*f : (i+1)*f]
			for j := i; j < l; j++ {
				aj := as[j*f : (j+1)*f]
				out := y[p*f : (p+1)*f]
				for k := range out {
					out[k] = ai[k] + aj[k] + bias[k]
				}
				p++
			}
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
			ri := rs[i*f : (i+1)*f]
			for j := i; j < l; j++ {
				v := y[p*f : (p+1)*f]
				rj := rs[j*f : (j+1)*f]
				for k := range v {
					ri[k] += v[k]
				}
				if j != i {
					for k := range v {
						rj[k] += v[k]
					}
				}
				p++
			}
		}
	})
}
