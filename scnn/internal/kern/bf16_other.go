//go:build !amd64 || purego

package kern

// archBF16Sets is empty: this build has only the portable bfloat16 kernel.
func archBF16Sets() []*bf16Set { return nil }

// dpLoop has no bfloat16 loop to run in this build.
func dpLoop(n int) float64 { return 0 }
