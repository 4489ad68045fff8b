// Command foldseed writes the fold seed of RNA sets (ssnet.FoldSeed):
// the MFE, centroid and MEA structures of their molecules under rna/fold's
// defaults, which rna eval reads before its caches. make rna-fold-cache
// runs it on the bundled test split:
//
//	go run ./rna/ssnet/internal/foldseed -out data/rna/test/folds.tsv.gz data/rna/test/testdata.txt
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"

	"github.com/contactmap/contactmap/internal/progress"
	"github.com/contactmap/contactmap/rna/ssnet"
)

func main() {
	out := flag.String("out", "", "the seed file to write")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldseed -out FILE SET...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "foldseed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out string, files []string) error {
	var set []ssnet.Molecule
	seen := map[string]bool{}
	for _, f := range files {
		s, err := ssnet.ReadSet(f)
		if err != nil {
			return err
		}
		for _, m := range s {
			if !seen[m.Seq] {
				seen[m.Seq] = true
				set = append(set, m)
			}
		}
	}
	bar := progress.New(len(set), "folds")
	seed, err := ssnet.BuildFoldSeed(ctx, set, runtime.GOMAXPROCS(0), func() { bar.Add(1) })
	bar.Finish()
	if err != nil {
		return err
	}
	if err := seed.Write(out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "foldseed: %s: %d molecules, fingerprint %s\n", out, len(set), seed.Fingerprint)
	return nil
}
