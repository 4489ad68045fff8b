// Command homology-rank measures homology transfer's F1 on validation
// sets under the two prefilter rankings of package rna/homology
// (RankShared, the default, and RankJaccard), with references of very
// different lengths (the 16S training set beside bpRNA TR0): a measured
// trial for the template search of the RNA networks.
//
//	go run ./experiments/rna-families/homology-rank > experiments/rna-families/homology-rank/report.md
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/rna/ssnet"
)

func main() {
	refsFlag := flag.String("refs", "data/rna/16s-finaltrain.txt,experiments/rna-families/tr0-dedup.dbn.gz", "reference files, comma-separated")
	setsFlag := flag.String("sets", "data/rna/16s-finalvalid.txt,../shared/data/bprna/VL0.dbn.gz", "evaluated files, comma-separated")
	flag.Parse()
	refs, err := ssnet.ReadSets(strings.Split(*refsFlag, ","))
	if err != nil {
		fail(err)
	}
	fmt.Printf("Homology transfer, F1 (means over molecules), references %s (%d molecules).\n\n", *refsFlag, len(refs))
	fmt.Println("| set | molecules | RankShared (default) | RankJaccard |")
	fmt.Println("|---|---:|---:|---:|")
	ix := ssnet.TemplateRefs(refs)
	for _, f := range strings.Split(*setsFlag, ",") {
		set, err := ssnet.ReadSet(f)
		if err != nil {
			fail(err)
		}
		var f1 [2]float64
		for k, rank := range []homology.Rank{homology.RankShared, homology.RankJaccard} {
			// ix ranked as asked: ssnet.HomologyPredictor, the baseline,
			// ranks by its own choice (HomologyRank) whatever the index's.
			r := ix.WithRank(rank)
			pred := func(mol *ssnet.Molecule) (*rna.Structure, error) {
				s, _, err := r.Predict(mol.Name, mol.Seq, nil)
				return s, err
			}
			scores, err := ssnet.Evaluate(set, pred, nil)
			if err != nil {
				fail(err)
			}
			f1[k] = ssnet.Summarize(scores)[0].Exact.F1
		}
		fmt.Printf("| %s | %d | %.3f | %.3f |\n", f, len(set), f1[0], f1[1])
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "homology-rank:", err)
	os.Exit(1)
}
