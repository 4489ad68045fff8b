package scnn

import (
	"fmt"
	"math"

	"github.com/contactmap/contactmap/scnn/internal/kern"
)

// Convolutions of a self-Cartesian product without the product.
//
// The CNN's pair map is y[b,i,j] = [f(x[b,i]), g(x[b,j])] (SelfCartesian,
// then a per-channel function of each half: batchnorm, ReLU), zero outside
// the valid pixels i, j < len_b, joined with a few dense 2D channels. A
// convolution of it splits by channel: with u = f(x) the row half, v =
// g(x) the column half, h = K/2 and V(m) = {t : 0 <= m+t-h < len_b},
//
//	row term: sum_{a in V(i), c in V(j)} sum_ch u[i+a-h, ch] W[a, c, ch, o]
//	        = sum_{c in V(j)} R[i, c, o],  R[i,c,o] = sum_{a in V(i)} sum_ch u[i+a-h, ch] W[a, c, ch, o]
//	col term: sum_{a in V(i)} Q[j, a, o],  Q[j,a,o] = sum_{c in V(j)} sum_ch v[j+c-h, ch] W[a, c, n+ch, o]
//
// R and Q cost L*K*K*n*Cout multiply-adds, the terms L*L*Cout additions
// (prefix sums over the K offsets), against L*L*K*K*2n*Cout for the
// convolution of the materialised map, whose 2n channels are also the
// largest buffer of the pass. The dense channels are convolved as usual.
// The sums run in another order than the materialised map's GEMM, so the
// outputs agree to float32 rounding, not bit for bit.
//
// The SCNN's pair map, an sgConv of kernel 1 then a batchnorm, is an
// outer sum instead: y[b,i,j] = u[b,i] + v[b,j] over the same channels
// (SymGenConv: A = x S, y = A[i] + A[j] + bias; the batchnorm's affine map
// keeps the form). The same split applies with both halves on the same
// kernel channels, and the output is the symmetric map's upper triangle.

// CartesianHalves returns the two halves of the self-Cartesian product of
// x (B, L, n) after a batchnorm bn of its 2n channels (nil: none) and a
// ReLU (relu): row[b,i,c] = f_c(x[b,i,c]) and col[b,j,c] =
// f_{n+c}(x[b,j,c]), each (B, L, n), with f_k the batchnorm's map of
// channel k, computed as BatchNorm2D's (then ReLU as ReLUInPlace's), so
// that [row[b,i], col[b,j]] equals the pixel (i, j) of the materialised
// map bit for bit. An inference pass uses the running statistics; a
// training pass the batch statistics of the map's valid pixels (i, j <
// lengths[b]; nil lengths: all L), or the running ones under
// RunningStats, and records the backward step of the halves
// (cartesian_train.go). Inference ignores lengths.
func CartesianHalves(p *Pass, x *Tensor, lengths []int, bn *BatchNorm2D, relu bool) (row, col *Tensor, err error) {
	if x.Layout != RowMajor || len(x.Shape) != 3 {
		return nil, nil, fmt.Errorf("scnn: Cartesian halves: input %s %v, want row-major (B, L, n)", x.Layout, x.Shape)
	}
	n := x.Shape[2]
	if bn != nil && bn.C != 2*n {
		return nil, nil, fmt.Errorf("scnn: Cartesian halves: %s has %d channels, the product %d", bn.Gamma.Name, bn.C, 2*n)
	}
	if p.Training() {
		return cartesianHalvesTrain(p, x, lengths, bn, relu)
	}
	if row, err = p.newTensor(RowMajor, x.Shape); err != nil {
		return nil, nil, err
	}
	if col, err = p.newTensor(RowMajor, x.Shape); err != nil {
		return nil, nil, err
	}
	var mean32, inv32 []float32
	if bn != nil {
		mean32, inv32 = bn.inferenceStats()
	}
	fillCartesianHalves(row, col, x, bn, mean32, inv32, relu)
	return row, col, nil
}

// CartesianMap describes a (B, L, L, C) map by parts, for
// ForwardBranchesCartesian: its channels are Before's, then the product
// part, then After's tensors' in order. The product part is the row half
// Row[b,i] and the column half Col[b,j] of a self-Cartesian product
// (CartesianHalves) side by side, or, with Sum, their sum Row[b,i] +
// Col[b,j] over the same channels (OuterSumHalves); it is 0 outside the
// valid pixels (i, j < Lengths[b]; nil Lengths: all L). With Sum the map
// is symmetric and its dense parts are packed (ForwardBranchesSymCartesian).
type CartesianMap struct {
	Before   *Tensor   // (B, L, L, c0), or nil
	Row, Col *Tensor   // (B, L, nr) and (B, L, nc), row-major; nr == nc with Sum
	Sum      bool      // the product part is Row[i] + Col[j]
	After    []*Tensor // (B, L, L, c) each
	Lengths  []int
}

