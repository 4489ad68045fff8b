package msa

// withinMismatches is withinMismatchesGo's test with this CPU's
// kernel: the word loop, or AVX2 or AVX-512 (mismatch_amd64.go), all
// giving the same answer for every pair.
var withinMismatches = withinMismatchesGo

// mismatchKernel is one implementation of withinMismatches, for the
// tests and the benchmark.
type mismatchKernel struct {
	name   string
	within func(a, b []byte, maxMis int) bool
}
