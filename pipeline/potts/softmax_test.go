package potts

import (
	"math"
	"math/rand/v2"
	"testing"
)

// expNonPos is within 2 ulp of math.Exp on [-708, 0], exact at 0, and 0
// below -708.
func TestExpNonPos(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := []float64{0, math.Copysign(0, -1), -1e-300, -5e-324, -1e-17, -0.5 * math.Ln2, -math.Ln2, -1, -20, -700, -707.9999, -708}
	for range 200000 {
		xs = append(xs, -r.ExpFloat64()*30, -r.Float64()*708, -r.Float64()*1e-6)
	}
	worst := 0.0
	for _, x := range xs {
		got, want := expNonPos(x), math.Exp(x)
		ulp := math.Nextafter(want, math.Inf(1)) - want
		if d := math.Abs(got-want) / ulp; d > worst {
			worst = d
		}
		if math.Abs(got-want) > 2*ulp {
			t.Fatalf("expNonPos(%v) = %v, math.Exp %v: %.1f ulp", x, got, want, math.Abs(got-want)/ulp)
		}
	}
	t.Logf("largest error %.2f ulp over %d points", worst, len(xs))
	if expNonPos(0) != 1 {
		t.Errorf("expNonPos(0) = %v", expNonPos(0))
	}
	for _, x := range []float64{-708.0001, -745, -1e300, math.Inf(-1)} {
		if v := expNonPos(x); v != 0 {
			t.Errorf("expNonPos(%v) = %v, want 0", x, v)
		}
	}
}

// Every kernel set's softmaxColumn gives the Go loop's bits, and its
// result is the definition's: conditionals that sum to 1, the residual
// their difference from the observed state, times the weight.
func TestSoftmaxKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 37
	eb0 := make([]float64, n*lanes)
	xs := make([]uint8, n)
	ws := make([]float64, n)
	for s := 0; s < n; s++ {
		scale := []float64{1e-3, 1, 30, 400}[s%4]
		for a := 0; a < q; a++ {
			eb0[s*lanes+a] = scale * r.NormFloat64()
		}
		if s%5 == 0 { // ties
			eb0[s*lanes+3], eb0[s*lanes+7] = 0, math.Copysign(0, -1)
		}
		// Padding lanes are undefined: junk.
		eb0[s*lanes+q], eb0[s*lanes+q+1], eb0[s*lanes+q+2] = 1e300, math.NaN(), math.Inf(1)
		xs[s] = uint8(r.IntN(q))
		ws[s] = r.Float64()
	}
	xs[0], xs[1] = 0, q-1
	// A maximum of zeros of both signs, in different vectors and either
	// order, the observed state one of them.
	for k, s := range []int{2, 3, 4} {
		for a := 0; a < q; a++ {
			eb0[s*lanes+a] = -1 - float64(a)
		}
		z := []int{3, 17, 9}[k]
		eb0[s*lanes+z], eb0[s*lanes+20-z/2] = math.Copysign(0, float64(k%2*2-1)), math.Copysign(0, float64(1-k%2*2))
		xs[s] = uint8(z)
	}
	var want []float64
	var wantZD []float64
	var wantGH [lanes]float64
	if len(softmaxKernels()) < 2 {
		t.Log("one kernel set on this CPU: only the definition is checked")
	}
	for _, k := range softmaxKernels() {
		eb := append([]float64(nil), eb0...)
		zd := make([]float64, 2*n)
		var gh [lanes]float64
		gh[2] = 0.25
		k.softmax(eb, xs, ws, zd, &gh)
		if want == nil {
			want, wantZD, wantGH = eb, zd, gh
			// The definition.
			for s := 0; s < n; s++ {
				sum, resid := 0.0, 0.0
				for a := 0; a < q; a++ {
					p := (eb[s*lanes+a] + ws[s]*b2f(a == int(xs[s]))) / ws[s]
					sum += p
					resid += eb[s*lanes+a]
				}
				if math.Abs(sum-1) > 1e-12 || math.Abs(resid) > 1e-12 {
					t.Fatalf("sequence %d: conditionals sum to %v, residuals to %v", s, sum, resid)
				}
				for a := q; a < lanes; a++ {
					if eb[s*lanes+a] != 0 {
						t.Fatalf("sequence %d: padding lane %d = %v", s, a, eb[s*lanes+a])
					}
				}
				e := eb0[s*lanes : s*lanes+q]
				mx := e[0]
				for _, v := range e {
					mx = max(mx, v)
				}
				z := 0.0
				for _, v := range e {
					z += math.Exp(v - mx)
				}
				if math.Abs(zd[2*s]-z) > 1e-14*z || zd[2*s+1] != e[xs[s]]-mx {
					t.Fatalf("sequence %d: z, d = %v, %v; want %v, %v", s, zd[2*s], zd[2*s+1], z, e[xs[s]]-mx)
				}
			}
			continue
		}
		for i := range eb {
			if eb[i] != want[i] {
				t.Fatalf("%s: residual %d = %v, %s %v", k.name, i, eb[i], softmaxKernels()[0].name, want[i])
			}
		}
		for i := range zd {
			if zd[i] != wantZD[i] {
				t.Fatalf("%s: zd[%d] = %v, want %v", k.name, i, zd[i], wantZD[i])
			}
		}
		if gh != wantGH {
			t.Fatalf("%s: gh = %v, want %v", k.name, gh, wantGH)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
