package kern

// ValidGeom is the geometry of a "valid" (unpadded, stride 1) convolution
// of a batch of square L x L maps with Cin channels into (L-K+1) x (L-K+1)
// maps with Cout channels. With Packed, input and output are packed upper
// triangles of symmetric maps (see Tri) and only the output pixels i <= j
// are computed; the kernel must then be spatially symmetric for the output
// to be symmetric.
type ValidGeom struct {
	Packed          bool
	B, L, Cin, Cout int
	K               int
	Workers         int
}

// Lo is the output side, L-K+1.
func (g ValidGeom) Lo() int { return g.L - g.K + 1 }

// InPix and OutPix are the stored pixels of one input and one output map.
func (g ValidGeom) InPix() int {
	if g.Packed {
		return TriSize(g.L)
	}
	return g.L * g.L
}

// OutPix is the number of stored output pixels of one map.
func (g ValidGeom) OutPix() int {
	if g.Packed {
		return TriSize(g.Lo())
	}
	return g.Lo() * g.Lo()
}

// validChunk is the number of samples per work item: fixed, so results do
// not depend on the number of workers.
const validChunk = 32

// ValidIm2col fills col (OutPix rows of K*K*Cin) with the neighbourhoods of
// the output pixels of one map x:
//
//	for r, (i, j) = the r-th output pixel; a, b < K; c < Cin:
//	    col[r*K*K*Cin + (a*K+b)*Cin + c] = x[pix(i+a, j+b)*Cin + c]
//
// where pix is row-major (i*L+j) or, packed, TriSym(L, ., .).
func ValidIm2col(g ValidGeom, col, x []float32) {
	k, c, lo := g.K, g.Cin, g.Lo()
	kc := k * c
	r := 0
	for i := 0; i < lo; i++ {
		j0 := 0
		if g.Packed {
			j0 = i
		}
		for j := j0; j < lo; j++ {
			row := col[r*k*kc : (r+1)*k*kc]
			for a := 0; a < k; a++ {
				seg := row[a*kc : (a+1)*kc]
				if !g.Packed {
					src := ((i+a)*g.L + j) * c
					copy(seg, x[src:src+kc])
					continue
				}
				for b := 0; b < k; b++ {
					src := TriSym(g.L, i+a, j+b) * c
					copy(seg[b*c:(b+1)*c], x[src:src+c])
				}
			}
			r++
		}
	}
}

// validCol2im adds the columns back into the map v (L x L x Cin, always
// full row-major): v[(i+a)*L + j+b] += col[r, (a,b)], the transpose of
// ValidIm2col without the packing.
func validCol2im(g ValidGeom, v, col []float32) {
	k, c, lo := g.K, g.Cin, g.Lo()
	kc := k * c
	r := 0
	for i := 0; i < lo; i++ {
		j0 := 0
		if g.Packed {
			j0 = i
		}
		for j := j0; j < lo; j++ {
			row := col[r*k*kc : (r+1)*k*kc]
			for a := 0; a < k; a++ {
				dst := v[((i+a)*g.L+j)*c : ((i+a)*g.L+j)*c+kc]
				for q, s := range row[a*kc : (a+1)*kc] {
					dst[q] += s
				}
			}
			r++
		}
	}
}

// ValidConvForward computes the valid convolution of x (B maps of InPix x
// Cin) with w (K, K, Cin, Cout) into y (B maps of OutPix x Cout):
//
//	y[s, (i,j), f] = bias[f] + sum_{a,b,c} x[s, (i+a, j+b), c] * w[a,b,c,f]
//
// bias may be nil.
func ValidConvForward(g ValidGeom, y, x, w, bias []float32) {
	in, out, kk := g.InPix()*g.Cin, g.OutPix()*g.Cout, g.K*g.K*g.Cin
	op := g.OutPix()
	chunks := (g.B + validChunk - 1) / validChunk
	pw := PackB(false, kk, g.Cout, 1, w, g.Cout) // once for every chunk
	defer pw.Release()
	ParallelFor(chunks, Workers(g.Workers), func(_, item int) {
		s0, s1 := item*validChunk, min((item+1)*validChunk, g.B)
		rows := (s1 - s0) * op
		col := getScratch(rows * kk)
		defer putScratch(col)
		for s := s0; s < s1; s++ {
			ValidIm2col(g, col[(s-s0)*op*kk:], x[s*in:(s+1)*in])
		}
		ys := y[s0*out : s1*out]
		beta := float32(0)
		if bias != nil {
			for r := 0; r < rows; r++ {
				copy(ys[r*g.Cout:(r+1)*g.Cout], bias)
			}
			beta = 1
		}
		GemmPacked(false, rows, col, kk, pw, beta, ys, g.Cout)
	})
}

