// Command batch-cost compares the work per training step of the
// families protocol's batches (pair crops, ssnet.RandomPairWindows) with
// the families-bucketed protocol's (ssnet.BucketWindows): over the
// protocols' 3,000 steps drawn from the same training files, the mean
// padded batch length L (the longest window of the batch) and the mean
// pixels the SCNN computes per step, B * L(L+1)/2 (its convolutions'
// cost is proportional to them). No training; the windows only.
//
//	go run ./experiments/rna-families/batch-cost > experiments/rna-families/batch-cost/report.md
package main

import (
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/contactmap/contactmap/rna/ssnet"
)

func main() {
	files := []string{"data/rna/16s-finaltrain.txt", "experiments/rna-families/tr0-dedup.dbn.gz"}
	set, err := ssnet.ReadSets(files)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("# Work per training step: families (pair crops) against families-bucketed\n\n")
	fmt.Printf("`go run ./experiments/rna-families/batch-cost`: the windows of 3,000 steps of each protocol (seed 1), drawn from %v (%d molecules); per step the batch's padded length L (its longest window) and the packed pixels an SCNN computes, B * L(L+1)/2.\n\n", files, len(set))
	fmt.Printf("| protocol | steps | batch | mean L | mean pixels per step | relative |\n|---|---:|---:|---:|---:|---:|\n")
	var base float64
	for _, name := range []string{"families", "families-bucketed"} {
		p, err := ssnet.ProtocolByName(name)
		if err != nil {
			log.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 0))
		var sumL, sumPix float64
		for step := 0; step < p.Steps; step++ {
			var ws []ssnet.Window
			if p.Buckets {
				ws = ssnet.BucketWindows(set, p.Batch, p.Crop, rng)
			} else {
				ws = ssnet.RandomPairWindows(set, p.Batch, p.Crop, rng)
			}
			l := 0
			for _, w := range ws {
				l = max(l, w.Size())
			}
			sumL += float64(l)
			sumPix += float64(len(ws) * l * (l + 1) / 2)
		}
		n := float64(p.Steps)
		if base == 0 {
			base = sumPix / n
		}
		fmt.Printf("| %s | %d | %d | %.1f | %.0f | %.2f |\n", name, p.Steps, p.Batch, sumL/n, sumPix/n, sumPix/n/base)
	}
}
