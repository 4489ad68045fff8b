package kern

import "math"

// AdamUpdate is the update of scnn's Adam over one span of a parameter:
// for each i, with g = grad[i] (+ l2*val[i] where decay),
//
//	m[i] = flush(b1*m[i] + omb1*g, 2^-126)
//	v[i] = flush(b2*v[i] + (omb2*g)*g, 2^-126)
//	val[i] = flush(val[i] - float32(lr*(float64(m[i])/c1) / (sqrt(float64(v[i])/c2) + eps)), 2^-100)
//
// in float32 but for the float64 step, each product and sum rounded
// (no fused multiply-add), where flush(x, t) is x*0 (0 of x's sign) if
// |x| < t, else x. omb1 and omb2 are 1-b1 and 1-b2 in float32. Every
// implementation gives the same bits (TestAdamUpdate).
func AdamUpdate(val, grad, m, v []float32, decay bool, l2, b1, omb1, b2, omb2 float32, c1, c2, lr, eps float64) {
	n := len(val)
	if len(grad) < n || len(m) < n || len(v) < n {
		panic("kern: AdamUpdate: slices too short")
	}
	if n == 0 {
		return
	}
	if f := activeSet.Load().adam; f != nil {
		f(val, grad[:n], m[:n], v[:n], decay, l2, b1, omb1, b2, omb2, c1, c2, lr, eps)
		return
	}
	adamUpdateGo(val, grad[:n], m[:n], v[:n], decay, l2, b1, omb1, b2, omb2, c1, c2, lr, eps)
}

// adamUpdateGo is the portable AdamUpdate.
func adamUpdateGo(val, grad, m, v []float32, decay bool, l2, b1, omb1, b2, omb2 float32, c1, c2, lr, eps float64) {
	for i, g := range grad {
		if decay {
			g += float32(l2 * val[i])
		}
		m[i] = flush32(float32(b1*m[i])+float32(omb1*g), 0x1p-126)
		v[i] = flush32(float32(b2*v[i])+float32(float32(omb2*g)*g), 0x1p-126)
		mh := float64(m[i]) / c1
		vh := float64(v[i]) / c2
		val[i] = flush32(val[i]-float32(float64(lr*mh)/(math.Sqrt(vh)+eps)), 0x1p-100)
	}
}

// flush32 returns x, or x*0 (0 of x's sign) where |x| < t.
func flush32(x, t float32) float32 {
	if x > -t && x < t {
		return x * 0
	}
	return x
}
