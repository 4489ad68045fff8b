//go:build amd64 && !purego

package kern

//go:noescape
func storeAcc8AVX512(out *float32, ldo int, acc *float32, n, blocks int)

// storeAcc8AVX512Go adapts the assembly storeAcc8 (storeacc_amd64.s),
// which transposes blocks of 16 pixels in registers; the last jn%16
// pixels go by the loop. It checks that every element the assembly
// touches is inside its slices.
func storeAcc8AVX512Go(out []float32, ldo int, acc []float32, n, jn int) {
	if jn <= 0 {
		return
	}
	if ldo < 8 || n < jn || len(acc) < 7*n+jn || len(out) < (jn-1)*ldo+8 {
		panic("kern: storeAcc8: slices too short")
	}
	blocks := jn / 16
	if blocks > 0 {
		storeAcc8AVX512(&out[0], ldo, &acc[0], n, blocks)
	}
	if done := blocks * 16; done < jn {
		storeAcc8Go(out[done*ldo:], ldo, acc[done:], n, jn-done)
	}
}

//go:noescape
func accInit8AVX512(acc *float32, n int, vals *float32, vecs int)

// accInit8AVX512Go adapts the assembly accInit8 (storeacc_amd64.s), which
// stores whole vectors of 16; a row's last n%16 values go by the loop.
func accInit8AVX512Go(acc []float32, n int, vals []float32) {
	if n <= 0 {
		return
	}
	if len(vals) < 8 || len(acc) < 8*n {
		panic("kern: accInit8: slices too short")
	}
	if vecs := n / 16; vecs > 0 {
		accInit8AVX512(&acc[0], n, &vals[0], vecs)
	}
	if done := n / 16 * 16; done < n {
		for f, v := range vals[:8] {
			a := acc[f*n+done : (f+1)*n]
			for j := range a {
				a[j] = v
			}
		}
	}
}
