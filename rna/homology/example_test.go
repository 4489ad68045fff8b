package homology_test

import (
	"fmt"

	"github.com/contactmap/contactmap/rna/homology"
)

// The search of the overlap tables: the indexed sequence most identical
// to a query among the 5 sharing the most 8-mers with it.
func ExampleWordIndex_Nearest() {
	refs := []string{
		"GGGGAAAACCCCUUUUGGGGAAAACCCC",
		"ACGUACGUACGUACGUACGUACGUACGU",
		"GGGGAAAACCCCUUAUGGGGAAAACCCCAA",
	}
	ix := homology.NewWordIndex(refs)
	query := "GGGGAAAACCCCUUAUGGGGAAAACCCC"
	p := homology.Prefilter{Rank: homology.RankShared, Top: 5}
	ref, id := ix.Nearest(query, p, func(r int) float64 { return homology.Identity(query, refs[r]) })
	fmt.Printf("nearest %d, identity %.3f\n", ref, id)
	_, exact := ix.Exact(query)
	fmt.Println("indexed as it is:", exact)
	// Output:
	// nearest 0, identity 0.964
	// indexed as it is: false
}
