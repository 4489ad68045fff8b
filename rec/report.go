package rec

import (
	"fmt"
	"io"
	"sort"

	"github.com/contactmap/contactmap/internal/runcompare"
)

// EvalConfig configures EvaluateModels.
type EvalConfig struct {
	Models   []string // model files (rec train's model.scnn)
	Data     string   // the ratings the models were trained on (LoadData)
	Split    Split
	Baseline bool // add the most-popular baseline
}

// EvalRow is one model's (or the baseline's) scores on the split.
type EvalRow struct {
	Name    string // "KIND seed SEED (FILE)", or "most popular"
	Params  int    // trainable parameters; 0 for the baseline
	Summary Summary
}

// EvalOutcome is an evaluation's table: the users of the split, and a
// row per model in order, then the baseline's.
type EvalOutcome struct {
	Split Split
	Data  string // as EvalConfig gave it
	Users int
	Rows  []EvalRow
}

// EvaluateModels scores each model, then the most-popular baseline, on a
// split of the ratings (Evaluate): MAP, Precision@k and Recall@k averaged
// over users. A model trained on other users or items (SameData) is an
// error. An error after the ratings are read comes with the outcome so
// far (the rows before it); one before, with none.
func EvaluateModels(cfg EvalConfig) (*EvalOutcome, error) {
	d, err := LoadData(cfg.Data)
	if err != nil {
		return nil, err
	}
	out := &EvalOutcome{Split: cfg.Split, Data: cfg.Data, Users: d.Users}
	for _, path := range cfg.Models {
		m, r, err := Load(path)
		if err != nil {
			return out, err
		}
		if err := SameData(r, d); err != nil {
			return out, fmt.Errorf("rec eval: %s: %w", path, err)
		}
		um, err := Evaluate(d, cfg.Split, m.Scorer(d, 0), 256)
		if err != nil {
			return out, err
		}
		out.Rows = append(out.Rows, EvalRow{fmt.Sprintf("%s seed %d (%s)", KindName(m.Kind), r.Seed, path), m.Trainable(), Summarize(um)})
	}
	if cfg.Baseline {
		um, err := Evaluate(d, cfg.Split, Popularity(d), 256)
		if err != nil {
			return out, err
		}
		out.Rows = append(out.Rows, EvalRow{Name: "most popular", Summary: Summarize(um)})
	}
	return out, nil
}

// WriteMarkdown writes the evaluation as rec eval prints it: a line
// naming the split, the data and its users, then a Markdown table of the
// rows (the baseline's parameters blank).
func (o *EvalOutcome) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "%s split of %s: %d users\n\n", o.Split, o.Data, o.Users)
	fmt.Fprintln(w, "| model | params | MAP | P@1 | P@5 | P@10 | R@1 | R@5 | R@10 |")
	_, err := fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range o.Rows {
		params, s := "", r.Summary
		if r.Params > 0 {
			params = fmt.Sprint(r.Params)
		}
		_, err = fmt.Fprintf(w, "| %s | %s | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f |\n", r.Name, params, s.MAP,
			s.Prec.At1, s.Prec.At5, s.Prec.At10, s.Recall.At1, s.Recall.At5, s.Recall.At10)
	}
	return err
}

// CompareConfig configures CompareRuns.
type CompareConfig struct {
	Runs      string // directory of run directories (ScanRuns)
	Data      string // the ratings the runs were trained on (LoadData)
	Split     Split
	Resamples int // bootstrap resamples over users
	// Unreadable, when not nil, is given the runs that cannot be read
	// (each with the reason), in name order, before anything is
	// evaluated; an error it returns ends the comparison. Without it
	// they are left out.
	Unreadable func([]runcompare.RunDir[Run]) error
	// Log, when not nil, gets a line for each finished run once it is
	// evaluated (its kind, seed and epochs), then one for each run still
	// training (left out), in name order.
	Log io.Writer
}

// CompareRuns evaluates every finished run under cfg.Runs on a split of
// the ratings once, with the most-popular baseline, and compares SCosRec
// with CosRec over the seeds both have (CompareKinds).
func CompareRuns(cfg CompareConfig) (*Comparison, error) {
	d, err := LoadData(cfg.Data)
	if err != nil {
		return nil, err
	}
	dirs, err := ScanRuns(cfg.Runs, d)
	if err != nil {
		return nil, fmt.Errorf("rec compare: %w", err)
	}
	var finished, unreadable []runcompare.RunDir[Run]
	var training []string
	for _, e := range dirs {
		switch e.State {
		case runcompare.Training:
			training = append(training, e.Name)
		case runcompare.Unreadable:
			unreadable = append(unreadable, e)
		case runcompare.Finished:
			finished = append(finished, e)
		}
	}
	if cfg.Unreadable != nil {
		if err := cfg.Unreadable(unreadable); err != nil {
			return nil, err
		}
	}
	pop, err := Evaluate(d, cfg.Split, Popularity(d), 256)
	if err != nil {
		return nil, err
	}
	var runs []runcompare.Run
	for _, f := range finished {
		r, err := EvaluateRun(d, cfg.Split, f.Run)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "rec compare: %s: %s seed %d, %d epochs (best %d)\n", f.Name, KindName(f.Run.Model.Kind), f.Run.Record.Seed, f.Run.Epochs, f.Run.Record.Epoch)
		}
	}
	sort.Strings(training)
	for _, name := range training {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "rec compare: %s: still training, left out\n", name)
		}
	}
	return CompareKinds(runs, Summarize(pop), cfg.Split, cfg.Data, cfg.Resamples)
}

// Comparison is SCosRec against CosRec over the seeds both have
// (CompareKinds), with the most-popular baseline on the same split.
type Comparison struct {
	Result   *runcompare.Result
	Baseline Summary // the most-popular baseline's scores
}

// CompareKinds compares the SCosRec runs with the CosRec runs
// (runcompare.Compare: the mean, sd, paired differences over seeds and
// bootstrap confidence intervals over users, resamples of them),
// evaluated on a split of the ratings named data (EvaluateRun), beside
// the baseline's scores.
func CompareKinds(runs []runcompare.Run, baseline Summary, split Split, data string, resamples int) (*Comparison, error) {
	res, err := runcompare.Compare(runs, CompareMetrics(), KindName(CosRec), KindName(SCosRec), resamples, 1)
	if err != nil {
		return nil, err
	}
	res.Split, res.Features, res.Unit, res.Digits = split.String(), data, "users", 4
	return &Comparison{Result: res, Baseline: baseline}, nil
}

// note is the baseline's line below the table.
func (c *Comparison) note() string {
	ps := c.Baseline
	return fmt.Sprintf("\nMost-popular baseline on the same split: MAP %.4f, P@1 %.4f, P@5 %.4f, P@10 %.4f, R@1 %.4f, R@5 %.4f, R@10 %.4f.\n",
		ps.MAP, ps.Prec.At1, ps.Prec.At5, ps.Prec.At10, ps.Recall.At1, ps.Recall.At5, ps.Recall.At10)
}

// WriteMarkdown writes the comparison's table and the baseline's line.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	if err := c.Result.Markdown(w); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, c.note())
	return err
}

// WriteFiles writes OUT.md and OUT.json (runcompare.Result.WriteFiles),
// the baseline's line in both.
func (c *Comparison) WriteFiles(out string) error { return c.Result.WriteFiles(out, c.note()) }
