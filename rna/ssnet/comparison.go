package ssnet

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/contactmap/contactmap/internal/runcompare"
)

// CompareConfig configures a comparison of RNA runs (RunCompare, rna
// compare).
type CompareConfig struct {
	// Runs is the directory of run directories (ScanRuns); Against, when
	// set, a second one: each kind under Runs is then compared with the
	// same kind there, paired by seed (CompareSides), instead of SCNN with
	// CNN and the baselines (CompareRuns).
	Runs, Against string
	// Split names the split in the results and the runs' score caches
	// (RunScores); Set is the file of its molecules ("": the split's
	// bundled file, SplitFile).
	Split, Set string
	// Train are the training molecules (comma-separated files), for the
	// overlap of the set, homology transfer and template networks.
	Train string
	// MFECache is the file of cached MFE structures, for networks with
	// energy channels ("": none).
	MFECache  string
	Decoder   Decoder
	Resamples int // bootstrap resamples over molecules
	// Baselines adds each kind's comparison with the model-free
	// baselines (BaselineRuns), without Against.
	Baselines bool

	// Unreadable, when set, is told of each run whose checkpoint or model
	// cannot be read (named by its directory's name under Runs, by its
	// path under Against); Scanned, when set, is called once every run
	// is read, before any evaluation, and its error stops the
	// comparison (the command's --skip-bad).
	Unreadable func(name string, err error)
	Scanned    func() error
	// Log, when set, gets a line per run left out while training and
	// per run scored.
	Log io.Writer
	// Progress reports the MFE folds of the set, if any.
	Progress Progress
}

// RunCompare reads the set and every run, scores the finished runs on
// the set under the decoder (through their score caches) and returns
// the comparisons; none is an error naming the directories.
func RunCompare(ctx context.Context, cfg CompareConfig) ([]Comparison, error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	if cfg.Set == "" {
		var err error
		if cfg.Set, err = SplitFile(cfg.Split); err != nil {
			return nil, err
		}
	}
	set, err := ReadSet(cfg.Set)
	if err != nil {
		return nil, err
	}
	// Every run is read first: a run that cannot be read stops the
	// comparison before any evaluation (unless Scanned lets it).
	finished := func(dir string) ([]runcompare.RunDir[Run], error) {
		dirs, err := ScanRuns(dir)
		if err != nil {
			return nil, fmt.Errorf("rna compare: %w", err)
		}
		var ok []runcompare.RunDir[Run]
		for _, d := range dirs {
			name := d.Name // Against's runs by their path
			if dir != cfg.Runs {
				name = filepath.Join(dir, d.Name)
			}
			switch d.State {
			case runcompare.Unreadable:
				if cfg.Unreadable != nil {
					cfg.Unreadable(name, d.Err)
				}
			case runcompare.Training:
				fmt.Fprintf(log, "rna compare: %s: still training (%d steps), left out\n", name, d.Run.Steps)
			case runcompare.Finished:
				ok = append(ok, d)
			}
		}
		return ok, nil
	}
	ok, err := finished(cfg.Runs)
	if err != nil {
		return nil, err
	}
	var okB []runcompare.RunDir[Run]
	if cfg.Against != "" {
		if okB, err = finished(cfg.Against); err != nil {
			return nil, err
		}
	}
	if cfg.Scanned != nil {
		if err := cfg.Scanned(); err != nil {
			return nil, err
		}
	}
	all := append(append([]runcompare.RunDir[Run](nil), ok...), okB...)
	train, err := ReadSetList(cfg.Train)
	if err != nil {
		return nil, err
	}
	refs := TemplateRefs(train)
	for _, f := range all {
		if f.Run.Model.Record.UsesTemplates() {
			if err := AttachTemplates(ctx, set, refs, false, 0); err != nil {
				return nil, err
			}
			break
		}
	}
	for _, f := range all {
		if f.Run.Model.Record.UsesEnergy() {
			if err := AttachMissingMFE(ctx, set, cfg.MFECache, cfg.Progress); err != nil {
				return nil, err
			}
			break
		}
	}
	score := func(ok []runcompare.RunDir[Run]) ([]runcompare.Run, error) {
		var runs []runcompare.Run
		for _, f := range ok {
			r, err := ScoreRun(f.Path, f.Run, cfg.Split, set, cfg.Decoder)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
			mr := f.Run.Model.Record
			fmt.Fprintf(log, "rna compare: %s: %s seed %d (best step %d)\n", f.Path, mr.Kind, mr.Seed, mr.Step)
		}
		return runs, nil
	}
	runs, err := score(ok)
	if err != nil {
		return nil, err
	}
	disjoint := Disjoint(Overlaps(set, train))
	var outs []Comparison
	if cfg.Against != "" {
		runsB, err := score(okB)
		if err != nil {
			return nil, err
		}
		if outs, err = CompareSides(runs, runsB, filepath.Base(filepath.Clean(cfg.Runs)), filepath.Base(filepath.Clean(cfg.Against)), disjoint, cfg.Split, cfg.Set, cfg.Resamples); err != nil {
			return nil, err
		}
		if len(outs) == 0 {
			return nil, fmt.Errorf("rna compare: no kind with finished runs in both %s and %s", cfg.Runs, cfg.Against)
		}
		return outs, nil
	}
	var baselines []runcompare.Run
	if cfg.Baselines {
		if baselines, err = BaselineRuns(set, refs); err != nil {
			return nil, err
		}
	}
	if outs, err = CompareRuns(runs, baselines, disjoint, cfg.Split, cfg.Set, cfg.Resamples); err != nil {
		return nil, err
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("rna compare: no finished run in %s", cfg.Runs)
	}
	return outs, nil
}

// WriteComparisons writes the comparisons of rna compare: each one's
// table to w, followed by a blank line, and its files out+Suffix.md and
// .json (runcompare.Result.WriteFiles; the SCNN against CNN comparison
// on all molecules with PaperTable beside it, unless against), each
// pair of files first passed to check, whose error (a file there not
// to be overwritten) stops the writing.
func WriteComparisons(w io.Writer, outs []Comparison, out string, against bool, check func(md, json string) error) error {
	for _, o := range outs {
		if err := o.Result.Markdown(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
		extra := ""
		if o.Suffix == "" && !against { // SCNN against CNN on all molecules
			extra = PaperTable
		}
		if err := check(out+o.Suffix+".md", out+o.Suffix+".json"); err != nil {
			return err
		}
		if err := o.Result.WriteFiles(out+o.Suffix, extra); err != nil {
			return err
		}
	}
	return nil
}
