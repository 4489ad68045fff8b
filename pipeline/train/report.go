package train

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/scnn"
)

// ReportRow is one predictor's line of an evaluation report.
type ReportRow struct {
	Name      string          `json:"name"`
	Kind      string          `json:"kind,omitempty"`
	Config    string          `json:"config,omitempty"`
	Params    int             `json:"params"`
	Epochs    int             `json:"epochs,omitempty"`
	BestEpoch int             `json:"best_epoch,omitempty"`
	TrainSec  float64         `json:"train_seconds,omitempty"`
	Summary   metrics.Summary `json:"metrics"`
}

// Report is the evaluation of several predictors on one split.
type Report struct {
	Split    string      `json:"split"`
	Features string      `json:"features"`
	Chains   int         `json:"chains"`
	Rows     []ReportRow `json:"rows"`
}

// EvaluateModel scores a model on samples.
func EvaluateModel(m *model.Model, samples []*model.Sample, batchSize int) (metrics.Summary, error) {
	chains, err := EvaluateChains(m, samples, batchSize)
	if err != nil {
		return metrics.Summary{}, err
	}
	return metrics.Summarize(chains), nil
}

// EvaluateChains scores a model on samples chain by chain, in the order of
// samples. The samples must have the model's feature mode and labels.
func EvaluateChains(m *model.Model, samples []*model.Sample, batchSize int) ([]metrics.ChainMetrics, error) {
	if err := checkData(m, samples); err != nil {
		return nil, err
	}
	r, err := evaluate(m, samples, batchSize, 0, scnn.WeightedBCE{PosWeight: 5})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]metrics.ChainMetrics, len(r.Chains))
	for _, c := range r.Chains {
		byID[c.ID] = c
	}
	out := make([]metrics.ChainMetrics, len(samples))
	for i, s := range samples {
		out[i] = byID[s.ID]
	}
	return out, nil
}

// EvaluateBaselines scores the near-diagonal and random predictors.
func EvaluateBaselines(samples []*model.Sample) []ReportRow {
	var diag, rnd []metrics.ChainMetrics
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range samples {
		l := s.L()
		diag = append(diag, metrics.Evaluate(s.ID, metrics.NearDiagonalBaseline(l), s.Labels))
		rnd = append(rnd, metrics.Evaluate(s.ID, metrics.RandomBaseline(l, rng), s.Labels))
	}
	return []ReportRow{
		{Name: "baseline: contact iff sep <= 2", Summary: metrics.Summarize(diag)},
		{Name: "baseline: random scores", Summary: metrics.Summarize(rnd)},
	}
}

// RunInfo reads the training log of a model file: epochs run and total
// training seconds (0, 0 if there is none). The log is train_log.tsv in
// the model's run directory, or <model>.train_log.tsv beside a shipped
// model (models/scnn.scnn -> models/scnn.train_log.tsv).
func RunInfo(modelPath string) (epochs int, seconds float64) {
	f, err := os.Open(filepath.Join(filepath.Dir(modelPath), LogFile))
	if err != nil {
		if f, err = os.Open(strings.TrimSuffix(modelPath, filepath.Ext(modelPath)) + "." + LogFile); err != nil {
			return 0, 0
		}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) < 7 || fs[0] == "epoch" {
			continue
		}
		if v, err := strconv.ParseFloat(fs[6], 64); err == nil {
			epochs++
			seconds += v
		}
	}
	return epochs, seconds
}

// WriteReport writes path.md (a Markdown table) and path.json, making
// the directory they go in.
func WriteReport(path string, r *Report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := fileio.WriteAtomic(path+".json", func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(r)
	}); err != nil {
		return err
	}
	return fileio.WriteAtomic(path+".md", func(w io.Writer) error { return r.Markdown(w) })
}

// Markdown writes the report as tables.
func (r *Report) Markdown(w io.Writer) error {
	fmt.Fprintf(w, "Evaluation on the %s split of %s (%d chains), averaged per chain.\n\n", r.Split, r.Features, r.Chains)
	fmt.Fprintln(w, "| predictor | params | epochs (best) | train time | PPV | sensitivity | accuracy (PPV+Sen)/2 |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, row := range r.Rows {
		ep, tt, ps := "", "", ""
		if row.Epochs > 0 {
			ep = fmt.Sprintf("%d (%d)", row.Epochs, row.BestEpoch)
			tt = fmt.Sprintf("%.1f min", row.TrainSec/60)
		}
		if row.Params > 0 {
			ps = fmt.Sprint(row.Params)
		}
		s := row.Summary
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.3f | %.3f | %.3f |\n", row.Name, ps, ep, tt, s.PPV, s.Sens, s.Accuracy)
	}
	fmt.Fprint(w, "\nPrecision of the top-L/k predicted pairs by sequence separation (short 6-11, medium 12-23, long >= 24):\n\n")
	fmt.Fprint(w, "| predictor |")
	for _, rg := range metrics.Ranges {
		for _, k := range metrics.TopFractions {
			fmt.Fprintf(w, " %s L/%d |", rg.Name, k)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|")
	for range len(metrics.Ranges) * len(metrics.TopFractions) {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, row := range r.Rows {
		fmt.Fprintf(w, "| %s |", row.Name)
		for ri := range metrics.Ranges {
			for fi := range metrics.TopFractions {
				fmt.Fprintf(w, " %.3f |", row.Summary.TopL[ri][fi])
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}

// Finished reports whether the run in dir has ended (its checkpoint says
// so: early stop, the epoch limit, or its time budget spent; a run
// stopped by its budget may be resumed with a larger one). A run keeps
// its checkpoint when it ends, so the file's presence alone does not mean
// it is still training.
func Finished(dir string) (bool, error) {
	st, err := Info(dir)
	if err != nil {
		return false, err
	}
	return st.Done || st.Stop != "", nil
}
