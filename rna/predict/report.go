package predict

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/contactmap/contactmap/internal/runsummary"
	"github.com/contactmap/contactmap/rna"
)

// Summarize reports a run's outcomes (Run's): the warnings of each
// molecule, in their order, to errw; the table of the molecules
// predicted (length, pairs, PPV, sensitivity and F1 against the input's
// own structure, outputs; none when none was) and "N molecules predicted
// into OUT" to w; the run's summary (runsummary, runsummary.Name in cfg.Out,
// a shard's of its own; a row per molecule with its status, method and
// energy). An interrupted run leaves out the molecules the interrupt
// stopped, and writes no summary when it predicted none. It returns the
// inputs that failed or were skipped, for the failure list, and the
// number of inputs.
func Summarize(w, errw io.Writer, outs []Outcome, cfg Config, interrupted bool) (failed []runsummary.Failure, total int) {
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "molecule\tL\tpairs\tPPV\tsensitivity\tF1\toutputs")
	var rows []runsummary.Row
	ok := 0
	for _, o := range outs {
		switch {
		case o.Base == "": // an input not read: no row
			failed, total = append(failed, runsummary.Failure{Err: o.Err}), total+1
			continue
		case interrupted && o.Err != nil && errors.Is(o.Err, context.Canceled):
			continue
		}
		for _, m := range o.Warnings {
			fmt.Fprintf(errw, "warning: %s: %s\n", o.Name, m)
		}
		status := runsummary.StatusOf(o.Err)
		if o.Skipped {
			status = runsummary.Skipped
		}
		rows, total = append(rows, runsummary.Row{Name: o.Name, Length: o.Length, Outputs: o.Files, Method: o.Method, Energy: o.Energy(), Status: status, Err: o.Err}), total+1
		if o.Err != nil {
			failed = append(failed, runsummary.Failure{Name: o.Name, Err: o.Err})
			continue
		}
		ok++
		score := "-\t-\t-"
		if o.Known != nil {
			c := rna.Compare(o.Structure, o.Known, false)
			score = fmt.Sprintf("%.3f\t%.3f\t%.3f", c.PPV, c.Sens, c.F1)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", o.Name, o.Length, len(o.Structure.Pairs()), score, filepath.Join(cfg.Out, o.Base)+".*")
	}
	tw.Flush()
	if ok > 0 {
		w.Write(table.Bytes())
	}
	noun := "molecules"
	if ok == 1 {
		noun = "molecule"
	}
	fmt.Fprintf(w, "%d %s predicted into %s\n", ok, noun, cfg.Out)
	if !interrupted || ok > 0 {
		runsummary.Save(errw, runsummary.ShardFile(cfg.Out, runsummary.Name, cfg.Shard, cfg.Shards), rows, true)
	}
	return failed, total
}

// Energy is the free energy of the molecule's structure in kcal/mol,
// with two decimals, for the summary; "" for none.
func (o Outcome) Energy() string {
	if o.Structure == nil || o.Structure.Energy == nil {
		return ""
	}
	return fmt.Sprintf("%.2f", o.Structure.Energy.DeltaG)
}
