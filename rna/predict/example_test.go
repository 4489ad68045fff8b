package predict_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/contactmap/contactmap/rna/predict"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// The minimum free energy structure of a short hairpin, written as
// dot-bracket and CT files.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "rna-predict-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "hairpin.fa")
	if err := os.WriteFile(in, []byte(">hairpin\nGGGGAAACCCCAUAGCGCGAAAGCGCUU\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	cfg := predict.Config{Method: "mfe", Formats: []ssnet.Format{ssnet.DotBracket, ssnet.CT}, Out: filepath.Join(dir, "out")}
	outs, err := predict.Run(context.Background(), cfg, []string{in})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range outs {
		fmt.Printf("%s: %d nt, %d pairs, %s kcal/mol, by %s\n", o.Name, o.Length, len(o.Structure.Pairs()), o.Energy(), o.Method)
		for _, f := range o.Files {
			fmt.Println(filepath.Base(f))
		}
	}
	db, _ := os.ReadFile(filepath.Join(dir, "out", "hairpin.db"))
	fmt.Print(string(db))
	// Output:
	// hairpin: 28 nt, 9 pairs, -14.20 kcal/mol, by mfe
	// hairpin.db
	// hairpin.ct
	// >hairpin
	// GGGGAAACCCCAUAGCGCGAAAGCGCUU
	// ((((...))))..(((((....))))). (-14.20)
}
