package potts

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
)

// Every kernel set gives the Go loops' sums bit for bit, over every tile
// width, and these equal the sums of one column and one sequence at a
// time.
func TestRowKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const l, n = 19, 13
	jt := make([]float32, l*qp)
	for k := range jt {
		if k%lanes < q {
			jt[k] = float32(r.NormFloat64())
		}
	}
	x := make([]uint8, l*n) // x[j*n+s]
	off := make([]int32, l*n)
	for j := 0; j < l; j++ {
		for s := 0; s < n; s++ {
			// A few states, repeated, as in a conserved column; state
			// q-1 at the last sequence.
			x[j*n+s] = uint8(r.IntN(3) * 7)
			if s == n-1 {
				x[j*n+s] = q - 1
			}
			off[j*n+s] = int32(j*qp + int(x[j*n+s])*lanes)
		}
	}
	e0 := make([]float64, n*lanes)
	res := make([]float64, n*lanes)
	for k := range e0 {
		e0[k] = r.NormFloat64()
		if k%lanes < q {
			res[k] = r.NormFloat64()
		}
	}
	g0 := make([]float64, l*qp)
	for k := range g0 {
		g0[k] = r.NormFloat64()
	}
	// One column and one sequence at a time; the scatter sets g, from
	// zero, where its old values are overwritten.
	wantE := append([]float64(nil), e0...)
	wantG := make([]float64, len(g0))
	for s := 0; s < n; s++ {
		for j := 0; j < l; j++ {
			o := int(off[j*n+s])
			for a := 0; a < q; a++ {
				wantE[s*lanes+a] += float64(jt[o+a])
				wantG[o+a] += res[s*lanes+a]
			}
		}
	}
	// The sequences sorted by state, stably, by column, within chunks
	// of every size: one chunk, several with a short last one, one
	// sequence each.
	for _, chunk := range []int{n, 5, 1} {
		perm := make([]int32, l*n)
		cols := make([]column, l)
		for j := range cols {
			cols[j] = newColumn(func(s int) uint8 { return x[j*n+s] }, n, perm[j*n:], chunk)
			c := &cols[j]
			if want := (n + chunk - 1) / chunk; c.chunks() != want {
				t.Fatalf("chunks of %d: %d chunks, want %d", chunk, c.chunks(), want)
			}
			for ch := range c.chunks() {
				bounds := c.bounds[ch*(q+1):][:q+1]
				if int(bounds[0]) != ch*chunk || int(bounds[q]) != min(n, (ch+1)*chunk) {
					t.Fatalf("chunks of %d: chunk %d spans %d..%d", chunk, ch, bounds[0], bounds[q])
				}
				for b := 0; b < q; b++ {
					for k := bounds[b]; k < bounds[b+1]; k++ {
						s := int(c.perm[k]) / lanes
						if x[j*n+s] != uint8(b) || s/chunk != ch || k > bounds[b] && c.perm[k-1] >= c.perm[k] {
							t.Fatalf("chunks of %d: column %d: sequence %d (state %d) at %d, among chunk %d's state %d or out of order", chunk, j, s, x[j*n+s], k, ch, b)
						}
					}
				}
			}
		}
		for _, k := range rowKernels() {
			g := append([]float64(nil), g0...)
			for ch := range cols[0].chunks() {
				for j := 0; j < l; j++ {
					k.scatter(g[j*qp:], &cols[j], ch, res)
				}
			}
			for i := range g {
				if g[i] != wantG[i] {
					t.Fatalf("%s, chunks of %d: scatter: g[%d] = %v, want %v", k.name, chunk, i, g[i], wantG[i])
				}
			}
		}
	}
	for _, k := range rowKernels() {
		for _, tw := range []int{1, 3, 4, 8, l} {
			e := append([]float64(nil), e0...)
			for j0 := 0; j0 < l; j0 += tw {
				k.gather(e, jt, off[j0*n:], n, min(tw, l-j0))
			}
			for s := 0; s < n; s++ {
				for a := 0; a < q; a++ {
					if got, want := e[s*lanes+a], wantE[s*lanes+a]; got != want {
						t.Fatalf("%s, tiles of %d: gather: sequence %d lane %d: %v, want %v", k.name, tw, s, a, got, want)
					}
				}
			}
		}
		// No rows: nothing moves.
		e := append([]float64(nil), e0...)
		k.gather(e, jt, off, 0, 4)
		k.gather(e, jt, off, n, 0)
		for i := range e {
			if e[i] != e0[i] {
				t.Fatalf("%s: an empty tile changed e[%d]", k.name, i)
			}
		}
		// No sequences: the column's rows are set to zero, and the
		// rows beyond it left alone.
		g := append([]float64(nil), g0...)
		empty := newColumn(nil, 0, nil, 4)
		k.scatter(g, &empty, 0, res)
		for i := range g {
			if want := g0[i] * b2f(i >= qp); g[i] != want {
				t.Fatalf("%s: an empty column: g[%d] = %v, want %v", k.name, i, g[i], want)
			}
		}
	}
}

