// Command sets-calibration shows why package sets counts two chains as
// related only through a significant local alignment: it takes the
// PISCES split's training chains, which PISCES culled to under 25%
// identity from its validation and test chains, and counts how many have
// some held-out chain at >= 25% identity by three measures: the global
// alignment (Needleman-Wunsch, biogo, as pdb aligns SEQRES) over the
// shorter chain, the best local alignment over the shorter chain
// (seqalign.Identity), and the sets rule (a local alignment with
// E < 0.01 against all held-out chains and >= 25% identical columns).
//
//	go run ./experiments/sets-calibration [-features features]
package main

import (
	"flag"
	"fmt"
	"log"
	"path/filepath"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/sets"
	"github.com/contactmap/contactmap/seqalign"
)

func main() {
	dir := flag.String("features", "features", "feature directory of the PISCES split")
	flag.Parse()
	log.SetFlags(0)
	man, err := features.ReadManifest(filepath.Join(*dir, "manifest.tsv"))
	if err != nil {
		log.Fatal(err)
	}
	var train, held []string
	for _, e := range man {
		c, err := features.ReadFile(filepath.Join(*dir, e.File))
		if err != nil {
			log.Fatal(err)
		}
		if e.Split == features.Train {
			train = append(train, c.Seq)
		} else {
			held = append(held, c.Seq)
		}
	}
	dbLen := 0
	for _, h := range held {
		dbLen += len(h)
	}
	o := sets.DefaultOptions
	var global, local, rule int
	for _, a := range train {
		g, l, r := false, false, false
		for _, b := range held {
			pairs, err := seqalign.Global(a, b)
			if err != nil {
				log.Fatal(err)
			}
			same := 0
			for _, p := range pairs {
				if a[p[0]] == b[p[1]] {
					same++
				}
			}
			g = g || float64(same) >= o.MaxIdentity*float64(min(len(a), len(b)))
			al, err := seqalign.AlignLocal(a, b)
			if err != nil {
				log.Fatal(err)
			}
			l = l || float64(al.Identical) >= o.MaxIdentity*float64(min(len(a), len(b)))
			r = r || al.EValue(len(a), dbLen) < o.MaxEValue && al.Identity() >= o.MaxIdentity
		}
		for _, x := range []struct {
			hit bool
			n   *int
		}{{g, &global}, {l, &local}, {r, &rule}} {
			if x.hit {
				*x.n++
			}
		}
	}
	fmt.Printf("PISCES training chains with a held-out chain (of %d) at >= %.0f%% identity, of %d:\n", len(held), 100*o.MaxIdentity, len(train))
	fmt.Printf("  global alignment, over the shorter chain:  %d\n", global)
	fmt.Printf("  local alignment, over the shorter chain:   %d\n", local)
	fmt.Printf("  significant local alignment (E < %g):    %d\n", o.MaxEValue, rule)
}
