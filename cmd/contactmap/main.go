// Command contactmap predicts protein contact maps with symmetry-structured
// convolutional neural networks.
//
// Usage:
//
//	contactmap features --list LIST --pdb-dir DIR --out DIR [flags]
//	contactmap features --merge DIR
//	contactmap train --features DIR --model cnn|scnn [--config default|paper] [--resume]
//	contactmap eval --model M [--model M2] --features DIR --split test [--out REPORT]
//	contactmap predict [--model M] [--pdb-dir DIR] [--out DIR] 1ENH_A 1ctf seqs.fasta -
//
// Run "contactmap <command> -h" for the flags of a command.
package main

import (
	"context"
	"fmt"
	"github.com/contactmap/contactmap/internal/blasenv"
	"os"
	"os/signal"
	"syscall"
)

var commands = map[string]func(ctx context.Context, args []string) error{
	"features": runFeatures,
	"train":    runTrain,
	"eval":     runEval,
	"predict":  runPredict,
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage: contactmap <command> [flags]

commands:
  features   PISCES list + PDB mirror -> feature files, manifest, skip report
  train      train a CNN or SCNN contact model on feature files
  eval       evaluate models and baselines on a split
  predict    contact maps for PDB IDs, structure files or sequences

Run "contactmap <command> -h" for a command's flags.`)
}

func main() {
	blasenv.Reexec()
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		if os.Args[1] != "-h" && os.Args[1] != "--help" && os.Args[1] != "help" {
			fmt.Fprintf(os.Stderr, "contactmap: unknown command %q\n", os.Args[1])
		}
		usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cmd(ctx, os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "contactmap %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
