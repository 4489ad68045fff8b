package loglinear_test

import (
	"context"
	"fmt"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/loglinear"
)

// Train a model on one known structure, then fold the sequence and
// decode its pair probabilities.
func Example() {
	s, _ := rna.ParseDotBracket("hp", "GGGGAAACCCC", "((((...))))")
	m, _, err := loglinear.Train(context.Background(), []*rna.Structure{s}, loglinear.TrainOptions{Lambda: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	ens, _ := m.Fold(context.Background(), s.Seq, 0)
	pred, _ := ens.MEA("hp", 1)
	db, _ := rna.DotBracket(pred)
	fmt.Println(db)
	fmt.Printf("P(1,11) = %.2f\n", ens.Prob(0, 10))
	// Output:
	// ((((...))))
	// P(1,11) = 0.96
}