// check returns the batch, the map size and the channels of each part.
func (m CartesianMap) check() (b, l, c0, nr, nc int, err error) {
	if m.Row == nil || m.Col == nil || len(m.Row.Shape) != 3 || len(m.Col.Shape) != 3 || m.Row.Layout != RowMajor || m.Col.Layout != RowMajor {
		return 0, 0, 0, 0, 0, fmt.Errorf("scnn: Cartesian map: want row-major (B, L, n) halves")
	}
	b, l, nr, nc = m.Row.Shape[0], m.Row.Shape[1], m.Row.Shape[2], m.Col.Shape[2]
	if m.Col.Shape[0] != b || m.Col.Shape[1] != l || m.Sum && nr != nc {
		return 0, 0, 0, 0, 0, fmt.Errorf("scnn: Cartesian map: halves %v and %v", m.Row.Shape, m.Col.Shape)
	}
	layout := RowMajor
	if m.Sum {
		layout = Packed
	}
	dense := func(t *Tensor) error {
		if t.Layout != layout || len(t.Shape) != 4 || t.Shape[0] != b || t.Shape[1] != l || t.Shape[2] != l {
			return fmt.Errorf("scnn: Cartesian map: dense part %s %v, want %s (%d, %d, %d, C)", t.Layout, t.Shape, layout, b, l, l)
		}
		return nil
	}
	if m.Before != nil {
		if err := dense(m.Before); err != nil {
			return 0, 0, 0, 0, 0, err
		}
		c0 = m.Before.Shape[3]
	}
	for _, t := range m.After {
		if err := dense(t); err != nil {
			return 0, 0, 0, 0, 0, err
		}
	}
	if m.Lengths != nil {
		if len(m.Lengths) != b {
			return 0, 0, 0, 0, 0, fmt.Errorf("scnn: Cartesian map: %d lengths for a batch of %d", len(m.Lengths), b)
		}
		for s, n := range m.Lengths {
			if n < 0 || n > l {
				return 0, 0, 0, 0, 0, fmt.Errorf("scnn: Cartesian map: length %d of sample %d outside 0..%d", n, s, l)
			}
		}
	}
	return b, l, c0, nr, nc, nil
}

// Channels is the width of the map m describes.
func (m CartesianMap) Channels() int {
	c := m.Row.Shape[2] + m.Col.Shape[2]
	if m.Sum {
		c = m.Row.Shape[2]
	}
	if m.Before != nil {
		c += m.Before.Shape[3]
	}
	for _, t := range m.After {
		c += t.Shape[3]
	}
	return c
}

// ForwardBranchesCartesian is ForwardBranches(p, x, convs...) for x the
// map m describes, computed from its parts: the outputs equal those of
// the materialised map up to float32 rounding, at every pixel (the padded
// ones of a batch too, where the product's channels are 0 and the dense
// ones are as given). In a training pass its backward step gives the
// gradients of the kernels, biases, halves and dense parts without the
// map (cartesian_train.go).
func ForwardBranchesCartesian(p *Pass, m CartesianMap, convs ...*Conv2D) (*Tensor, error) {
	if m.Sum {
		return nil, fmt.Errorf("scnn: ForwardBranchesCartesian of an outer-sum map (ForwardBranchesSymCartesian)")
	}
	cs := make([]cartesianConv, len(convs))
	for i, c := range convs {
		cs[i] = cartesianConv{c, c.K, c.Cin, c.Cout, c.W.Value, c.B.Value, c.W.Name, c.addFullGrads}
	}
	return forwardCartesian(p, m, cs)
}

// ForwardBranchesSymCartesian is ForwardBranches(p, x, convs...) of
// spConvs for x the symmetric outer-sum map m describes (m.Sum, packed
// dense parts): the packed outputs equal those of the materialised map up
// to float32 rounding, at every stored pixel; its backward step as
// ForwardBranchesCartesian's.
func ForwardBranchesSymCartesian(p *Pass, m CartesianMap, convs ...*SymPresConv) (*Tensor, error) {
	if !m.Sum {
		return nil, fmt.Errorf("scnn: ForwardBranchesSymCartesian of a map that is not an outer sum")
	}
	cs := make([]cartesianConv, len(convs))
	for i, c := range convs {
		cs[i] = cartesianConv{c, c.K, c.Cin, c.Cout, c.Kernel(), c.B.Value, c.R.Name, c.addFullGrads}
	}
	return forwardCartesian(p, m, cs)
}

