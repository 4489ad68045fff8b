// Command trials reruns the short trial runs that chose the default RNA
// protocol's crop and learning-rate schedule: the real training loop
// (ssnet.Train) under the default widths with the crop, schedule and
// steps given by flags, validated every -every steps on every fourth
// validation molecule (7 of 28, to keep the trials cheap; the protocol
// itself validates on all 28).
//
//	go run ./experiments/rna-default/trials -crop 64 -steps 1500
//
// With -protocol paper it starts from the paper's widths instead; the
// median seconds per step (validations excluded) ends the output, which
// is how the paper protocol's time on this machine was estimated:
//
//	go run ./experiments/rna-default/trials -protocol paper -crop 500 -time 5 -workers 2
//
// (-time N stops after N steps, before any validation.)
//
// Prints one line per validation: step, mean training loss since the
// last one, mean accuracy (PPV+sensitivity)/2 and F1 on the 7
// molecules, and seconds (training and validation).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"time"

	"github.com/contactmap/contactmap/rna/ssnet"
)

func main() {
	kind := flag.String("kind", "scnn", "cnn or scnn")
	protocol := flag.String("protocol", "default", "the widths to start from: default or paper")
	crop := flag.Int("crop", 96, "training crop, nucleotides")
	steps := flag.Int("steps", 2500, "optimiser steps")
	every := flag.Int("every", 250, "steps between validations")
	halve := flag.Int("halve", 0, "steps between halvings of the learning rate (0: none)")
	lr := flag.Float64("lr", 0, "learning rate (0: the protocol's for the kind)")
	workers := flag.Int("workers", 1, "goroutines per convolution")
	seed := flag.Uint64("seed", 1, "seed")
	timeSteps := flag.Int("time", 0, "stop after this many steps, before any validation, to time them (0: train)")
	all := flag.Bool("all", false, "validate on all validation molecules (as the protocols do), not every fourth")
	train := flag.String("train", "data/rna/16s-finaltrain.txt", "training molecules")
	valid := flag.String("valid", "data/rna/16s-finalvalid.txt", "validation molecules")
	flag.Parse()
	log.SetFlags(0)
	k, err := ssnet.ParseKind(*kind)
	if err != nil {
		log.Fatal(err)
	}
	tr, err := ssnet.ReadSet(*train)
	if err != nil {
		log.Fatal(err)
	}
	va, err := ssnet.ReadSet(*valid)
	if err != nil {
		log.Fatal(err)
	}
	var sub []ssnet.Molecule
	for i := 0; i < len(va); i += 4 {
		sub = append(sub, va[i])
	}
	if *all {
		sub = va
	}
	p, err := ssnet.ProtocolByName(*protocol)
	if err != nil {
		log.Fatal(err)
	}
	p.Name = "trial"
	p.Crop, p.Steps, p.EvalEvery, p.HalveEvery = *crop, *steps, *every, *halve
	if *lr > 0 {
		p.LRCNN, p.LRSCNN = *lr, *lr
	}
	out, err := os.MkdirTemp("", "rna-trial-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	fmt.Printf("# %s crop %d, %d steps, lr %g halved every %d, validation on %d of %d molecules every %d steps, seed %d\n",
		k, p.Crop, p.Steps, p.LR(k), p.HalveEvery, len(sub), len(va), p.EvalEvery, *seed)
	var stepTimes []float64
	last, evaluated := time.Now(), false
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	if *timeSteps > 0 {
		p.EvalEvery = p.Steps
	}
	_, _, err = ssnet.Train(ctx, ssnet.TrainOptions{Train: tr, Valid: sub, Out: out, Kind: k, Protocol: p,
		Seed: *seed, Workers: *workers,
		OnStep: func(step int, _ float64) {
			if !evaluated {
				stepTimes = append(stepTimes, time.Since(last).Seconds())
			}
			last, evaluated = time.Now(), false
			if step == *timeSteps {
				stop()
			}
		},
		OnEval: func(e ssnet.EvalLog) {
			fmt.Printf("step %5d  loss %.4f  accuracy %.4f  F1 %.4f  %4.0fs\n", e.Step, e.TrainLoss, e.ValAcc, e.ValF1, e.Seconds)
			evaluated = true
		}})
	if err != nil && !(errors.Is(err, ssnet.ErrInterrupted) && *timeSteps > 0) {
		log.Fatal(err)
	}
	slices.Sort(stepTimes)
	fmt.Printf("median step %.3f s over %d steps (validations excluded)\n", stepTimes[len(stepTimes)/2], len(stepTimes))
}
