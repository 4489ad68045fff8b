package potts

import (
	"os"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
)

// BenchmarkEval times one objective-and-gradient evaluation on a PSICOV
// family (CONTACTMAP_PLM_BENCH, default 1vfyA: L = 67, N = 2,077) at the
// starting point, with every kernel set of this CPU.
func BenchmarkEval(b *testing.B) {
	a := benchAlignment(b)
	defer func(g func([]float64, []float32, []int32, int, int), s func([]float64, *column, []float64)) {
		gatherTile, scatterColumn = g, s
	}(gatherTile, scatterColumn)
	for _, k := range rowKernels() {
		b.Run(k.name, func(b *testing.B) {
			gatherTile, scatterColumn = k.gather, k.scatter
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
		})
	}
}

// BenchmarkFit times a whole fit (the package defaults, this CPU's
// kernels) on the family of BenchmarkEval.
func BenchmarkFit(b *testing.B) {
	a := benchAlignment(b)
	for range b.N {
		m, err := Fit(a, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(m.Evaluations), "evals/op")
	}
}

// benchAlignment reads the benchmarks' PSICOV family
// (CONTACTMAP_PLM_BENCH, default 1vfyA), skipping where the shared data
// are absent.
func benchAlignment(b *testing.B) *msa.Alignment {
	b.Helper()
	id := os.Getenv("CONTACTMAP_PLM_BENCH")
	if id == "" {
		id = "1vfyA"
	}
	a, err := msa.ReadFile("../../../shared/data/psicov150/aln/" + id + ".aln.gz")
	if err != nil {
		b.Skip(err)
	}
	return a
}