// cartesianConv is a convolution's full kernel (K, K, Cin, Cout) and bias,
// and how a full-map kernel gradient reaches its parameters.
type cartesianConv struct {
	layer        Layer
	k, cin, cout int
	w, bias      []float32
	name         string
	addGrads     func(dw []float32, db []float64)
}

func forwardCartesian(p *Pass, m CartesianMap, convs []cartesianConv) (*Tensor, error) {
	if len(convs) == 0 {
		return nil, fmt.Errorf("scnn: Cartesian convolution of no convolution")
	}
	b, l, c0, nr, _, err := m.check()
	if err != nil {
		return nil, err
	}
	cin := m.Channels()
	total := 0
	for _, c := range convs {
		if c.cin != cin {
			return nil, fmt.Errorf("scnn: %s: %d input channels, the Cartesian map has %d", c.name, c.cin, cin)
		}
		p.use(c.layer)
		total += c.cout
	}
	layout, pixels := RowMajor, l*l
	if m.Sum {
		layout, pixels = Packed, kern.TriSize(l)
	}
	y, err := p.newTensor(layout, []int{b, l, l, total})
	if err != nil {
		return nil, err
	}
	lengths, err := halfLengths(m.Lengths, b, l) // checked by m.check
	if err != nil {
		return nil, err
	}
	// The kernel channels of the row and column halves.
	rowCh, colCh := c0, c0+nr
	if m.Sum {
		colCh = c0
	}
	off := 0
	var scratch []float32
	for _, c := range convs {
		k, cout, w := c.k, c.cout, c.w
		// The dense parts: Before into y with the bias, each After tensor
		// into a scratch map added to y.
		g := kern.ConvGeom{Packed: m.Sum, B: b, H: l, W: l, K: k, Cout: cout, Workers: p.workers()}
		if m.Before != nil {
			g.Cin = c0
			kern.ConvForwardStrided(g, y.Data, total, off, m.Before.Data, sliceKernel(w, k, cin, cout, 0, c0), c.bias)
		} else {
			forChunks(p, b*pixels, func(_, lo, hi int) {
				for q := lo; q < hi; q++ {
					copy(y.Data[q*total+off:q*total+off+cout], c.bias)
				}
			})
		}
		ch := m.Channels() - afterChannels(m)
		for _, t := range m.After {
			ct := t.Shape[3]
			g.Cin = ct
			var tmp []float32
			var tt *Tensor
			if p.Training() {
				// A training pass keeps what it allocates to its end:
				// the scratch map is the garbage collector's.
				if len(scratch) < b*pixels*cout {
					scratch = make([]float32, b*pixels*cout)
				}
				tmp = scratch[:b*pixels*cout]
			} else {
				var err error
				if tt, err = p.newTensor(layout, []int{b, l, l, cout}); err != nil {
					return nil, err
				}
				tmp = tt.Data
			}
			kern.ConvForward(g, tmp, t.Data, sliceKernel(w, k, cin, cout, ch, ch+ct), nil)
			forChunks(p, b*pixels, func(_, lo, hi int) {
				// y[q*total+off : +cout] += tmp[q*cout : +cout] for q in [lo, hi)
				kern.AddRuns(y.Data[lo*total+off:], tmp[lo*cout:], cout, hi-lo, total, cout)
			})
			p.Release(tt)
			ch += ct
		}
		cartesianTerms(p, y.Data, total, off, m, lengths, w, k, cin, cout, rowCh, colCh)
		off += cout
	}
	if p.Training() {
		recordCartesian(p, m, convs, y, lengths)
	}
	return y, nil
}

// afterChannels is the width of m's After parts.
func afterChannels(m CartesianMap) int {
	c := 0
	for _, t := range m.After {
		c += t.Shape[3]
	}
	return c
}

// sliceKernel copies the input channels [lo, hi) of a (K, K, Cin, Cout)
// kernel into a (K, K, hi-lo, Cout) one.
func sliceKernel(w []float32, k, cin, cout, lo, hi int) []float32 {
	out := make([]float32, k*k*(hi-lo)*cout)
	for t := 0; t < k*k; t++ {
		copy(out[t*(hi-lo)*cout:(t+1)*(hi-lo)*cout], w[(t*cin+lo)*cout:(t*cin+hi)*cout])
	}
	return out
}

// validRange is V(m) of the file comment as [lo, hi): the kernel offsets
// t with 0 <= m+t-h < n (empty, lo == hi, for a padded position far from
// the valid ones).
func validRange(m, h, k, n int) (lo, hi int) {
	lo, hi = max(0, h-m), min(k, n-m+h)
	return lo, max(lo, hi)
}

