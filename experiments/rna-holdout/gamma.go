package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// maxGamma bounds -gammas: past it rna.DecodeMEA keeps every pair of
// probability over 1/(gamma+1) < 0.01, below the ensemble channel's cut.
const maxGamma = 100

// parseGammas reads -gammas: rna.DecodeMEA's gammas, each in (0,
// maxGamma] and not 1 (NAME/mea is gamma 1), the labels (gG, G as
// strconv formats it) distinct.
func parseGammas(spec string) ([]float64, error) {
	return parseValues("-gammas", spec, fmt.Sprintf("a gamma in (0, %d] other than 1 (NAME/mea is gamma 1)", maxGamma),
		func(g float64) bool { return g > 0 && g <= maxGamma && g != 1 }, gammaLabel)
}

// gammaLabel is the decoder part of a predictor's name for gamma g.
func gammaLabel(g float64) string { return "g" + strconv.FormatFloat(g, 'g', -1, 64) }

// gammaRows scores trial 21's predictors NAME/gG on the set: each
// molecule's network probabilities (the members' mean for an ensemble,
// computed once per molecule) decoded by rna.DecodeMEA at each gamma G
// of -gammas, every molecule alike (a template the network sees
// included), as NAME/mea decodes them at gamma 1.
func gammaRows(name string, ms []*ssnet.Model, set []ssnet.Molecule) ([]string, error) {
	gammas, err := parseGammas(*gammasFlag)
	if err != nil {
		return nil, err
	}
	probs := perMolecule(func(mol *ssnet.Molecule) ([]float32, error) { return memberMean(ms, mol) })
	var rows []string
	for _, g := range gammas {
		t0 := time.Now()
		scores, err := ssnet.Evaluate(set, func(mol *ssnet.Molecule) (*rna.Structure, error) {
			p, err := probs(mol)
			if err != nil {
				return nil, err
			}
			return rna.DecodeMEA(mol.Name, mol.Seq, p, rna.DecodeOptions{Gamma: g})
		}, nil)
		if err != nil {
			return nil, err
		}
		rows = append(rows, scoreRows(name+"/"+gammaLabel(g), scores, t0)...)
	}
	return rows, nil
}
