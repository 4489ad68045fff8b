//go:build amd64 && !purego

package kern

//go:noescape
func reluAVX512(v *float32, n int)

//go:noescape
func reluMaskAVX512(d, y *float32, n int)

// reluAVX512Go and reluMaskAVX512Go adapt the assembly ReLU and ReLUMask
// (relu_amd64.s); the callers have checked the slices.
func reluAVX512Go(v []float32)        { reluAVX512(&v[0], len(v)) }
func reluMaskAVX512Go(d, y []float32) { reluMaskAVX512(&d[0], &y[0], len(d)) }
