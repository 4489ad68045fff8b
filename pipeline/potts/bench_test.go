package potts

import (
	"os"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
)

// BenchmarkEval times one objective-and-gradient evaluation on a PSICOV
// family (CONTACTMAP_PLM_BENCH, default 1vfyA: L = 67, N = 2,077) at the
// starting point.
func BenchmarkEval(b *testing.B) {
	id := os.Getenv("CONTACTMAP_PLM_BENCH")
	if id == "" {
		id = "1vfyA"
	}
	a, err := msa.ReadFile("../../../shared/data/psicov150/aln/" + id + ".aln.gz")
	if err != nil {
		b.Skip(err)
	}
	p, _ := newProblem(a, Options{}.withDefaults())
	x := p.initial()
	for k := a.L() * q; k < len(x); k += 7 {
		x[k] = 0.01 * float64(k%13-6)
	}
	g := make([]float64, len(x))
	b.ResetTimer()
	for range b.N {
		p.eval(x, g)
	}
}