// A tile reaching past the couplings is a programmer error: the kernels
// panic rather than read or write outside.
func TestTileBounds(t *testing.T) {
	for _, k := range rowKernels() {
		jt := make([]float32, qp)
		e := make([]float64, lanes)
		off := []int32{int32(qp - q + 1)}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: gather past the end did not panic", k.name)
				}
			}()
			k.gather(e, jt, off, 1, 1)
		}()
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: scatter past the residuals did not panic", k.name)
				}
			}()
			c := newColumn(func(int) uint8 { return 0 }, 2, make([]int32, 2), 4)
			k.scatter(make([]float64, qp), &c, 0, make([]float64, lanes))
		}()
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: scatter of a chunk past the column's did not panic", k.name)
				}
			}()
			c := newColumn(func(int) uint8 { return 0 }, 2, make([]int32, 2), 1)
			k.scatter(make([]float64, qp), &c, 2, make([]float64, 2*lanes))
		}()
	}
}

// f and the gradient are the same, bit for bit, on every kernel set.
func TestEvalKernelsAgree(t *testing.T) {
	a := parse(t, randomAlignment(23, 40, 3))
	defer func(g func([]float64, []float32, []int32, int, int), s func([]float64, *column, int, []float64)) {
		gatherTile, scatterColumn = g, s
	}(gatherTile, scatterColumn)
	var f0 float64
	var g0 []float64
	if len(rowKernels()) < 2 {
		t.Skip("one kernel set on this CPU")
	}
	for _, k := range rowKernels() {
		gatherTile, scatterColumn = k.gather, k.scatter
		p, _ := newProblem(a, Options{Threads: 2}.withDefaults())
		x := perturbed(p)
		g := make([]float64, len(x))
		f := p.eval(x, g)
		if g0 == nil {
			f0, g0 = f, g
			continue
		}
		if f != f0 {
			t.Errorf("%s: f %v, %s %v", k.name, f, rowKernels()[0].name, f0)
		}
		for i := range g {
			if g[i] != g0[i] {
				t.Fatalf("%s: gradient %d: %v, want %v", k.name, i, g[i], g0[i])
			}
		}
	}
}

// The tiled evaluation gives, bit for bit, the sums of a plain loop by
// column and sequence (referenceEval): the tiles, the scatter's chunks
// (the default, several with a short last one, one sequence each) and
// the kernels change the order of the memory accesses, not of any sum.
func TestEvalMatchesPlainLoops(t *testing.T) {
	a := parse(t, randomAlignment(23, 40, 4))
	for _, chunk := range []int{scatterChunk, 7, 1} {
		for _, k := range rowKernels() {
			evalMatchesPlainLoops(t, a, k, chunk)
		}
	}
}

