// Command overlap checks the PISCES split's held-out chains against its
// training chains with the relatedness rule of package sets (a local
// alignment significant at E < 0.01 against all training chains, with
// at least 25% identical columns): PISCES culls its list to under 25%
// identity by its own alignments, which need not agree. It writes the
// test chains related to no training chain as a chain-set file
// (OUT/test-disjoint.tsv, for `contactmap features --chains`), the
// related ones with their closest training chain (OUT/test-related.tsv),
// and the same count for the validation chains on standard output.
//
//	go run ./experiments/overlap [-features features] [-out experiments/overlap]
package main

import (
	"flag"
	"fmt"
	"log"
	"path/filepath"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/sets"
)

func main() {
	dir := flag.String("features", "features", "feature directory of the PISCES split")
	out := flag.String("out", "experiments/overlap", "directory for test-disjoint.tsv and test-related.tsv")
	flag.Parse()
	log.SetFlags(0)
	man, err := features.ReadManifest(filepath.Join(*dir, "manifest.tsv"))
	if err != nil {
		log.Fatal(err)
	}
	bySplit := map[string][]sets.Chain{}
	for _, e := range man {
		c, err := features.ReadFile(filepath.Join(*dir, e.File))
		if err != nil {
			log.Fatal(err)
		}
		// File "": features --chains finds the entry in its --pdb-dir, as
		// make features does for the PISCES list.
		bySplit[e.Split] = append(bySplit[e.Split], sets.Chain{ID: e.ID, PDB: e.PDB, Chain: e.Chain, Seq: c.Seq, Resolved: e.Resolved})
	}
	train := bySplit[features.Train]
	o := sets.DefaultOptions
	fmt.Printf("held-out chains related to one of the %d PISCES training chains (local alignment, E < %g against them all, >= %.0f%% identical columns):\n",
		len(train), o.MaxEValue, 100*o.MaxIdentity)
	for _, split := range []string{features.Validation, features.Test} {
		free, related, err := sets.Unrelated(bySplit[split], train, o)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("  %-10s %2d of %3d\n", split, len(related), len(bySplit[split]))
		for _, m := range related {
			fmt.Printf("    %s ~ %s: %.0f%% identical, E %.2g\n", m.ID, m.Nearest, 100*m.Identity, m.EValue)
		}
		if split != features.Test {
			continue
		}
		for i := range free {
			free[i].Split = sets.Test
		}
		if err := sets.Write(filepath.Join(*out, "test-disjoint.tsv"), free); err != nil {
			log.Fatal(err)
		}
		for i := range related {
			related[i].Split = sets.Test
		}
		if err := sets.Write(filepath.Join(*out, "test-related.tsv"), related); err != nil {
			log.Fatal(err)
		}
	}
}
