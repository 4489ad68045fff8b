package scnn

import (
	"fmt"
	"math"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// Training by halves.
//
// In a training pass CartesianHalves and OuterSumHalves take the batch
// statistics of the map they stand for from the 1D halves, and the
// convolutions of a CartesianMap record a backward step that never builds
// the map either. With D the full-map gradient of one convolution's
// output (an SCNN's packed gradient read as the symmetric full map), u the
// row half on kernel channels from rowCh, v the column half from colCh and
// V(m) as in the file comment of cartesian.go, the kernel and half
// gradients are
//
//	RS[i, c, o] = sum_{j : c in V(j)} D[i, j, o]       (row sums over a range of j)
//	CS[j, a, o] = sum_{i : a in V(i)} D[i, j, o]       (column sums)
//	dW[a, c, rowCh+ch, o] += sum_i u[i+a-h, ch] RS[i, c, o]    over i with a in V(i)
//	dW[a, c, colCh+ch, o] += sum_j v[j+c-h, ch] CS[j, a, o]    over j with c in V(j)
//	du[p, ch]             += sum_{a, c, o} W[a, c, rowCh+ch, o] RS[p-a+h, c, o]
//	dv[q, ch]             += sum_{a, c, o} W[a, c, colCh+ch, o] CS[q-c+h, a, o]
//
// one GEMM per kernel offset and sample: L*K*K*n*Cout multiply-adds each,
// against L*L*K*K*n*Cout for the materialised map's backward. The dense
// parts (Before, After) go through kern.ConvBackward or
// kern.ConvWeightGrad with their slice of the kernel. The map's
// batchnorm is differentiated through its halves: a pixel (i, j) of a
// self-Cartesian product holds x[i] in the row channels and x[j] in the
// column ones, an outer sum a[i] + a[j], so the sums over the valid
// pixels that batch statistics and their gradients need are weighted sums
// over positions.

// halfLengths returns lengths, or l for each of the b samples when nil,
// checked.
func halfLengths(lengths []int, b, l int) ([]int, error) {
	if lengths == nil {
		lens := make([]int, b)
		for s := range lens {
			lens[s] = l
		}
		return lens, nil
	}
	if len(lengths) != b {
		return nil, fmt.Errorf("scnn: %d lengths for a batch of %d", len(lengths), b)
	}
	for s, n := range lengths {
		if n < 0 || n > l {
			return nil, fmt.Errorf("scnn: length %d of sample %d outside 0..%d", n, s, l)
		}
	}
	return lengths, nil
}

// pixelCount is the number of valid pixels of the batch, sum of n^2.
func pixelCount(lens []int) float64 {
	c := 0.0
	for _, n := range lens {
		c += float64(n) * float64(n)
	}
	return c
}

// updateRunning moves channel k's running statistics towards a batch's
// mean and biased variance over count pixels, as BatchNorm2D.apply does
// (call bn.Updates.Value[0]++ once per batch first).
func (bn *BatchNorm2D) updateRunning(k int, mean, vr, count float64) {
	m := max(bn.Momentum, 1/float64(bn.Updates.Value[0]))
	unbiased := vr
	if count > 1 {
		unbiased *= count / (count - 1)
	}
	bn.RunMean.Value[k] = float32((1-m)*float64(bn.RunMean.Value[k]) + m*mean)
	bn.RunVar.Value[k] = float32((1-m)*float64(bn.RunVar.Value[k]) + m*unbiased)
}

// cartesianHalvesTrain is CartesianHalves in a training pass: the
// batchnorm takes the statistics of the valid pixels of the product (the
// row and column channels of x's channel c share them: each valid x[b,i]
// appears in lengths[b] valid pixels of both), or the running ones under
// RunningStats.
func cartesianHalvesTrain(p *Pass, x *Tensor, lengths []int, bn *BatchNorm2D, relu bool) (row, col *Tensor, err error) {
	b, l, n := x.Shape[0], x.Shape[1], x.Shape[2]
	lens, err := halfLengths(lengths, b, l)
	if err != nil {
		return nil, nil, err
	}
	if row, err = p.newTensor(RowMajor, x.Shape); err != nil {
		return nil, nil, err
	}
	if col, err = p.newTensor(RowMajor, x.Shape); err != nil {
		return nil, nil, err
	}
	batch := bn != nil && !p.RunningStats
	count := pixelCount(lens)
	var mean32, inv32 []float32
	var inv []float64
	if bn != nil {
		p.use(bn)
		mean32, inv32, inv = make([]float32, 2*n), make([]float32, 2*n), make([]float64, 2*n)
		if batch {
			if count == 0 {
				return nil, nil, fmt.Errorf("scnn: %s: no valid pixels in the batch", bn.Gamma.Name)
			}
			mean, vr := make([]float64, n), make([]float64, n)
			for s, ns := range lens {
				w := float64(ns)
				for q := s * l * n; q < (s*l+ns)*n; q++ {
					mean[q%n] += w * float64(x.Data[q])
				}
			}
			for c := range mean {
				mean[c] /= count
			}
			for s, ns := range lens {
				w := float64(ns)
				for q := s * l * n; q < (s*l+ns)*n; q++ {
					d := float64(x.Data[q]) - mean[q%n]
					vr[q%n] += w * d * d
				}
			}
			bn.Updates.Value[0]++
			for k := 0; k < 2*n; k++ {
				c := k % n
				v := vr[c] / count
				bn.updateRunning(k, mean[c], v, count)
				inv[k] = 1 / math.Sqrt(v+bn.Eps)
				mean32[k], inv32[k] = float32(mean[c]), float32(inv[k])
			}
		} else {
			mean32, inv32 = bn.inferenceStats()
			for k := range inv {
				inv[k] = 1 / math.Sqrt(float64(bn.RunVar.Value[k])+bn.Eps)
			}
		}
	}
	fillCartesianHalves(row, col, x, bn, mean32, inv32, relu)
	if bn == nil && !p.wants(x) {
		return row, col, nil // nothing upstream learns from the halves
	}
	p.record(row, func() error {
		drow, dcol := p.gradOf(row), p.gradOf(col)
		if drow == nil && dcol == nil {
			return nil
		}
		want := p.wants(x)
		var dx *Tensor
		if want {
			dx = p.zerosLike(x)
		}
		for half, d := range []*Tensor{drow, dcol} {
			if d == nil {
				continue
			}
			out := []*Tensor{row, col}[half]
			// The gradient of a valid position, 0 where the ReLU was off.
			g := func(q int) float64 {
				if relu && !(out.Data[q] > 0) {
					return 0
				}
				return float64(d.Data[q])
			}
			for c := 0; c < n; c++ {
				k := half*n + c
				var s1, s2 float64 // sum dy, sum dy xhat over the valid pixels
				if bn != nil {
					for s, ns := range lens {
						for i := 0; i < ns; i++ {
							q := (s*l+i)*n + c
							gq := g(q)
							s1 += gq
							s2 += gq * float64(xhat(x.Data[q], mean32[k], inv32[k]))
						}
					}
					bn.Gamma.Grad[k] += float32(s2)
					bn.Beta.Grad[k] += float32(s1)
				}
				if !want {
					continue
				}
				scale := 1.0
				if bn != nil {
					scale = float64(bn.Gamma.Value[k]) * inv[k]
				}
				for s, ns := range lens {
					w := float64(ns)
					for i := 0; i < ns; i++ {
						q := (s*l+i)*n + c
						v := g(q)
						if batch {
							v -= w * (s1 + float64(xhat(x.Data[q], mean32[k], inv32[k]))*s2) / count
						}
						dx.Data[q] += float32(scale * v)
					}
				}
			}
		}
		if want {
			p.addGrad(x, dx)
		}
		return nil
	})
	p.tape.wanted[col] = true
	return row, col, nil
}

// fillCartesianHalves writes the halves of CartesianHalves with the
// batchnorm statistics mean32, inv32 (unused when bn is nil).
func fillCartesianHalves(row, col, x *Tensor, bn *BatchNorm2D, mean32, inv32 []float32, relu bool) {
	n := x.Shape[2]
	for k, half := range []*Tensor{row, col} {
		for q, v := range x.Data {
			c := q%n + k*n
			if bn != nil {
				v = bn.Gamma.Value[c]*xhat(v, mean32[c], inv32[c]) + bn.Beta.Value[c]
			}
			if relu && !(v > 0) {
				v = 0
			}
			half.Data[q] = v
		}
	}
}

// outerSumHalvesTrain is OuterSumHalves in a training pass. With a[i] =
// A[i] + c/2 the map's valid pixels are a[i] + a[j]; their mean is
// 2 sum_b n_b sum_i a[i] / N and, with e = a - mean/2, their variance
// sum_b (2 n_b sum_i e[i]^2 + 2 (sum_i e[i])^2) / N (N = sum_b n_b^2).
// The backward step takes the halves' gradients (row and column sums of
// the map's gradient dy over the valid pixels) through the batchnorm:
//
//	da[i] = g (drow[i] + dcol[i]) - g (2 n_b S1 + inv S2 2 (n_b e[i] + sum_j e[j])) / N
//
// with g = gamma inv, S1 = sum dy = sum_i drow[i] and S2 = sum dy xhat =
// inv (sum_i drow[i] e[i] + sum_j dcol[j] e[j]); then dA = da, dc =
// sum_i da[i] / 2, dS = x^T dA and dx = dA S^T. The halves are one map's:
// their gradients come from convolutions of row[i] + col[j] (a
// CartesianMap with both), so that sum_i drow[i] = sum_j dcol[j] = S1.
func outerSumHalvesTrain(p *Pass, x *Tensor, lengths []int, sg *SymGenConv, bn *BatchNorm2D) (row, col *Tensor, err error) {
	b, l, f := x.Shape[0], x.Shape[1], sg.F
	lens, err := halfLengths(lengths, b, l)
	if err != nil {
		return nil, nil, err
	}
	shape := []int{b, l, f}
	if row, err = p.newTensor(RowMajor, shape); err != nil {
		return nil, nil, err
	}
	if col, err = p.newTensor(RowMajor, shape); err != nil {
		return nil, nil, err
	}
	if bn != nil {
		p.use(bn)
	}
	a := make([]float32, b*l*f) // A = x S
	kern.Gemm(false, false, b*l, f, sg.N, 1, x.Data, sg.N, sg.S.Value, f, 0, a, f)
	batch := bn != nil && !p.RunningStats
	count := pixelCount(lens)
	gain, shift := make([]float64, f), make([]float64, f)
	mean, inv := make([]float64, f), make([]float64, f) // of the map
	cb := sg.B.Value
	if bn != nil {
		if batch {
			if count == 0 {
				return nil, nil, fmt.Errorf("scnn: %s: no valid pixels in the batch", bn.Gamma.Name)
			}
			for s, ns := range lens {
				w := float64(ns)
				for q := s * l * f; q < (s*l+ns)*f; q++ {
					mean[q%f] += w * (float64(a[q]) + float64(cb[q%f])/2)
				}
			}
			for o := range mean {
				mean[o] = 2 * mean[o] / count
			}
			vr := make([]float64, f)
			sum := make([]float64, f)
			for s, ns := range lens {
				w := float64(ns)
				clear(sum)
				for q := s * l * f; q < (s*l+ns)*f; q++ {
					o := q % f
					e := float64(a[q]) + float64(cb[o])/2 - mean[o]/2
					vr[o] += 2 * w * e * e
					sum[o] += e
				}
				for o, e := range sum {
					vr[o] += 2 * e * e
				}
			}
			bn.Updates.Value[0]++
			for o := range vr {
				v := vr[o] / count
				bn.updateRunning(o, mean[o], v, count)
				inv[o] = 1 / math.Sqrt(v+bn.Eps)
			}
		} else {
			for o := range mean {
				mean[o] = float64(bn.RunMean.Value[o])
				inv[o] = 1 / math.Sqrt(float64(bn.RunVar.Value[o])+bn.Eps)
			}
		}
	}
	for o := range gain {
		gain[o], shift[o] = 1, float64(cb[o])
		if bn != nil {
			g := float64(bn.Gamma.Value[o]) * inv[o]
			gain[o] = g
			shift[o] = g*(float64(cb[o])-mean[o]) + float64(bn.Beta.Value[o])
		}
	}
	for q, v := range a {
		o := q % f
		row.Data[q] = float32(gain[o] * float64(v))
		col.Data[q] = float32(gain[o]*float64(v) + shift[o])
	}
	p.use(sg)
	p.record(row, func() error {
		drow, dcol := p.gradOf(row), p.gradOf(col)
		if drow == nil && dcol == nil {
			return nil
		}
		at := func(d *Tensor, q int) float64 {
			if d == nil {
				return 0
			}
			return float64(d.Data[q])
		}
		da := make([]float32, b*l*f)
		dc := make([]float64, f)
		e := func(q int) float64 { return float64(a[q]) + float64(cb[q%f])/2 - mean[q%f]/2 }
		if bn == nil {
			for s, ns := range lens {
				for q := s * l * f; q < (s*l+ns)*f; q++ {
					da[q] = float32(at(drow, q) + at(dcol, q))
					dc[q%f] += at(dcol, q)
				}
			}
		} else {
			s1, s2 := make([]float64, f), make([]float64, f)
			for s, ns := range lens {
				for q := s * l * f; q < (s*l+ns)*f; q++ {
					o := q % f
					s1[o] += at(drow, q)
					s2[o] += (at(drow, q) + at(dcol, q)) * e(q)
				}
			}
			for o := range s2 {
				s2[o] *= inv[o]
				bn.Gamma.Grad[o] += float32(s2[o])
				bn.Beta.Grad[o] += float32(s1[o])
			}
			es := make([]float64, f)
			for s, ns := range lens {
				w := float64(ns)
				if batch {
					clear(es)
					for q := s * l * f; q < (s*l+ns)*f; q++ {
						es[q%f] += e(q)
					}
				}
				for q := s * l * f; q < (s*l+ns)*f; q++ {
					o := q % f
					v := at(drow, q) + at(dcol, q)
					if batch {
						v -= (2*w*s1[o] + inv[o]*s2[o]*2*(w*e(q)+es[o])) / count
					}
					v *= gain[o]
					da[q] = float32(v)
					dc[o] += v / 2
				}
			}
		}
		for o, v := range dc {
			sg.B.Grad[o] += float32(v)
		}
		kern.Gemm(true, false, sg.N, f, b*l, 1, x.Data, sg.N, da, f, 1, sg.S.Grad, f)
		if p.wants(x) {
			dx := p.zerosLike(x)
			kern.Gemm(false, true, b*l, sg.N, f, 1, da, f, sg.S.Value, f, 0, dx.Data, sg.N)
			p.addGrad(x, dx)
		}
		return nil
	})
	p.tape.wanted[col] = true
	return row, col, nil
}

// recordCartesian records the backward step of forwardCartesian's output y
// in a training pass.
func recordCartesian(p *Pass, m CartesianMap, convs []cartesianConv, y *Tensor, lens []int) {
	b, l := m.Row.Shape[0], m.Row.Shape[1]
	c0, nr := 0, m.Row.Shape[2]
	if m.Before != nil {
		c0 = m.Before.Shape[3]
	}
	rowCh, colCh := c0, c0+nr
	if m.Sum {
		colCh = c0
	}
	p.record(y, func() error {
		dy := p.gradOf(y)
		if dy == nil {
			return nil
		}
		couts := make([]int, len(convs))
		for i, c := range convs {
			couts[i] = c.cout
		}
		parts := []*Tensor{dy}
		if len(convs) > 1 {
			var err error
			if parts, err = splitChannels(p, dy, couts...); err != nil {
				return err
			}
		}
		var drow, dcol, dBefore *Tensor
		if p.wants(m.Row) {
			drow = p.zerosLike(m.Row)
		}
		if p.wants(m.Col) {
			dcol = p.zerosLike(m.Col)
		}
		if m.Before != nil && p.wants(m.Before) {
			dBefore = p.zerosLike(m.Before)
		}
		dAfter := make([]*Tensor, len(m.After))
		for i, t := range m.After {
			if p.wants(t) {
				dAfter[i] = p.zerosLike(t)
			}
		}
		cin := m.Channels()
		written := map[*Tensor]bool{}
		var dtmp []float32
		for ci, c := range convs {
			k, cout := c.k, c.cout
			d := parts[ci]
			dw := make([]float32, k*k*cin*cout) // the full map's kernel gradient
			// The dense parts, each with its slice of the kernel.
			dense := func(t, dt *Tensor, lo int) {
				ct := t.Shape[3]
				g := kern.ConvGeom{Packed: m.Sum, B: b, H: l, W: l, Cin: ct, Cout: cout, K: k, Workers: p.workers()}
				ws := sliceKernel(c.w, k, cin, cout, lo, lo+ct)
				u := make([]float32, len(ws))
				if dt != nil && !written[dt] {
					// The first convolution writes dt's input gradient
					// straight in (ConvBackward overwrites it), the others
					// through a scratch map (the garbage collector's: a
					// training pass would keep its own to the end).
					kern.ConvBackward(g, dt.Data, u, nil, t.Data, d.Data, ws)
					written[dt] = true
				} else if dt != nil {
					if len(dtmp) < len(dt.Data) {
						dtmp = make([]float32, len(dt.Data))
					}
					kern.ConvBackward(g, dtmp[:len(dt.Data)], u, nil, t.Data, d.Data, ws)
					addInto(p, dt.Data, dtmp[:len(dt.Data)])
				} else {
					kern.ConvWeightGrad(g, u, nil, t.Data, d.Data)
				}
				// A packed map's kernel gradient is the upper triangle's
				// U: the full map's is U[a,b] + U[b,a].
				for a := 0; a < k; a++ {
					for bb := 0; bb < k; bb++ {
						dst := dw[((a*k+bb)*cin+lo)*cout : ((a*k+bb)*cin+lo+ct)*cout]
						src := u[(a*k+bb)*ct*cout : (a*k+bb+1)*ct*cout]
						for i, v := range src {
							dst[i] += v
						}
						if m.Sum {
							src = u[(bb*k+a)*ct*cout : (bb*k+a+1)*ct*cout]
							for i, v := range src {
								dst[i] += v
							}
						}
					}
				}
			}
			if m.Before != nil {
				dense(m.Before, dBefore, 0)
			}
			ch := cin - afterChannels(m)
			for i, t := range m.After {
				dense(t, dAfter[i], ch)
				ch += t.Shape[3]
			}
			db := make([]float64, cout)
			halfGrads(p, m, lens, d, c.w, k, cin, cout, rowCh, colCh, dw, db, drow, dcol)
			c.addGrads(dw, db)
		}
		if drow != nil {
			p.addGrad(m.Row, drow)
		}
		if dcol != nil {
			p.addGrad(m.Col, dcol)
		}
		if dBefore != nil {
			p.addGrad(m.Before, dBefore)
		}
		for i, t := range m.After {
			if dAfter[i] != nil {
				p.addGrad(t, dAfter[i])
			}
		}
		return nil
	})
}

// one is AxpyRowsF64's input for a plain sum of a row.
var one = [1]float32{1}

// halfGrads adds the product part's kernel gradient (full map, kernel
// layout (K, K, cin, cout)) to dw, the bias gradient to db, and the
// halves' gradients to drow and dcol (nil: not wanted), from one
// convolution's output gradient d (B, L, L, cout), row-major or packed
// (m.Sum), following the file comment. Samples go to the workers; each
// sums its own kernel and bias gradients, added in worker order.
func halfGrads(p *Pass, m CartesianMap, lens []int, d *Tensor, w []float32, k, cin, cout, rowCh, colCh int, dw []float32, db []float64, drow, dcol *Tensor) {
	b, l := m.Row.Shape[0], m.Row.Shape[1]
	nr, nc := m.Row.Shape[2], m.Col.Shape[2]
	h, kc := k/2, k*cout
	// wT[a][(c*cout+o)*nr + ch] = W[a, c, rowCh+ch, o] (row half), and
	// vT[c][(a*cout+o)*nc + ch] = W[a, c, colCh+ch, o] (column half).
	wT, vT := make([]float32, k*kc*nr), make([]float32, k*kc*nc)
	for a := 0; a < k; a++ {
		for c := 0; c < k; c++ {
			for o := 0; o < cout; o++ {
				for ch := 0; ch < nr; ch++ {
					wT[(a*kc+c*cout+o)*nr+ch] = w[((a*k+c)*cin+rowCh+ch)*cout+o]
				}
				for ch := 0; ch < nc; ch++ {
					vT[(c*kc+a*cout+o)*nc+ch] = w[((a*k+c)*cin+colCh+ch)*cout+o]
				}
			}
		}
	}
	workers := min(p.workers(), b)
	type acc struct {
		tr, tc []float32 // per offset: (nr x k*cout), (nc x k*cout)
		db     []float64
		full   []float32   // one sample's full gradient map (packed input)
		rs, cs []float32   // (L, k, cout)
		pre    []float64   // one row's prefix sums
		snaps  [][]float64 // column sums of the rows before x, at the x in need
		need   []bool
		run    []float64 // the running column sums
	}
	accs := make([]acc, workers)
	kern.ParallelFor(b, workers, func(wk, s int) {
		ac := &accs[wk]
		if ac.tr == nil {
			ac.tr, ac.tc = make([]float32, k*nr*kc), make([]float32, k*nc*kc)
			ac.db = make([]float64, cout)
			ac.rs = make([]float32, l*kc)
			ac.pre = make([]float64, (l+1)*cout)
			if m.Sum {
				ac.full = make([]float32, l*l*cout)
			} else {
				ac.cs = make([]float32, l*kc)
			}
		}
		n := lens[s]
		// D, this sample's full gradient map, row-major.
		var dm []float32
		if m.Sum {
			dm = ac.full
			base := s * kern.TriSize(l) * cout
			kern.Unpack(dm, d.Data[base:base+kern.TriSize(l)*cout], l, cout)
		} else {
			dm = d.Data[s*l*l*cout : (s+1)*l*l*cout]
		}
		// The ranges of the second index that offset t reads: V(m)
		// inverted, [max(0, h-t), min(l, n+h-t)).
		rng := func(t int) (lo, hi int) {
			lo = min(l, max(0, h-t)) // h-t > l on a map narrower than the kernel's reach
			return lo, max(lo, min(l, n+h-t))
		}
		// RS from each row's prefix sums.
		pre := ac.pre
		for i := 0; i < l; i++ {
			clear(pre[:cout])
			// pre[(j+1)*cout+o] = pre[j*cout+o] + float64(row[j*cout+o]).
			kern.PrefixSumsF64(pre, dm[i*l*cout:(i+1)*l*cout], l, cout)
			for o := 0; o < cout; o++ {
				ac.db[o] += pre[l*cout+o]
			}
			for c := 0; c < k; c++ {
				lo, hi := rng(c)
				for o := 0; o < cout; o++ {
					ac.rs[i*kc+c*cout+o] = float32(pre[hi*cout+o] - pre[lo*cout+o])
				}
			}
		}
		cs := ac.rs // a symmetric D has CS = RS
		if !m.Sum {
			cs = ac.cs
			// CS from the column sums of the rows before each range end.
			if ac.snaps == nil {
				ac.snaps, ac.need, ac.run = make([][]float64, l+1), make([]bool, l+1), make([]float64, l*cout)
			}
			need, run := ac.need, ac.run
			clear(need)
			clear(run)
			for a := 0; a < k; a++ {
				lo, hi := rng(a)
				need[lo], need[hi] = true, true
			}
			snap := func(x int) {
				if need[x] {
					if ac.snaps[x] == nil {
						ac.snaps[x] = make([]float64, l*cout)
					}
					copy(ac.snaps[x], run)
				}
			}
			for i := 0; i < l; i++ {
				snap(i)
				// run[q] += float64(dm[i*l*cout+q]): times 1, exact.
				kern.AxpyRowsF64(run, one[:], dm[i*l*cout:(i+1)*l*cout], l*cout)
			}
			snap(l)
			for a := 0; a < k; a++ {
				lo, hi := rng(a)
				for j := 0; j < l; j++ {
					for o := 0; o < cout; o++ {
						cs[j*kc+a*cout+o] = float32(ac.snaps[hi][j*cout+o] - ac.snaps[lo][j*cout+o])
					}
				}
			}
		}
		u := m.Row.Data[s*l*nr : (s+1)*l*nr]
		v := m.Col.Data[s*l*nc : (s+1)*l*nc]
		for t := 0; t < k; t++ {
			// Output rows i whose offset t reads a valid position p =
			// i+t-h: i in [max(0, h-t), min(l, n+h-t)).
			i0, i1 := rng(t)
			if i1 <= i0 {
				continue
			}
			p0 := i0 + t - h
			kern.Gemm(true, false, nr, kc, i1-i0, 1, u[p0*nr:], nr, ac.rs[i0*kc:], kc, 1, ac.tr[t*nr*kc:], kc)
			kern.Gemm(true, false, nc, kc, i1-i0, 1, v[p0*nc:], nc, cs[i0*kc:], kc, 1, ac.tc[t*nc*kc:], kc)
			if drow != nil {
				kern.Gemm(false, false, i1-i0, nr, kc, 1, ac.rs[i0*kc:], kc, wT[t*kc*nr:], nr, 1, drow.Data[(s*l+p0)*nr:], nr)
			}
			if dcol != nil {
				kern.Gemm(false, false, i1-i0, nc, kc, 1, cs[i0*kc:], kc, vT[t*kc*nc:], nc, 1, dcol.Data[(s*l+p0)*nc:], nc)
			}
		}
	})
	for _, ac := range accs {
		if ac.tr == nil {
			continue
		}
		for t := 0; t < k; t++ {
			for ch := 0; ch < nr; ch++ {
				for c := 0; c < k; c++ {
					for o := 0; o < cout; o++ {
						// tr[t] holds the row half at offset a = t.
						dw[((t*k+c)*cin+rowCh+ch)*cout+o] += ac.tr[(t*nr+ch)*kc+c*cout+o]
					}
				}
			}
			for ch := 0; ch < nc; ch++ {
				for a := 0; a < k; a++ {
					for o := 0; o < cout; o++ {
						// tc[t] holds the column half at offset c = t.
						dw[((a*k+t)*cin+colCh+ch)*cout+o] += ac.tc[(t*nc+ch)*kc+a*cout+o]
					}
				}
			}
		}
		for o, v := range ac.db {
			db[o] += v
		}
	}
}

// addFullGrads adds a full-map kernel gradient (K, K, Cin, Cout) and a
// bias gradient to the parameters' gradients.
func (c *Conv2D) addFullGrads(dw []float32, db []float64) {
	for i, v := range dw {
		c.W.Grad[i] += v
	}
	for o, v := range db {
		c.B.Grad[o] += float32(v)
	}
}

// addFullGrads adds a full-map kernel gradient G (K, K, Cin, Cout) and a
// bias gradient to R's and B's: dR[a,b] = G[a,b] + G[b,a] for a > b and
// dR[a,a] = G[a,a] (the paper's update rule).
func (c *SymPresConv) addFullGrads(dw []float32, db []float64) {
	c.foldGrads(dw, nil, 1)
	for o, v := range db {
		c.B.Grad[o] += float32(v)
	}
}

// foldGrads adds scale*(g[a,b] + g[b,a]) to dR[a,b] for a > b,
// scale*g[a,a] to dR[a,a] and scale*db to B's gradient. With scale 2 and
// g the upper triangle's U it is addTiedGrads (2(U + U^T) is the full
// map's gradient folded); with scale 1, a full-map gradient's fold.
// Scaling by 2 is exact, so both give the bits of the sums written out.
func (c *SymPresConv) foldGrads(g, db []float32, scale float32) {
	k, m := c.K, c.Cin*c.Cout
	for a := 0; a < k; a++ {
		for b := 0; b <= a; b++ {
			dr := c.R.Grad[lowerIndex(a, b)*m : (lowerIndex(a, b)+1)*m]
			gab := g[(a*k+b)*m : (a*k+b+1)*m]
			if a == b {
				for i := range dr {
					dr[i] += scale * gab[i]
				}
				continue
			}
			gba := g[(b*k+a)*m : (b*k+a+1)*m]
			for i := range dr {
				dr[i] += scale * (gab[i] + gba[i])
			}
		}
	}
	for f, v := range db {
		c.B.Grad[f] += scale * v
	}
}
