package ssnet

import (
	"context"
	"fmt"
	"math"

	"github.com/contactmap/contactmap/rna/fold"
)

// HybridClamp bounds the network probabilities whose log-odds become
// pair bonuses (HybridProbabilities): P is taken in [HybridClamp,
// 1 - HybridClamp], so that |logit P| is at most 9.2.
const HybridClamp = 1e-4

// HybridMaxLogit is the largest |z| of a logit taken as a pair bonus,
// logit(1 - HybridClamp), so that training and HybridProbabilities clamp
// alike; HybridMaxAlpha is the largest alpha whose bonuses stay within
// fold.MaxPairBonus.
var (
	HybridMaxLogit = math.Log((1 - HybridClamp) / HybridClamp)
	HybridMaxAlpha = fold.MaxPairBonus / HybridMaxLogit
)

// HybridProbabilities returns the pair probabilities of a product of
// experts: Turner 2004's ensemble of seq (RNAfold's defaults) in which every structure's Boltzmann weight is multiplied,
// for each of its pairs (i, j), by the network's odds p_ij / (1 - p_ij)
// to the power alpha (fold.Params.PartitionBonus with the bonus
// alpha logit p_ij, p clamped to HybridClamp). This is the nested
// folding of network scores with Turner energies of MXfold2 (Sato,
// Akiyama and Sakakibara 2021), untrained: alpha 0 is McCaskill's
// ensemble, a large alpha the network's own map made nested. p is the
// network's symmetric n x n map of seq's n bases; the result is one too.
// A span limit W > 0 folds the structures whose pairs all have
// j - i + 1 <= W (fold.Params.WithMaxSpan); 0 folds globally. A model
// trained as a hybrid (Record.Hybrid) gives these probabilities with
// alpha 1 for its logits' sigmoid, under its ensemble channel's span
// rule (EnsembleFold.Span; training folds its windows globally).
func HybridProbabilities(ctx context.Context, seq string, p []float32, alpha float64, span, workers int) ([]float32, error) {
	n := len(seq)
	if len(p) != n*n {
		return nil, fmt.Errorf("ssnet: hybrid: %d probabilities for %d bases", len(p), n)
	}
	if !(alpha >= 0 && alpha <= HybridMaxAlpha) {
		return nil, fmt.Errorf("ssnet: hybrid: alpha %g (want 0..%.2f)", alpha, HybridMaxAlpha)
	}
	bonus := func(i, j int) float64 {
		q := min(max(float64(p[i*n+j]), HybridClamp), 1-HybridClamp)
		return alpha * math.Log(q/(1-q))
	}
	par := fold.DefaultParams()
	if span > 0 {
		par = par.WithMaxSpan(span)
	}
	e, err := par.PartitionBonus(ctx, seq, bonus, workers)
	if err != nil {
		return nil, fmt.Errorf("ssnet: hybrid: %w", err)
	}
	return e.Probabilities(), nil
}
