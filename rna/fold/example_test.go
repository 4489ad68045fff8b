package fold_test

import (
	"fmt"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
)

func ExampleMFE() {
	seq := "GGGAAAUCCCGCGCAAGCGCAUUUCC"
	st, e, err := fold.MFE(seq)
	if err != nil {
		panic(err)
	}
	db, _ := rna.DotBracket(st)
	fmt.Printf("%s\n%s (%.2f)\n", seq, db, e)

	// the energy of another structure of the same sequence
	alt, _ := rna.ParseDotBracket("", seq, "(((....)))................")
	ea, err := fold.EvalStructure(seq, alt.Pairs())
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s (%.2f)\n", "(((....)))................", ea)
	// Output:
	// GGGAAAUCCCGCGCAAGCGCAUUUCC
	// .((((((..(((....))).)))))) (-8.10)
	// (((....)))................ (-4.20)
}
