package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/contactmap/contactmap/internal/runsummary"
	"github.com/contactmap/contactmap/internal/usage"
	"github.com/contactmap/contactmap/pipeline/predict"
)

// predictFlags are the flags predict and rna predict share, each with one
// meaning in both: the inputs (--ids), the outputs (--out,
// --format, --force), which inputs this process takes (--shard), how many
// at once (--workers), what is refused rather than warned of (--strict),
// and the models (--model, repeatable: the mean of their probabilities).
type predictFlags struct {
	Out     string
	Force   bool
	Workers int
	IDs     string
	Shard   string
	Strict  bool
	Format  string
	Models  multiFlag

	shard, shards int // parsed from Shard by check
}

// predictFlagHelp is what each command says of the shared flags where it
// differs: what an input is ("chains", "molecules"), the formats and
// models it knows, what --strict refuses and what --force lets through;
// Out, where set, replaces the help of --out (msa's manifest).
type predictFlagHelp struct {
	Unit, Format, Model, Strict, Force, Out string
}

// register defines the shared flags on fs, with the command's defaults;
// --strict and --model only with their help (msa has neither).
func (p *predictFlags) register(fs *flag.FlagSet, out, format string, h predictFlagHelp) {
	if h.Out == "" {
		h.Out = "output directory; it also gets " + runsummary.Name + ".tsv, a row per input (name, length, status ok/skipped/failed, outputs, method); with --shard i/n, " + runsummary.Name + ".shard-i-of-n.tsv"
	}
	fs.StringVar(&p.Out, "out", out, h.Out)
	fs.BoolVar(&p.Force, "force", false, h.Force)
	fs.IntVar(&p.Workers, "workers", 1, h.Unit+" predicted in parallel")
	fs.StringVar(&p.IDs, "ids", "", "file of inputs, one per line (blank lines and # comments skipped), after those on the command line")
	fs.StringVar(&p.Shard, "shard", "0/1", "process shard i of n of the "+h.Unit+" (0-based: those whose index in the run is i modulo n; every shard names the outputs alike)")
	fs.StringVar(&p.Format, "format", format, h.Format)
	if h.Strict != "" {
		fs.BoolVar(&p.Strict, "strict", false, h.Strict)
	}
	if h.Model != "" {
		fs.Var(&p.Models, "model", h.Model)
	}
}

// check refuses shared flags out of range (a usage error): --workers
// below 1, a bad --shard, an --out that is a file or under one.
func (p *predictFlags) check(fs *flag.FlagSet) error {
	if err := checkRanges(fs, map[string]string{"workers": atLeast1}); err != nil {
		return err
	}
	var err error
	if p.shard, p.shards, err = runsummary.ParseShard(p.Shard); err != nil {
		return usage.Errorf("%v", err)
	}
	return checkOutDir(p.Out)
}

// inputs are the positional inputs, then those of --ids.
func (p *predictFlags) inputs(pos []string) ([]string, error) {
	if p.IDs == "" {
		return pos, nil
	}
	more, err := predict.ReadInputFile(p.IDs)
	return append(pos, more...), err
}

// listFailures prints the failures, each with the flag that would help
// (flagHint), and returns the command's error, "N of M inputs failed";
// nil when none did (runsummary.ListFailures). An interrupted run's
// (ctx done) is context.Canceled, named by cmd: main then says what
// finished.
func listFailures(ctx context.Context, cmd string, failed []runsummary.Failure, total int) error {
	for i := range failed {
		failed[i].Err = flagHint(failed[i].Err)
	}
	err := runsummary.ListFailures(stderr, failed, total)
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", cmd, context.Canceled)
	}
	return err
}
