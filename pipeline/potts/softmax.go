package potts

import "math"

// softmaxColumn turns the energies of n sequences at one column into
// their residuals, in place, the third kernel of the objective (after
// gatherTile, before scatterColumn). For sequence s, with e = eb[s*24:]
// (its 21 energies E(a) in lanes 0-20), x = xs[s] its state and
// w = ws[s] its weight:
//
//	mx = max_a E(a) + 0                          (+0 for either zero)
//	u(a) = expNonPos(E(a) - mx)                   lanes 0-20; 0 in 21-23
//	z = sum_a u(a)                                in the order of sumLanes
//	r(a) = u(a) * (w / z) - w [a == x]            written over e
//	gh(a) += r(a)
//	zd[2s], zd[2s+1] = z, E(x) - mx
//
// so that the sequence's term of the objective is w (log z - zd[2s+1])
// and r is its gradient by the energies. Every operation is rounded as
// written (the vector kernels use the same polynomial, the same fused
// multiply-adds and the same order of sums), so every kernel set gives
// the same bits, where the energies are numbers: with a NaN among them
// f and the gradient are NaN on every kernel set, but zd may differ.
var softmaxColumn = softmaxColumnGo

func softmaxColumnGo(eb []float64, xs []uint8, ws []float64, zd []float64, gh *[lanes]float64) {
	n := len(xs)
	eb, ws, zd = eb[:n*lanes], ws[:n], zd[:2*n]
	for s, x := range xs {
		e := (*[lanes]float64)(eb[s*lanes:])
		mx := e[0]
		for _, v := range e[1:q] {
			mx = max(mx, v)
		}
		mx += 0 // +0 for a zero of either sign, whatever the order
		d := e[x] - mx
		var u [lanes]float64
		for a := 0; a < q; a++ {
			u[a] = expNonPos(e[a] - mx)
		}
		z := sumLanes(&u)
		w := ws[s]
		c := w / z
		for a := range u {
			e[a] = u[a] * c
		}
		e[x] -= w
		for a, v := range e {
			gh[a] += v
		}
		zd[2*s], zd[2*s+1] = z, d
	}
}

// sumLanes returns the sum of the 24 lanes in the order of a reduction
// of three 8-lane vectors: t(k) = (u(k) + u(k+8)) + u(k+16), then the
// halves, quarters and pairs of t added.
func sumLanes(u *[lanes]float64) float64 {
	var t [8]float64
	for k := range t {
		t[k] = (u[k] + u[k+8]) + u[k+16]
	}
	for k := 0; k < 4; k++ {
		t[k] += t[k+4]
	}
	for k := 0; k < 2; k++ {
		t[k] += t[k+2]
	}
	return t[0] + t[1]
}

// The constants of expNonPos (their bits are in softmax_amd64.s).
const (
	expLog2e = 1.4426950408889634         // 1/ln 2
	expMagic = 6755399441055744.0         // 1.5 * 2^52: adding it rounds to an integer
	expLn2Hi = 6.93147180369123816490e-01 // ln 2, high part (Cody-Waite)
	expLn2Lo = 1.90821492927058770002e-10 // ln 2 - expLn2Hi
	expFloor = -708.0                     // below this, exp(x) is taken as 0
)

// expCoef are the Taylor coefficients 1/k! for k = 13 down to 2: on
// |r| <= ln(2)/2 the series to degree 13 is within 5e-18 of exp(r).
var expCoef = [12]float64{
	1.6059043836821613e-10, 2.08767569878681e-09, 2.505210838544172e-08,
	2.755731922398589e-07, 2.7557319223985893e-06, 2.48015873015873e-05,
	0.0001984126984126984, 0.001388888888888889, 0.008333333333333333,
	0.041666666666666664, 0.16666666666666666, 0.5,
}

// expNonPos returns e^x for x <= 0 within 2 ulp: x = k ln 2 + r with k
// an integer and |r| <= ln(2)/2, e^r by its Taylor series (Horner's rule
// in fused multiply-adds), times 2^k. Below expFloor (e^x < 3.3e-308,
// where 2^k would be subnormal) it returns 0; the conditionals sum to
// at least 1, so such terms change nothing.
func expNonPos(x float64) float64 {
	t := float64(x*expLog2e) + expMagic // the conversion forbids fusing
	k := t - expMagic
	r := math.FMA(k, -expLn2Hi, x)
	r = math.FMA(k, -expLn2Lo, r)
	p := expCoef[0]
	for _, c := range expCoef[1:] {
		p = math.FMA(p, r, c)
	}
	p = math.FMA(p, r, 1)
	p = math.FMA(p, r, 1)
	// t's low bits hold k in two's complement: 2^k's exponent field.
	scale := math.Float64frombits((math.Float64bits(t) + 1023) << 52)
	if x < expFloor {
		return 0
	}
	return p * scale
}

// softmaxKernel is one softmaxColumn kernel, for the tests and the
// benchmark.
type softmaxKernel struct {
	name    string
	softmax func(eb []float64, xs []uint8, ws []float64, zd []float64, gh *[lanes]float64)
}