// ValidConvBackward is the backward step of ValidConvForward for output
// gradient dy: it adds the kernel gradient to dw and the bias gradient to
// db, and writes the input gradient to dx (nil: not wanted).
//
// Dense maps: dw += X^T dY, db += sum dY, dx = col2im(dY w^T).
//
// Packed maps hold the gradient of the full symmetric map at each stored
// pixel. With dY' = dY halved on the diagonal output pixels and X the
// im2col of the triangle's output pixels, dw += U = X^T dY' and db +=
// sum dY'; the full map's kernel gradient is then U + U^T (spatial
// transpose), and its bias gradient 2 db. The input gradient is V + V^T
// folded to the triangle, V = col2im(dY' w^T) over the full map: exact for
// a spatially symmetric w.
func ValidConvBackward(g ValidGeom, dx, dw, db, x, dy, w []float32) {
	in, out, kk := g.InPix()*g.Cin, g.OutPix()*g.Cout, g.K*g.K*g.Cin
	op, lo := g.OutPix(), g.Lo()
	chunks := (g.B + validChunk - 1) / validChunk
	dws := make([][]float32, chunks)
	dbs := make([][]float32, chunks)
	var pwt *PackedB // w^T, packed once for every chunk's input gradient
	if dx != nil {
		pwt = PackB(true, g.Cout, kk, 1, w, g.Cout)
		defer pwt.Release()
	}
	ParallelFor(chunks, Workers(g.Workers), func(_, item int) {
		s0, s1 := item*validChunk, min((item+1)*validChunk, g.B)
		rows := (s1 - s0) * op
		col := getScratch(rows * kk)
		defer putScratch(col)
		for s := s0; s < s1; s++ {
			ValidIm2col(g, col[(s-s0)*op*kk:], x[s*in:(s+1)*in])
		}
		gy := dy[s0*out : s1*out]
		if g.Packed { // halve the diagonal pixels of a copy
			h := getScratch(len(gy))
			defer putScratch(h)
			copy(h, gy)
			for s := 0; s < s1-s0; s++ {
				for i := 0; i < lo; i++ {
					d := h[(s*op+Tri(lo, i, i))*g.Cout:][:g.Cout]
					for f := range d {
						d[f] *= 0.5
					}
				}
			}
			gy = h
		}
		pw := make([]float32, kk*g.Cout)
		Gemm(true, false, kk, g.Cout, rows, 1, col, kk, gy, g.Cout, 0, pw, g.Cout)
		pb := make([]float32, g.Cout)
		for r := 0; r < rows; r++ {
			for f, v := range gy[r*g.Cout : (r+1)*g.Cout] {
				pb[f] += v
			}
		}
		dws[item], dbs[item] = pw, pb
		if dx == nil {
			return
		}
		// The columns' gradient, reusing col.
		GemmPacked(false, rows, gy, g.Cout, pwt, 0, col, kk)
		full := getScratch(g.L * g.L * g.Cin)
		defer putScratch(full)
		for s := s0; s < s1; s++ {
			clear(full)
			validCol2im(g, full, col[(s-s0)*op*kk:])
			d := dx[s*in : (s+1)*in]
			if !g.Packed {
				copy(d, full)
				continue
			}
			c := g.Cin
			for i := 0; i < g.L; i++ {
				for j := i; j < g.L; j++ {
					o := Tri(g.L, i, j) * c
					u, v := full[(i*g.L+j)*c:][:c], full[(j*g.L+i)*c:][:c]
					for q := 0; q < c; q++ {
						d[o+q] = u[q] + v[q]
					}
				}
			}
		}
	})
	// Chunk partials summed in chunk order: the same for any worker count.
	for item := range dws {
		for q, v := range dws[item] {
			dw[q] += v
		}
		for f, v := range dbs[item] {
			db[f] += v
		}
	}
}
