package kern

// ReLU writes max(0, v) over v: every element that is not positive
// (negative, either zero, NaN) becomes +0, as
//
//	for i := range v { if !(v[i] > 0) { v[i] = 0 } }
func ReLU(v []float32) {
	if len(v) > 0 {
		activeSet.Load().relu(v)
	}
}

// ReLUMask zeroes d where y is not positive, the gradient of ReLU:
//
//	for i := range d { if !(y[i] > 0) { d[i] = 0 } }
//
// len(y) >= len(d).
func ReLUMask(d, y []float32) {
	if len(d) == 0 {
		return
	}
	if len(y) < len(d) {
		panic("kern: ReLUMask: y shorter than d")
	}
	activeSet.Load().reluMask(d, y[:len(d)])
}

func reluGo(v []float32) {
	for i := range v {
		if !(v[i] > 0) {
			v[i] = 0
		}
	}
}

func reluMaskGo(d, y []float32) {
	y = y[:len(d)]
	for i, v := range y {
		if !(v > 0) {
			d[i] = 0
		}
	}
}
