package predict

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/contactmap/contactmap/internal/runsummary"
	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/pipeline/metrics"
)

// StatusOf is the summary status of an input's error: runsummary.OK for
// none, runsummary.Skipped for an input refused before any work (a
// runsummary.Skip, or a *memcheck.TooLargeError: too large for the memory
// available), runsummary.Failed otherwise.
func StatusOf(err error) string {
	var tl *memcheck.TooLargeError
	if errors.As(err, &tl) {
		return runsummary.Skipped
	}
	return runsummary.StatusOf(err)
}

// MethodOf is the predictor of an outcome, for the summary: "plm"
// (plmDCA), or "network" and its models; for a chain the search stage
// gave an alignment, the alignment too ("network msa (OUT/msa/1ABC_A.a3m,
// depth 1883, Neff/L 4.20)"), or for one too shallow the single-sequence
// models and why. "" for an input that resolved to no chain.
func (cfg Config) MethodOf(o Outcome) string {
	switch {
	case o.ID == "": // not resolved: no chain to predict
		return ""
	case cfg.Method == MethodPLM:
		return "plm"
	case o.Alignment != nil:
		src := o.Alignment
		o.Alignment = nil
		m := cfg.MethodOf(o)
		if src.Shallow {
			return fmt.Sprintf("%s (alignment too shallow: %s)", m, src)
		}
		return fmt.Sprintf("%s (%s)", m, src)
	}
	for _, n := range o.Notes {
		switch {
		case strings.Contains(n, "predicted with plmDCA"):
			return "plm"
		case strings.Contains(n, "alignment model"):
			return "network " + strings.Join(cfg.AlignmentModels, "+")
		}
	}
	return "network " + strings.Join(cfg.Models, "+")
}

// SingleSequenceNote is said once by a run without the search stage that
// predicted chains by the single-sequence default. The numbers are
// long-range top-L/5 (C-beta) on the 21 validation families of
// experiments/msa-net: the single-sequence default's from
// experiments/msa-depth, the msa network's on the families' alignments
// (the faster plmDCA fit predict runs) from docs/predict.md#alignments.
const SingleSequenceNote = "note: sequences are predicted by the single-sequence model (long-range top-L/5 0.139 on the 21 validation families of experiments/msa-net, experiments/msa-depth); give --db SEQDB to build alignments and use the msa network (0.763 on those families' alignments), see docs/msa.md"

// NoteSingleSequence writes SingleSequenceNote to w when some chain of
// outs was predicted by the models of cfg.Models (the single-sequence
// default, where the command named none).
func NoteSingleSequence(w io.Writer, cfg Config, outs []Outcome) {
	single := "network " + strings.Join(cfg.Models, "+")
	for _, o := range outs {
		if o.Err == nil && o.ID != "" && cfg.MethodOf(o) == single {
			fmt.Fprintln(w, SingleSequenceNote)
			return
		}
	}
}

// Finished drops the outcomes of the targets an interrupt stopped
// (context.Canceled): they are not failures.
func Finished(outs []Outcome) []Outcome {
	var kept []Outcome
	for _, o := range outs {
		if !errors.Is(o.Err, context.Canceled) {
			kept = append(kept, o)
		}
	}
	return kept
}

// renamedShown is how many naming warnings Summarize prints; the rest
// are counted.
const renamedShown = 5

// Summarize reports a run's outcomes: the notes, naming warnings (the
// first few, then a count) and warnings of each chain to errw; the table
// of the chains predicted (chain, length, the metrics where a structure
// was given, the outputs; none when none was) and "N chains predicted
// into OUT" to w; the run's summary (runsummary, runsummary.Name in cfg.Out,
// a shard's of its own). It returns the inputs that failed or were
// skipped, for the failure list, and the number of inputs.
func Summarize(w, errw io.Writer, outs []Outcome, cfg Config) (failed []runsummary.Failure, total int) {
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "chain\tL\tPPV\tsensitivity\taccuracy\tlong top-L/5\toutputs")
	var rows []runsummary.Row
	ok, renamed := 0, 0
	for _, o := range outs {
		name := o.Arg
		if o.ID != "" {
			name = o.ID
		}
		for _, note := range o.Notes {
			fmt.Fprintf(errw, "note: %s: %s\n", name, note)
		}
		if o.Naming != "" {
			if renamed++; renamed <= renamedShown {
				fmt.Fprintf(errw, "warning: %s: %s\n", name, o.Naming)
			}
		}
		for _, warn := range o.Warnings {
			fmt.Fprintf(errw, "warning: %s: %s\n", name, warn)
		}
		rows = append(rows, runsummary.Row{Name: name, Length: o.L, Outputs: o.Files, Method: cfg.MethodOf(o), Status: StatusOf(o.Err), Err: o.Err})
		if o.Err != nil {
			failed = append(failed, runsummary.Failure{Name: name, Err: o.Err})
			continue
		}
		ok++
		if m := o.Metrics; m != nil {
			long := "n/a" // no long-range contact to find
			if m.RangeContacts[metrics.Long] > 0 {
				long = fmt.Sprintf("%.3f", m.TopL[metrics.Long][metrics.TopL5])
			}
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%s\t%d files\n", o.ID, o.L, m.PPV, m.Sens, m.Accuracy, long, len(o.Files))
		} else {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t-\t-\t%d files\n", o.ID, o.L, len(o.Files))
		}
	}
	tw.Flush()
	if renamed > renamedShown {
		fmt.Fprintf(errw, "warning: %d more IDs written under other file names (as above)\n", renamed-renamedShown)
	}
	if ok > 0 { // no empty table for a run that predicted nothing
		w.Write(table.Bytes())
	}
	chains := "1 chain"
	if ok != 1 {
		chains = fmt.Sprintf("%d chains", ok)
	}
	fmt.Fprintf(w, "%s predicted into %s\n", chains, cfg.Out)
	runsummary.Save(errw, runsummary.ShardFile(cfg.Out, runsummary.Name, cfg.Shard, cfg.Shards), rows, false)
	return failed, len(failed) + ok
}
