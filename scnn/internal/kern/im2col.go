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
	if n == 0 {
		return
	}
	i, j := pix0/w, pix0%w
	for r := 0; r < n; {
		if j >= pad && j+pad < w {
			// A run of m pixels of image row i whose windows lie inside
			// the map's columns: per kernel row, m runs of k*C floats,
			// C apart in x and K apart in col.
			m := min(n-r, w-pad-j)
			im2colRuns(col[r*kk:], x, h, c, k, i, m, func(p int) int { return p*w + j - pad })
			r += m
			if j += m; j == w {
				i++
				j = 0
			}
			continue
		}
		row := col[r*kk : (r+1)*kk]
		// Columns q = j+b-pad inside the map for b in [b0, b1): one
		// contiguous run of x per kernel row.
		b0, b1 := max(0, pad-j), min(k, w-j+pad)
		for a := 0; a < k; a++ {
			p := i + a - pad
			seg := row[a*k*c : (a+1)*k*c]
			if p < 0 || p >= h || b0 >= b1 {
				clear(seg)
				continue
			}
			clear(seg[:b0*c])
			src := (p*w + j + b0 - pad) * c
			copy(seg[b0*c:b1*c], x[src:src+(b1-b0)*c])
			clear(seg[b1*c:])
		}
		r++
		if j++; j == w {
			i++
			j = 0
		}
	}
}

// im2colRuns writes the im2col rows of m pixels of map row i, one after
// another along the row, whose windows lie inside the map and are stored
// in x one pixel (C floats) apart: for kernel row a, the window row p =
// i+a-pad of the first pixel starts at pixel start(p) of x; rows outside
// 0 <= p < h are zero.
func im2colRuns(col, x []float32, h, c, k, i, m int, start func(p int) int) {
	pad, kk, seg := k/2, k*k*c, k*c
	for a := 0; a < k; a++ {
		p := i + a - pad
		if p < 0 || p >= h {
			for t := 0; t < m; t++ {
				clear(col[t*kk+a*seg : t*kk+(a+1)*seg])
			}
			continue
		}
		CopyRuns(col[a*seg:], x[start(p)*c:], seg, m, kk, c)
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
	for r := 0; r < n; {
		m := 1 // pixels done by this step
		if j >= i+k-1 && j+pad < l {
			// A run of m pixels of triangle row i whose windows lie in
			// the stored triangle (q >= p for every tap) and inside the
			// map: per kernel row, m runs of k*C floats of triangle row
			// p, C apart in x and K apart in col.
			m = min(n-r, l-pad-j)
			im2colRuns(col[r*kk:], x, l, c, k, i, m, func(p int) int {
				return p*l - p*(p-1)/2 - p + j - pad // Tri(l, p, j-pad), j-pad >= p
			})
		} else {
			im2colPackedPixel(col[r*kk:(r+1)*kk], x, l, c, k, i, j)
		}
		r += m
		if j += m; j == l {
			i++
			j = i
		}
	}
}

// im2colPackedPixel writes the im2col row of pixel (i, j) of Im2colPacked.
func im2colPackedPixel(row, x []float32, l, c, k, i, j int) {
	pad := k / 2
	for a := 0; a < k; a++ {
		p := i + a - pad
		seg := row[a*k*c : (a+1)*k*c]
		if p < 0 || p >= l {
			clear(seg)
			continue
		}
		rowP := p*l - p*(p-1)/2 - p // Tri(l, p, q) = rowP + q for q >= p
		// b in [b0, b1): q inside the map; b >= bu: q >= p, stored in
		// row p of the triangle, contiguous.
		b0, b1 := max(0, pad-j), min(k, l-j+pad)
		bu := min(max(b0, p-j+pad), b1)
		clear(seg[:b0*c])
		for b := b0; b < bu; b++ {
			q := j + b - pad
			t := q*l - q*(q-1)/2 + (p - q)
			copy(seg[b*c:(b+1)*c], x[t*c:(t+1)*c])
		}
		if bu < b1 {
			t := rowP + j + bu - pad
			copy(seg[bu*c:b1*c], x[t*c:(t+b1-bu)*c])
		}
		clear(seg[max(b1, b0)*c:])
	}
}