// cartesianTerms adds the row and column terms of one convolution (kernel
// w, (K, K, cin, cout); the row half on its channels from rowCh, the
// column half from colCh) to y's channels off..off+cout, every pixel of a
// row-major y, the upper triangle of a packed one (m.Sum).
func cartesianTerms(p *Pass, y []float32, ldy, off int, m CartesianMap, lengths []int, w []float32, k, cin, cout, rowCh, colCh int) {
	b, l := m.Row.Shape[0], m.Row.Shape[1]
	nr, nc := m.Row.Shape[2], m.Col.Shape[2]
	h := k / 2
	kc := k * cout
	// The kernel's slices by offset: wr[a] (nr x k*cout) holds
	// W[a, c, rowCh+ch, o] at [ch, c*cout+o]; wc[c] (nc x k*cout) holds
	// W[a, c, colCh+ch, o] at [ch, a*cout+o].
	wr, wc := make([]float32, k*nr*kc), make([]float32, k*nc*kc)
	for a := 0; a < k; a++ {
		for c := 0; c < k; c++ {
			for ch := 0; ch < nr; ch++ {
				copy(wr[(a*nr+ch)*kc+c*cout:(a*nr+ch)*kc+(c+1)*cout], w[((a*k+c)*cin+rowCh+ch)*cout:])
			}
			for ch := 0; ch < nc; ch++ {
				copy(wc[(c*nc+ch)*kc+a*cout:(c*nc+ch)*kc+(a+1)*cout], w[((a*k+c)*cin+colCh+ch)*cout:])
			}
		}
	}
	// R and Q of one sample, (L, k, cout) each, and their prefix sums over
	// the second kernel offset: pr[(i*(k+1)+e)*cout+o] = sum_{c < e}
	// R[i, c, o], and pq likewise over a for Q.
	rq := make([]float32, 2*l*kc)
	pr := make([]float64, l*(k+1)*cout)
	pq := make([]float64, l*(k+1)*cout)
	for s := 0; s < b; s++ {
		n := lengths[s]
		u := m.Row.Data[s*l*nr : (s+1)*l*nr]
		v := m.Col.Data[s*l*nc : (s+1)*l*nc]
		clear(rq)
		// R[i] += u[i+t-h] wr[t] and Q[j] += v[j+t-h] wc[t] over the
		// offsets t that read a valid position: one GEMM per offset and
		// half, the row half on one worker, the column half on another.
		kern.ParallelFor(2, p.workers(), func(_, half int) {
			x, nx, wt, dst := u, nr, wr, rq[:l*kc]
			if half == 1 {
				x, nx, wt, dst = v, nc, wc, rq[l*kc:]
			}
			for t := 0; t < k; t++ {
				i0, i1 := max(0, h-t), min(l, n+h-t)
				if i1 <= i0 {
					continue
				}
				kern.Gemm(false, false, i1-i0, kc, nx, 1, x[(i0+t-h)*nx:], nx, wt[t*nx*kc:], kc, 1, dst[i0*kc:], kc)
			}
		})
		kern.ParallelFor(l, p.workers(), func(_, i int) {
			prefix32(pr[i*(k+1)*cout:(i+1)*(k+1)*cout], rq[i*kc:(i+1)*kc], k, cout)
			prefix32(pq[i*(k+1)*cout:(i+1)*(k+1)*cout], rq[(l+i)*kc:(l+i+1)*kc], k, cout)
		})
		// The column terms of every j for each kernel range [alo, ahi) of
		// the rows: colT[j*cout+o] = pq[j, ahi, o] - pq[j, alo, o]. Rows
		// share few ranges (the whole kernel away from the ends).
		colTs := map[[2]int][]float64{}
		for i := 0; i < l; i++ {
			alo, ahi := validRange(i, h, k, n)
			if colTs[[2]int{alo, ahi}] != nil {
				continue
			}
			colT := make([]float64, l*cout)
			for j := 0; j < l; j++ {
				pqj := pq[j*(k+1)*cout : (j+1)*(k+1)*cout]
				for o := range cout {
					colT[j*cout+o] = pqj[ahi*cout+o] - pqj[alo*cout+o]
				}
			}
			colTs[[2]int{alo, ahi}] = colT
		}
		// The columns j whose kernel range is whole, [0, k): there the
		// row term is the same for every j.
		jlo, jhi := h, max(h, n-h)
		kern.ParallelFor(l, p.workers(), func(_, i int) {
			base, j0 := (s*l+i)*l, 0
			if m.Sum { // the upper triangle, packed
				base, j0 = s*kern.TriSize(l)+kern.Tri(l, i, i)-i, i
			}
			alo, ahi := validRange(i, h, k, n)
			colT := colTs[[2]int{alo, ahi}]
			pri := pr[i*(k+1)*cout : (i+1)*(k+1)*cout]
			edge := func(j int) {
				dst := y[(base+j)*ldy+off : (base+j)*ldy+off+cout]
				clo, chi := validRange(j, h, k, n)
				for o := range dst {
					rowT := pri[chi*cout+o] - pri[clo*cout+o]
					dst[o] += float32(rowT + colT[j*cout+o])
				}
			}
			a, e := max(j0, jlo), jhi
			if a >= e {
				for j := j0; j < l; j++ {
					edge(j)
				}
				return
			}
			for j := j0; j < a; j++ {
				edge(j)
			}
			rowT := make([]float64, cout)
			for o := range rowT {
				rowT[o] = pri[k*cout+o] - pri[o]
			}
			// dst[j] += float32(rowT + colT[j]) for j in [a, e)
			kern.CartesianAdd(y[(base+a)*ldy+off:], ldy, rowT, colT[a*cout:], e-a, cout)
			for j := e; j < l; j++ {
				edge(j)
			}
		})
	}
}

