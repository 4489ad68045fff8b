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

func ExampleParams_Partition() {
	seq := "GGGAAAUCCCGCGCAAGCGCAUUUCC"
	ens, err := fold.DefaultParams().Partition(seq, 0)
	if err != nil {
		panic(err)
	}
	mfe, _ := rna.DotBracket(ens.MFE)
	fmt.Printf("%s (%.2f)\n", mfe, ens.MFEEnergy)
	fmt.Printf("%s [%.2f]\n", ens.PairingTendency(), ens.FreeEnergy)
	cent, dist := ens.Centroid()
	db, _ := rna.DotBracket(cent)
	fmt.Printf("%s {d=%.2f}\n", db, dist)
	mea, acc, err := ens.MEA(1)
	if err != nil {
		panic(err)
	}
	db, _ = rna.DotBracket(mea)
	fmt.Printf("%s {MEA=%.2f}\n", db, acc)
	fmt.Printf("frequency of the MFE structure %.4f, diversity %.2f\n", ens.MFEFrequency(), ens.Diversity())
	// the probability map, L x L, as the networks' outputs
	p := ens.Probabilities()
	fmt.Printf("P(2,26) = %.4f\n", p[1*len(seq)+25])
	// Output:
	// .((((((..(((....))).)))))) (-8.10)
	// .((((((..(((....))).)))))) [-8.37]
	// .((((((..(((....))).)))))) {d=2.57}
	// .((((((..(((....))).)))))) {MEA=22.05}
	// frequency of the MFE structure 0.6417, diversity 4.32
	// P(2,26) = 0.8234
}
