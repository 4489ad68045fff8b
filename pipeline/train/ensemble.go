package train

import (
	"fmt"
	"math/rand/v2"

	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/scnn"
)

// checkData refuses samples of another feature mode or contact definition
// than m was trained on.
func checkData(m *model.Model, samples []*model.Sample) error {
	if len(samples) > 0 && samples[0].Mode() != m.Arch.Mode {
		return fmt.Errorf("train: model trained on %s features, data are %s", m.Arch.Mode, samples[0].Mode())
	}
	if len(samples) > 0 && samples[0].Labels.Def != m.Arch.Labels {
		return fmt.Errorf("train: model trained on %s, the features' labels are %s", m.Arch.Labels, samples[0].Labels.Def)
	}
	return nil
}

// PredictChains returns each sample's contact probabilities (L x L, row
// major, symmetric) from m, in the order of samples.
func PredictChains(m *model.Model, samples []*model.Sample, batchSize int) ([][]float32, error) {
	if err := checkData(m, samples); err != nil {
		return nil, err
	}
	out := make([][]float32, len(samples))
	for _, idx := range Batches(samples, batchSize, rand.New(rand.NewPCG(0, 0)), true) {
		b := model.NewBatch(pick(samples, idx), m.Packed())
		logits, err := m.Forward(scnn.Inference(0), b)
		if err != nil {
			return nil, err
		}
		for k, p := range model.Probabilities(logits, b.Lengths) {
			out[idx[k]] = p
		}
	}
	return out, nil
}

// EvaluateEnsemble scores the mean of the members' contact probabilities
// (a seed ensemble) chain by chain, in the order of samples:
//
//	p[i,j] = (1/M) sum_m sigmoid(z_m[i,j])
//
// (model.EnsembleMean). The members must take the samples' feature mode
// and contact definition.
func EvaluateEnsemble(members []*model.Model, samples []*model.Sample, batchSize int) ([]metrics.ChainMetrics, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("train: an ensemble of no models")
	}
	sums := make([]model.EnsembleMean, len(samples))
	for k, m := range members {
		probs, err := PredictChains(m, samples, batchSize)
		if err != nil {
			return nil, fmt.Errorf("member %d: %w", k+1, err)
		}
		for i, p := range probs {
			sums[i].Add(p)
		}
	}
	out := make([]metrics.ChainMetrics, len(samples))
	for i, s := range samples {
		out[i] = metrics.Evaluate(s.ID, sums[i].Mean(), s.Labels)
	}
	return out, nil
}
