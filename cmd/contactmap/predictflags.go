package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/runsummary"
	"github.com/contactmap/contactmap/pipeline/predict"
)

// predictFlags are the flags predict and rna predict share, each with one
// meaning in both (issue 57.7): the inputs (--ids), the outputs (--out,
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
// models it knows, what --strict refuses and what --force lets through.
type predictFlagHelp struct {
	Unit, Format, Model, Strict, Force string
}

// register defines the shared flags on fs, with the command's defaults.
func (p *predictFlags) register(fs *flag.FlagSet, out, format string, h predictFlagHelp) {
	fs.StringVar(&p.Out, "out", out, "output directory; it also gets "+predict.SummaryName+".tsv, a row per input (name, length, status ok/skipped/failed, outputs, method); with --shard i/n, "+predict.SummaryName+".shard-i-of-n.tsv")
	fs.BoolVar(&p.Force, "force", false, h.Force)
	fs.IntVar(&p.Workers, "workers", 1, h.Unit+" predicted in parallel")
	fs.StringVar(&p.IDs, "ids", "", "file of inputs, one per line (blank lines and # comments skipped), after those on the command line")
	fs.StringVar(&p.Shard, "shard", "0/1", "process shard i of n of the "+h.Unit+" (0-based: those whose index in the run is i modulo n; every shard names the outputs alike)")
	fs.BoolVar(&p.Strict, "strict", false, h.Strict)
	fs.StringVar(&p.Format, "format", format, h.Format)
	fs.Var(&p.Models, "model", h.Model)
}

// check refuses shared flags out of range (a usage error): --workers
// below 1, a bad --shard, an --out that is a file or under one.
func (p *predictFlags) check(fs *flag.FlagSet) error {
	if err := checkRanges(fs, map[string]string{"workers": atLeast1}); err != nil {
		return err
	}
	var err error
	if p.shard, p.shards, err = parseShard(p.Shard); err != nil {
		return usageError("%v", err)
	}
	return checkOutDir(p.Out)
}

// inputs are the positional inputs, then those of --ids.
func (p *predictFlags) inputs(pos []string) ([]string, error) {
	if p.IDs == "" {
		return pos, nil
	}
	f, err := os.Open(p.IDs)
	if err != nil {
		return nil, fmt.Errorf("--ids: %w", err)
	}
	defer f.Close()
	data, err := fileio.ReadText(f, predict.StdinListBytes, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("--ids %s: %w", p.IDs, err)
	}
	more, err := predict.ReadInputList(strings.NewReader(string(data)))
	if err != nil {
		return nil, fmt.Errorf("--ids %s: %w", p.IDs, err)
	}
	return append(pos, more...), nil
}

// summaryRow is one input of a run in its summary (internal/runsummary).
type summaryRow = runsummary.Row

// failure is an input that failed or was skipped, for the failure list.
type failure struct {
	Name string // "" for an error that names its input itself
	Err  error
}

// skipError marks an input refused before any work, not for being wrong:
// its outputs exist, or --strict refuses what it would only warn of (as
// runsummary.Skip does).
type skipError struct{ error }

func (e skipError) Unwrap() error { return e.error }

// summaryFile is the path of the run's summary in dir: summary.tsv, or
// summary.shard-i-of-n.tsv for a shard.
func summaryFile(dir string, shard, shards int) string {
	return runsummary.ShardFile(dir, predict.SummaryName, shard, shards)
}

// withStatus gives each row its status (predict.StatusOf; a skipError is
// a skip).
func withStatus(rows []summaryRow) []summaryRow {
	var se skipError
	for i := range rows {
		if rows[i].Status = predict.StatusOf(rows[i].Err); errors.As(rows[i].Err, &se) {
			rows[i].Status = runsummary.Skipped
		}
	}
	return rows
}

// saveSummary writes the run's summary, merged with the one in its
// directory; one that cannot be written is a warning on errw
// (runsummary.Save).
func saveSummary(errw io.Writer, path string, rows []summaryRow, energy bool) {
	runsummary.Save(errw, path, withStatus(rows), energy)
}

// listFailures prints the failures, each with the flag that would help
// (flagHint), and returns the command's error, "N of M inputs failed";
// nil when none did (runsummary.ListFailures).
func listFailures(errw io.Writer, failed []failure, total int) error {
	hinted := make([]runsummary.Failure, len(failed))
	for i, f := range failed {
		hinted[i] = runsummary.Failure{Name: f.Name, Err: flagHint(f.Err)}
	}
	return runsummary.ListFailures(errw, hinted, total)
}

// failures are the library's failure list, for listFailures.
func failures(fs []runsummary.Failure) []failure {
	out := make([]failure, len(fs))
	for i, f := range fs {
		out[i] = failure(f)
	}
	return out
}
