package potts_test

import (
	"fmt"
	"log"

	"github.com/contactmap/contactmap/internal/memavail"
	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/potts"
)

// Fit a Potts model to an alignment (any format msa reads, plain or
// gzip) and list its top-scoring pairs.
func ExamplePredict() {
	a, err := msa.ReadFile("testdata/golden.aln")
	if err != nil {
		log.Fatal(err)
	}
	opt := potts.Options{}
	if lim, err := memavail.Available(); err == nil {
		opt.MemoryLimit = lim.Bytes // refuse up front what does not fit
	}
	r, err := potts.Predict(a, opt)
	if err != nil {
		log.Fatal(err) // a *potts.MemoryError gives the estimate
	}
	if r.Warn != nil {
		fmt.Println(r.Warn) // Neff/L below 1
	}
	l := a.L()
	fmt.Printf("%d sequences, Neff %.1f, L %d\n", a.N(), r.Model.Neff, l)
	bi, bj := 0, 1
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			if r.Scores[i*l+j] > r.Scores[bi*l+bj] {
				bi, bj = i, j
			}
		}
	}
	fmt.Printf("top pair: %d %d (%c %c)\n", bi+1, bj+1, a.Rows[0][bi], a.Rows[0][bj])
	// Output:
	// 40 sequences, Neff 35.3, L 12
	// top pair: 4 5 (P C)
}
