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
		var mean []float32
		for _, m := range ms {
			p, err := m.ProbabilitiesFor(mol, 1)
			if err != nil {
				return nil, err
			}
			if mean == nil {
				mean = p
				continue
			}
			for k, v := range p {
				mean[k] += v
			}
		}
		inv := 1 / float32(len(ms))
		for k := range mean {
			mean[k] *= inv
		}
		return d.Decode(mol.Name, mol.Seq, mean)
	}
}
