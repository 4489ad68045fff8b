package scnn

import (
	"math"
	"math/rand/v2"
)

// glorotUniform fills v from U(-a, a), a = scale*sqrt(6/(fanIn+fanOut)),
// the Glorot (Xavier) uniform initialisation times scale.
func glorotUniform(v []float32, fanIn, fanOut int, scale float64, rng *rand.Rand) {
	a := scale * math.Sqrt(6/float64(fanIn+fanOut))
	for i := range v {
		v[i] = float32((2*rng.Float64() - 1) * a)
	}
}

// Glorot initialises ordinary layers: U(-a, a), a = sqrt(6/(fanIn+fanOut)).
const Glorot = 1.0

// HalfGlorot initialises the free parameters of the symmetric layers with
// half the Glorot bound, as in Maduranga et al.: each free parameter
// appears up to four (sgConv) or two (spConv) times in the tied kernel.
const HalfGlorot = 0.5
