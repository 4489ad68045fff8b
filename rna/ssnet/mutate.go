package ssnet

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/contactmap/contactmap/rna"
)

// Structure-preserving mutation (the compensatory changes that
// comparative analysis reads structure from, and that the family-fold
// benchmarks show networks fail to generalise across: Szikszai et al.
// 2022, Bioinformatics 38:3892; Sato et al. 2021, MXfold2): a training
// molecule whose canonical pairs are swapped for other canonical pairs and
// whose unpaired bases are changed keeps its structure, so a network fed
// such mutants cannot learn a family from its sequence alone.

// mutantPairs are the canonical pairs a pair is swapped for, with their
// weights: the four Watson-Crick pairs each 2, the wobble pairs each 1.
var mutantPairs = [...]struct {
	a, b byte
	w    int
}{{'A', 'U', 2}, {'U', 'A', 2}, {'G', 'C', 2}, {'C', 'G', 2}, {'G', 'U', 1}, {'U', 'G', 1}}

const mutantPairWeight = 10 // the sum of mutantPairs' weights

// Mutant returns a copy of mol with the same structure and a mutated
// sequence: each canonical base pair (A-U, G-C, G-U either way round) is
// replaced, with probability rate, by a canonical pair drawn from A-U,
// U-A, G-C and C-G (weight 2 each) and G-U, U-G (weight 1 each), which may
// be the pair it was; each unpaired base of A, C, G, U is replaced, with
// probability rate, by one of the other three, uniformly. Non-canonical
// pairs and bases other than A, C, G, U are kept. The copy's Name, Family,
// Group and Template are mol's; its MFE and Ensemble are nil (they belong
// to the sequence: MutantChannels computes them).
func Mutant(mol *Molecule, rate float64, rng *rand.Rand) *Molecule {
	seq := []byte(mol.Seq)
	for i, j := range mol.Partner {
		switch {
		case j < 0:
			if c := rna.BaseCode(seq[i]); c >= 0 && rng.Float64() < rate {
				seq[i] = "ACGU"[(c+1+rng.IntN(3))%4]
			}
		case j > i && canPair(seq[i], seq[j]):
			if rng.Float64() < rate {
				r := rng.IntN(mutantPairWeight)
				for _, p := range mutantPairs {
					if r < p.w {
						seq[i], seq[j] = p.a, p.b
						break
					}
					r -= p.w
				}
			}
		}
	}
	s := *mol.Structure
	s.Seq = string(seq)
	s.Energy = nil
	out := *mol
	out.Structure = &s
	out.MFE, out.Ensemble, out.EnsembleAt = nil, nil, nil
	return &out
}

// MutantChannels computes a molecule's energy and ensemble channels from
// its own sequence, as AttachMFE and AttachEnsemble would without a
// cache: the MFE partners (fold's defaults) when energy is set, the
// ensemble channel's pairs under each rule of ensembles (f.Pairs; the
// 37 C one and a network's further ones, Record.EnsembleFolds), each on
// one goroutine.
func MutantChannels(ctx context.Context, mol *Molecule, energy bool, ensembles []EnsembleFold) error {
	if energy {
		mfe, err := MFEPartners(mol.Seq, 1)
		if err != nil {
			return fmt.Errorf("ssnet: %s (mutant): %w", mol.Name, err)
		}
		mol.MFE = mfe
	}
	for _, f := range ensembles {
		ps, err := f.Pairs(ctx, mol.Seq, 1)
		if err != nil {
			return fmt.Errorf("ssnet: %s (mutant): %w", mol.Name, err)
		}
		mol.SetEnsemble(f, ps)
	}
	return nil
}
