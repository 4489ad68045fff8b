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
	defer func(g func([]float64, []float32, []int32, int, int), s func([]float64, *column, int, []float64)) {
		gatherTile, scatterColumn = g, s
	}(gatherTile, scatterColumn)
	for _, k := range rowKernels() {
		b.Run(k.name, func(b *testing.B) {
			gatherTile, scatterColumn = k.gather, k.scatter
			benchEvals(b, a)
		})
	}
}

// BenchmarkScatterChunk times one evaluation of the default kernels, as
// BenchmarkEval, with the scatter's sequences in one chunk (every
// column's residuals read from wherever they are cached, as before
// chunks) and in chunks of scatterChunk, side by side. Its ratio shows
// only where a column's residuals outgrow the L2 cache: a deep family,
// CONTACTMAP_PLM_BENCH=1pkoA (24,318 rows) or 1fnaA.
func BenchmarkScatterChunk(b *testing.B) {
	a := benchAlignment(b)
	defer func(c int) { scatterChunk = c }(scatterChunk)
	for _, c := range []struct {
		name  string
		chunk int
	}{{"one-chunk", a.N()}, {"chunked", scatterChunk}} {
		b.Run(c.name, func(b *testing.B) {
			scatterChunk = c.chunk
			benchEvals(b, a)
		})
	}
}

// benchEvals times evaluations of a's objective and gradient at the
// starting point, its couplings perturbed a little, under the kernels
// and chunks set.
func benchEvals(b *testing.B, a *msa.Alignment) {
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
