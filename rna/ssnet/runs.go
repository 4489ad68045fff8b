package ssnet

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/runcompare"
	"github.com/contactmap/contactmap/rna/homology"
)

// Run is what a directory of runs says of one run (ScanRuns).
type Run struct {
	Seconds float64 // training time over all sessions
	Steps   int     // steps trained
	Model   *Model  // the selected model of a finished run; nil otherwise
}

// ScanRuns reads the run directories under dir (each with checkpoint.scnn
// and model.scnn), in name order. A directory with neither file is no
// run; a run short of its protocol's steps is training (Run.Steps says
// how far it is); a run whose checkpoint or model cannot be read is
// Unreadable, with the reason. The error is the reading of dir itself.
func ScanRuns(dir string) ([]runcompare.RunDir[Run], error) {
	return runcompare.ScanRuns(dir, func(path string) (Run, runcompare.RunState, error) {
		var r Run
		model := filepath.Join(path, ModelFile)
		var done bool
		var err error
		r.Seconds, r.Steps, done, err = RunInfo(path)
		switch {
		case errors.Is(err, os.ErrNotExist) && !exists(model):
			return r, runcompare.NoRun, nil
		case err != nil:
			return r, runcompare.Unreadable, err
		case !done:
			return r, runcompare.Training, nil
		}
		if r.Model, err = Load(model); err != nil {
			return r, runcompare.Unreadable, err
		}
		return r, runcompare.Finished, nil
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// CompareMetrics are the names of the per-molecule scores of a
// comparison run (MoleculeRun), in order.
func CompareMetrics() []string {
	return []string{"accuracy (PPV+Sens)/2", "PPV", "sensitivity", "F1", "MCC", "F1 ±1", "MCC ±1"}
}

// baselineMetrics are the metrics of a kind's comparison with a
// model-free baseline.
var baselineMetrics = []string{"F1", "accuracy (PPV+Sens)/2", "PPV", "sensitivity"}

// MoleculeRun returns a comparison run's items (the molecules) and
// scores (CompareMetrics) from per-molecule scores, in order.
func MoleculeRun(r runcompare.Run, scores []MolScore) runcompare.Run {
	names := CompareMetrics()
	r.Items, r.Scores = nil, map[string][]float64{}
	for _, s := range scores {
		r.Items = append(r.Items, s.Name)
		for i, v := range []float64{s.Exact.Accuracy, s.Exact.PPV, s.Exact.Sens, s.Exact.F1, s.Exact.MCC, s.Shift.F1, s.Shift.MCC} {
			r.Scores[names[i]] = append(r.Scores[names[i]], v)
		}
	}
	return r
}

// ScoreRun scores a finished run (ScanRuns) in dir on a set under a
// decoder, through the run's score cache (RunScores, split naming it),
// as a comparison run of its kind and seed.
func ScoreRun(dir string, r Run, split string, set []Molecule, d Decoder) (runcompare.Run, error) {
	m := r.Model
	scores, err := RunScores(dir, split, set, m, d)
	if err != nil {
		return runcompare.Run{}, fmt.Errorf("%s: %w", dir, err)
	}
	return MoleculeRun(runcompare.Run{Kind: string(m.Record.Kind), Seed: int(m.Record.Seed), Params: m.Net.Trainable(),
		TrainSec: r.Seconds, Epochs: r.Steps}, scores), nil
}

// RunScores evaluates a run's model on a split once: the per-molecule
// scores are kept in the run directory (scores-SPLIT.json under the
// greedy decoder, scores-SPLIT-DECODER.json under another) with the
// SHA-256 of the model file they came from, and read back while it is
// unchanged, so a comparison can be taken as runs finish without
// predicting a split twice with one model.
func RunScores(dir, split string, set []Molecule, m *Model, d Decoder) ([]MolScore, error) {
	data, err := os.ReadFile(filepath.Join(dir, ModelFile))
	if err != nil {
		return nil, err
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(data))
	cache := filepath.Join(dir, "scores-"+split+".json") // greedy: the name of the runs before other decoders
	if d != Greedy {
		cache = filepath.Join(dir, "scores-"+split+"-"+string(d)+".json")
	}
	type cached struct {
		ModelSHA256 string     `json:"model_sha256"`
		Scores      []MolScore `json:"scores"`
	}
	var c cached
	if b, err := os.ReadFile(cache); err == nil && json.Unmarshal(b, &c) == nil && c.ModelSHA256 == sum && sameMolecules(c.Scores, set) {
		return c.Scores, nil
	}
	scores, err := Evaluate(set, DecodedPredictor(m, 0, d), nil)
	if err != nil {
		return nil, err
	}
	c = cached{ModelSHA256: sum, Scores: scores}
	if err := fileio.WriteAtomic(cache, func(w io.Writer) error { return json.NewEncoder(w).Encode(c) }); err != nil {
		return nil, err
	}
	return scores, nil
}

// sameMolecules reports whether cached scores are of the set's molecules,
// in order: another set evaluated under the same split name (--set) has
// other molecules, and its scores must not be read back.
func sameMolecules(scores []MolScore, set []Molecule) bool {
	if len(scores) != len(set) {
		return false
	}
	for k := range set {
		if scores[k].Name != set[k].Name || scores[k].Len != len(set[k].Seq) {
			return false
		}
	}
	return true
}

// BaselineRuns scores the model-free baselines (Baselines: stacking,
// mfe, centroid, mea-pf, homology transfer from refs) on a set as comparison
// runs of their methods' names, seed 0.
func BaselineRuns(set []Molecule, refs *homology.Index) ([]runcompare.Run, error) {
	var runs []runcompare.Run
	for _, b := range Baselines() {
		scores, err := Evaluate(set, b.New(MethodOptions{Refs: refs}).Predictor(), nil)
		if err != nil {
			return nil, err
		}
		runs = append(runs, MoleculeRun(runcompare.Run{Kind: b.Name}, scores))
	}
	return runs, nil
}

// Comparison is one comparison of RNA runs: Suffix names it after the
// report's name ("" for SCNN against CNN on all molecules; "-disjoint"
// on the molecules without a near-identical training molecule;
// "-vs-KIND-BASELINE" and "-disjoint-vs-KIND-BASELINE" for a kind
// against a baseline).
type Comparison struct {
	Suffix string
	Result *runcompare.Result
}

// CompareRuns compares the SCNN runs with the CNN runs (when there are
// both), and the runs of each kind with each baseline (BaselineRuns: a
// baseline enters each comparison as a run of every seed, the same
// scores, so that a kind's paired differences against it have the seeds'
// spread and intervals over molecules), on all molecules and on those
// disjoint (Disjoint) holds. split and set name the split and the file
// of the molecules in the results. No comparison is no error.
func CompareRuns(runs, baselines []runcompare.Run, disjoint map[string]bool, split, set string, resamples int) ([]Comparison, error) {
	kinds := map[string]bool{}
	for _, r := range runs {
		kinds[r.Kind] = true
	}
	disLabel := fmt.Sprintf(" (the molecules under %.0f%% identity to every training molecule)", 100*NearIdentical)
	var out []Comparison
	for _, sub := range []struct {
		suffix, label string
		runs, base    []runcompare.Run
	}{
		{"", "", runs, baselines},
		{"-disjoint", disLabel, runcompare.OnlyItems(runs, disjoint), runcompare.OnlyItems(baselines, disjoint)},
	} {
		if kinds[string(CNN)] && kinds[string(SCNN)] {
			res, err := runcompare.Compare(sub.runs, CompareMetrics(), string(CNN), string(SCNN), resamples, 1)
			if err != nil {
				return nil, err
			}
			res.Split, res.Features, res.Unit = split+sub.label, set, "molecules"
			out = append(out, Comparison{sub.suffix, res})
		}
		for _, b := range sub.base {
			for _, k := range []Kind{CNN, SCNN} {
				var rs []runcompare.Run
				for _, r := range sub.runs {
					if r.Kind == string(k) {
						rb := b
						rb.Seed = r.Seed
						rs = append(rs, r, rb)
					}
				}
				if len(rs) == 0 {
					continue
				}
				res, err := runcompare.Compare(rs, baselineMetrics, b.Kind, string(k), resamples, 1)
				if err != nil {
					return nil, err
				}
				res.Split, res.Features, res.Unit = split+sub.label, set, "molecules"
				out = append(out, Comparison{fmt.Sprintf("%s-vs-%s-%s", sub.suffix, k, b.Kind), res})
			}
		}
	}
	return out, nil
}

// CompareSides compares two sets of runs kind by kind, paired by seed:
// each kind's runs of a (labelled labelA) against that kind's runs of b
// (labelB), for example the same recipe trained in two precisions, on
// all molecules and on those disjoint holds. The results' kinds read
// "KIND (LABEL)"; Suffix is "-KIND" and "-disjoint-KIND". A kind on one
// side only is left out; no comparison is no error.
func CompareSides(a, b []runcompare.Run, labelA, labelB string, disjoint map[string]bool, split, set string, resamples int) ([]Comparison, error) {
	label := func(rs []runcompare.Run, l string) map[Kind][]runcompare.Run {
		out := map[Kind][]runcompare.Run{}
		for _, r := range rs {
			k := Kind(r.Kind)
			r.Kind = fmt.Sprintf("%s (%s)", k, l)
			out[k] = append(out[k], r)
		}
		return out
	}
	la, lb := label(a, labelA), label(b, labelB)
	disLabel := fmt.Sprintf(" (the molecules under %.0f%% identity to every training molecule)", 100*NearIdentical)
	var out []Comparison
	for _, k := range []Kind{SCNN, CNN} {
		if len(la[k]) == 0 || len(lb[k]) == 0 {
			continue
		}
		runs := append(append([]runcompare.Run(nil), lb[k]...), la[k]...)
		for _, sub := range []struct {
			suffix, label string
			runs          []runcompare.Run
		}{
			{"-" + string(k), "", runs},
			{"-disjoint-" + string(k), disLabel, runcompare.OnlyItems(runs, disjoint)},
		} {
			res, err := runcompare.Compare(sub.runs, CompareMetrics(), fmt.Sprintf("%s (%s)", k, labelB), fmt.Sprintf("%s (%s)", k, labelA), resamples, 1)
			if err != nil {
				return nil, err
			}
			res.Split, res.Features, res.Unit = split+sub.label, set, "molecules"
			out = append(out, Comparison{sub.suffix, res})
		}
	}
	return out, nil
}

// EvalRow is one predictor's scores in an evaluation: its summaries on
// all molecules and on the molecules without a near-identical training
// molecule, and the per-molecule scores.
type EvalRow struct {
	Name      string    `json:"name"`
	Params    int       `json:"params,omitempty"`
	Summaries []Summary `json:"all_test"`
	Disjoint  []Summary `json:"no_overlap"`
	Scores    []MolScore
}

// NewEvalRow summarises a predictor's scores on all molecules and on
// those disjoint holds (Disjoint).
func NewEvalRow(name string, params int, scores []MolScore, disjoint map[string]bool) EvalRow {
	var dis []MolScore
	for _, s := range scores {
		if disjoint[s.Name] {
			dis = append(dis, s)
		}
	}
	return EvalRow{Name: name, Params: params, Summaries: Summarize(scores), Disjoint: Summarize(dis), Scores: scores}
}

// DefaultMFECache is the MFE cache file in the user's cache directory,
// or "" where there is none.
func DefaultMFECache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "contactmap", "rna-mfe.tsv.gz")
}

// AttachMFECached attaches the MFE structures of sets (AttachMFE, on
// parallel goroutines; progress, which may be nil, after each molecule)
// through the cache file cacheFile ("": none): read before, written back
// when it gained structures, an interrupted call's (ctx cancelled) too,
// so that no finished fold is lost.
func AttachMFECached(ctx context.Context, cacheFile string, parallel int, progress func(), sets ...[]Molecule) error {
	cache := NewMFECache()
	if cacheFile != "" {
		var err error
		if cache, err = ReadMFECache(cacheFile); err != nil {
			return err
		}
	}
	var err error
	for _, set := range sets {
		if err = AttachMFE(ctx, set, cache, parallel, progress); err != nil {
			break
		}
	}
	if cacheFile != "" && cache.Changed() {
		err = errors.Join(err, cache.Write(cacheFile))
	}
	return err
}
