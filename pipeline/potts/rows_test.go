package potts

import (
	"math/rand/v2"
	"testing"
)

// Every kernel set gives the Go loops' sums bit for bit, and leaves the
// rest of g alone.
func TestRowKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const l = 37
	jt := make([]float32, l*l*qp)
	for k := range jt {
		jt[k] = float32(r.NormFloat64())
	}
	off := make([]int32, l)
	for j := range off {
		off[j] = int32(j*qp + r.IntN(q)*lanes)
	}
	var e0, res [lanes]float64
	for a := 0; a < q; a++ {
		e0[a] = r.NormFloat64()
		res[a] = r.NormFloat64()
	}
	g0 := make([]float64, l*qp)
	for k := range g0 {
		g0[k] = r.NormFloat64()
	}
	want := e0
	gatherRowsGo(&want, jt, off)
	wantG := append([]float64(nil), g0...)
	scatterRowsGo(wantG, off, &res)
	for _, k := range rowKernels() {
		for _, n := range []int{0, 1, l} {
			e := e0
			k.gather(&e, jt, off[:n])
			w := e0
			gatherRowsGo(&w, jt, off[:n])
			if [q]float64(e[:q]) != [q]float64(w[:q]) {
				t.Errorf("%s: gather over %d rows: %v, want %v", k.name, n, e[:q], w[:q])
			}
		}
		g := append([]float64(nil), g0...)
		k.scatter(g, off, &res)
		for i := range g {
			if g[i] != wantG[i] {
				t.Fatalf("%s: scatter: g[%d] = %v, want %v", k.name, i, g[i], wantG[i])
			}
		}
	}
}

// f and the gradient are the same, bit for bit, on every kernel set.
func TestEvalKernelsAgree(t *testing.T) {
	a := parse(t, tiny)
	defer func(g func(*[lanes]float64, []float32, []int32), s func([]float64, []int32, *[lanes]float64)) {
		gatherRows, scatterRows = g, s
	}(gatherRows, scatterRows)
	var f0 float64
	var g0 []float64
	for _, k := range rowKernels() {
		gatherRows, scatterRows = k.gather, k.scatter
		p, _ := newProblem(a, Options{Threads: 2}.withDefaults())
		r := rand.New(rand.NewPCG(1, 2))
		x := p.initial()
		for i := range x {
			x[i] += 0.3 * r.NormFloat64()
		}
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