// prefix32 writes the prefix sums over the first index of r (k x cout)
// to dst ((k+1) x cout), in float64: dst[e] = sum_{t < e} r[t].
func prefix32(dst []float64, r []float32, k, cout int) {
	clear(dst[:cout])
	for e := 1; e <= k; e++ {
		for o := 0; o < cout; o++ {
			dst[e*cout+o] = dst[(e-1)*cout+o] + float64(r[(e-1)*cout+o])
		}
	}
}

// OuterSumHalves returns the halves of the outer sum an sgConv of kernel
// 1 (sg) makes of x (B, L, n), then a batchnorm (nil: none): row[b,i] and
// col[b,j], each (B, L, F), with row[b,i] + col[b,j] the pixel (i, j) of
// the materialised map to float32 rounding. With A = x S, bias c and the
// batchnorm's gain g = gamma/sqrt(var+eps),
//
//	row[i] = g A[i],   col[j] = g (A[j] + c - mean) + beta.
//
// The statistics are the running ones in an inference pass (which
// ignores lengths), the batch's valid pixels' in a training pass (as
// CartesianHalves), whose backward step reaches S, the sgConv's bias, the
// batchnorm and x.
func OuterSumHalves(p *Pass, x *Tensor, lengths []int, sg *SymGenConv, bn *BatchNorm2D) (row, col *Tensor, err error) {
	if sg.K != 1 {
		return nil, nil, fmt.Errorf("scnn: %s: outer-sum halves of an sgConv of kernel %d (only 1)", sg.S.Name, sg.K)
	}
	if x.Layout != RowMajor || len(x.Shape) != 3 || x.Shape[2] != sg.N {
		return nil, nil, fmt.Errorf("scnn: %s: input %s %v, want row-major (B, L, %d)", sg.S.Name, x.Layout, x.Shape, sg.N)
	}
	if bn != nil && bn.C != sg.F {
		return nil, nil, fmt.Errorf("scnn: outer-sum halves: %s has %d channels, %s %d", bn.Gamma.Name, bn.C, sg.S.Name, sg.F)
	}
	if p.Training() {
		return outerSumHalvesTrain(p, x, lengths, sg, bn)
	}
	p.use(sg)
	b, l, f := x.Shape[0], x.Shape[1], sg.F
	shape := []int{b, l, f}
	if row, err = p.newTensor(RowMajor, shape); err != nil {
		return nil, nil, err
	}
	if col, err = p.newTensor(RowMajor, shape); err != nil {
		return nil, nil, err
	}
	kern.Gemm(false, false, b*l, f, sg.N, 1, x.Data, sg.N, sg.S.Value, f, 0, row.Data, f)
	gain, shift := make([]float64, f), make([]float64, f)
	for o := range gain {
		gain[o], shift[o] = 1, float64(sg.B.Value[o])
		if bn != nil {
			g := float64(bn.Gamma.Value[o]) / math.Sqrt(float64(bn.RunVar.Value[o])+bn.Eps)
			gain[o] = g
			shift[o] = g*(float64(sg.B.Value[o])-float64(bn.RunMean.Value[o])) + float64(bn.Beta.Value[o])
		}
	}
	for q, a := range row.Data {
		o := q % f
		row.Data[q] = float32(gain[o] * float64(a))
		col.Data[q] = float32(gain[o]*float64(a) + shift[o])
	}
	return row, col, nil
}
