package kern

// Im2colDense fills col (n rows of K = k*k*C) with the k x k neighbourhoods
// of output pixels pix0..pix0+n-1 (row-major over H x W) of the dense map x
// (H x W x C), zero outside the map ("same" padding, pad = k/2):
//
//	for r, (i, j) = divmod(pix0+r, W); a, b < k; c < C:
//	    col[r*K + (a*k+b)*C + c] = x[((i+a-pad)*W + j+b-pad)*C + c]  (0 outside)
func Im2colDense(col, x []float32, h, w, c, k, pix0, n int) {
	kk := k * k * c
	pad := k / 2
	for r := 0; r < n; r++ {
		i, j := (pix0+r)/w, (pix0+r)%w
		row := col[r*kk : (r+1)*kk]
		for a := 0; a < k; a++ {
			p := i + a - pad
			seg := row[a*k*c : (a+1)*k*c]
			if p < 0 || p >= h {
				clear(seg)
				continue
			}
			for b := 0; b < k; b++ {
				q := j + b - pad
				dst := seg[b*c : (b+1)*c]
				if q < 0 || q >= w {
					clear(dst)
					continue
				}
				copy(dst, x[(p*w+q)*c:(p*w+q+1)*c])
			}
		}
	}
}

// Im2colPacked is Im2colDense for a packed symmetric L x L x C map x, with
// output pixels pix0..pix0+n-1 in packed order (the upper triangle):
//
//	for r, (i, j) = TriPos(L, pix0+r); a, b < k; c < C:
//	    col[r*K + (a*k+b)*C + c] = x[TriSym(L, i+a-pad, j+b-pad)*C + c]  (0 outside)
func Im2colPacked(col, x []float32, l, c, k, pix0, n int) {
	if n == 0 {
		return
	}
	kk := k * k * c
	pad := k / 2
	i, j := TriPos(l, pix0)
	for r := 0; r < n; r++ {
		row := col[r*kk : (r+1)*kk]
		for a := 0; a < k; a++ {
			p := i + a - pad
			seg := row[a*k*c : (a+1)*k*c]
			if p < 0 || p >= l {
				clear(seg)
				continue
			}
			rowP := p*l - p*(p-1)/2 - p // Tri(l, p, q) = rowP + q for q >= p
			for b := 0; b < k; b++ {
				q := j + b - pad
				dst := seg[b*c : (b+1)*c]
				switch {
				case q < 0 || q >= l:
					clear(dst)
				case q >= p:
					t := rowP + q
					copy(dst, x[t*c:(t+1)*c])
				default:
					t := q*l - q*(q-1)/2 + (p - q)
					copy(dst, x[t*c:(t+1)*c])
				}
			}
		}
		if j++; j == l {
			i++
			j = i
		}
	}
}