func evalMatchesPlainLoops(t *testing.T, a *msa.Alignment, k rowKernel, chunk int) {
	t.Helper()
	defer func(g func([]float64, []float32, []int32, int, int), s func([]float64, *column, int, []float64), c int) {
		gatherTile, scatterColumn, scatterChunk = g, s, c
	}(gatherTile, scatterColumn, scatterChunk)
	gatherTile, scatterColumn, scatterChunk = k.gather, k.scatter, chunk
	p, _ := newProblem(a, Options{Threads: 3}.withDefaults())
	x := perturbed(p)
	g := make([]float64, len(x))
	f := p.eval(x, g)
	wantG := make([]float64, len(x))
	wantF := referenceEval(p, x, wantG)
	if f != wantF {
		t.Errorf("%s, chunks of %d: f = %v, the plain loops %v", k.name, chunk, f, wantF)
	}
	for i := range g {
		if g[i] != wantG[i] {
			t.Fatalf("%s, chunks of %d: gradient %d: %v, the plain loops %v", k.name, chunk, i, g[i], wantG[i])
		}
	}
	if f2 := p.eval(x, nil); f2 != f {
		t.Errorf("%s, chunks of %d: f without the gradient %v, with it %v", k.name, chunk, f2, f)
	}
}

// referenceEval is the objective and gradient as loops over columns i,
// sequences s and columns j, in the order eval documents, one sequence
// at a time, with no tiles and no vector kernels: softmaxColumn's
// definition written out.
func referenceEval(p *problem, x, g []float64) float64 {
	l := p.l
	p.unpack(x)
	clear(g)
	gt := make([]float64, l*l*qp)
	f := 0.0
	for i := 0; i < l; i++ {
		fsum := 0.0
		for s := 0; s < p.n; s++ {
			var e, r [lanes]float64
			for a := 0; a < q; a++ {
				e[a] = float64(float32(x[i*q+a]))
			}
			for j := 0; j < l; j++ {
				o := i*l*qp + j*qp + int(p.x[s*l+j])*lanes
				for a := 0; a < q; a++ {
					e[a] += float64(p.jt[o+a])
				}
			}
			mx := e[0]
			for _, v := range e[1:q] {
				mx = max(mx, v)
			}
			var u [lanes]float64
			for a := 0; a < q; a++ {
				u[a] = expNonPos(e[a] - mx)
			}
			z := sumLanes(&u)
			xi, ws := p.x[s*l+i], p.w[s]
			fsum += ws * (math.Log(z) - (e[xi] - mx))
			for a := 0; a < q; a++ {
				r[a] = u[a] * (ws / z)
			}
			r[xi] -= ws
			for a := 0; a < q; a++ {
				g[i*q+a] += r[a]
			}
			for j := 0; j < l; j++ {
				o := i*l*qp + j*qp + int(p.x[s*l+j])*lanes
				for a := 0; a < q; a++ {
					gt[o+a] += r[a]
				}
			}
		}
		f += fsum
	}
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			blk := g[p.pairOffset(i, j):][:qq]
			for a := 0; a < q; a++ {
				for b := 0; b < q; b++ {
					blk[a*q+b] = gt[(i*l+j)*qp+b*lanes+a] + gt[(j*l+i)*qp+a*lanes+b]
				}
			}
		}
	}
	nh := l * q
	reg, regJ := 0.0, 0.0
	for k, v := range x[:nh] {
		v = float64(float32(v))
		reg += p.lh * v * v
		g[k] += 2 * p.lh * v
	}
	for k, v := range x[nh:] {
		v = float64(float32(v))
		regJ += v * v
		g[nh+k] += 2 * p.lj * v
	}
	return f + reg + p.lj*regJ
}

// randomAlignment returns n random rows of l letters (amino acids, gaps
// and an X now and then), every column drawn from a few states so that
// rows repeat some states, in PSICOV format.
func randomAlignment(l, n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 1))
	const letters = "ACDEFGHIKLMNPQRSTVWY-X"
	var b strings.Builder
	for s := 0; s < n; s++ {
		for j := 0; j < l; j++ {
			b.WriteByte(letters[(j*7+r.IntN(4)*r.IntN(6))%len(letters)])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// perturbed returns the starting point of p with noise on every
// parameter.
func perturbed(p *problem) []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	x := p.initial()
	for i := range x {
		x[i] += 0.3 * r.NormFloat64()
	}
	return x
}
