package main

import (
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// meanPredictor decodes, by d, the mean of the pair probabilities of
// the networks ms for a molecule (its template, MFE and ensemble
// channels attached once for all of them, as -score attaches them):
// trial 12's seed ensemble, as `rna predict` with repeated --model
// decodes one.
func meanPredictor(ms []*ssnet.Model, d ssnet.Decoder) ssnet.Predictor {
	return func(mol *ssnet.Molecule) (*rna.Structure, error) {
		qs := make([][]float32, len(ms))
		for i, m := range ms {
			var err error
			if qs[i], err = m.ProbabilitiesFor(mol, 1); err != nil {
				return nil, err
			}
		}
		return d.Decode(mol.Name, mol.Seq, ssnet.MeanProbabilities(qs))
	}
}
