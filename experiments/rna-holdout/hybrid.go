package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// hybridMaxLen is the longest molecule trial 18's hybrid folds (globally);
// a longer one is decoded from the network's probabilities alone.
const hybridMaxLen = 600

// parseAlphas reads -hybrid's exponents.
func parseAlphas(spec string) ([]float64, error) {
	return parseValues("-hybrid", spec, fmt.Sprintf("an exponent in (0, %.2f]", ssnet.HybridMaxAlpha),
		func(a float64) bool { return a > 0 && a <= ssnet.HybridMaxAlpha }, alphaLabel)
}

// alphaLabel is the decoder part of a predictor's name for exponent a.
func alphaLabel(a float64) string { return fmt.Sprintf("h%d", int(math.Round(100*a))) }

// hybridRows scores trial 18's predictors NAME/hA on the set: for each
// exponent alpha of -hybrid (A = 100 alpha), each molecule's network
// probabilities P (the members' mean for an ensemble, computed once per
// molecule) as the pair bonuses alpha logit P of Turner 2004's global
// ensemble (ssnet.HybridProbabilities), decoded by the MEA decoder. A
// molecule of more than hybridMaxLen bases, or whose template the
// network sees (hasTemplate), is decoded from P alone by the MEA
// decoder, as the blends and the consensus rows are.
func hybridRows(ctx context.Context, name string, ms []*ssnet.Model, set []ssnet.Molecule) ([]string, error) {
	alphas, err := parseAlphas(*hybridFlag)
	if err != nil {
		return nil, err
	}
	if ms[0].Record.Hybrid {
		return nil, fmt.Errorf("-hybrid %s: a model trained as a hybrid gives its ensemble's probabilities already (NAME/mea is its trial-18 form with alpha 1)", name)
	}
	probs := perMolecule(func(mol *ssnet.Molecule) ([]float32, error) { return memberMean(ms, mol) })
	var rows []string
	for _, alpha := range alphas {
		t0 := time.Now()
		label := name + "/" + alphaLabel(alpha)
		scores, err := ssnet.Evaluate(set, func(mol *ssnet.Molecule) (*rna.Structure, error) {
			p, err := probs(mol)
			if err != nil {
				return nil, err
			}
			if hasTemplate(ms[0], mol) || len(mol.Seq) > hybridMaxLen {
				return ssnet.MEA.Decode(mol.Name, mol.Seq, p)
			}
			h, err := ssnet.HybridProbabilities(ctx, mol.Seq, p, alpha, 0, 1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", mol.Name, err)
			}
			return ssnet.MEA.Decode(mol.Name, mol.Seq, h)
		}, nil)
		if err != nil {
			return nil, err
		}
		rows = append(rows, scoreRows(label, scores, t0)...)
	}
	return rows, nil
}
