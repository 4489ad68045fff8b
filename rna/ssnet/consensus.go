package ssnet

import (
	"context"
	"fmt"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/consensus"
	"github.com/contactmap/contactmap/rna/homology"
)

// A HomologFinder finds a molecule's homologs for the consensus
// (package rna/consensus): the rows of a search of a sequence database
// that consensus.Select keeps. rna predict --db's is an nhmmer search
// (pipeline/search).
type HomologFinder func(ctx context.Context, name, seq string) ([]consensus.Homolog, error)

// The consensus's settings, those selected and judged in
// experiments/rna-holdout (trials 16 and 17): the consensus map alone
// (w 1) decoded by rna.DecodeMEA with gamma ConsensusGamma; every
// ensemble (the query's own for the consensus method, each homolog's)
// under ConsensusFold; a molecule of more than ConsensusMaxLen bases
// gets no consensus (no validation molecule was longer, and the folds
// of 20 homologs of a 1,500-nt rRNA take minutes).
const (
	ConsensusGamma  = 2
	ConsensusMaxLen = 600
)

// ConsensusFold is the rule of the consensus's ensembles: global folds
// up to 600 bases, as the trials' (and the shipped network's channel).
var ConsensusFold = EnsembleFold{Global: 600}

// ConsensusBytes is the consensus method's peak memory for a molecule
// of l bases: the query's fold under ConsensusFold (the homologs are
// folded one at a time after it; a homolog is taken to be of about the
// query's length, and one with long insertions needs more than this
// counts, banded above 600 nt as the query is), its
// dense float32 map, the MEA decoder's table and its candidate pairs (4
// bytes a pair each); and for a molecule of at most ConsensusMaxLen
// bases the consensus map (4 more) and the homologs' summed pairs (at
// most one map entry a pair, about 48 bytes each, half the pairs).
func ConsensusBytes(l int) int64 {
	n := int64(l)
	b := ConsensusFold.Bytes(l) + 12*n*n
	if l <= ConsensusMaxLen {
		b += 4*n*n + 24*n*n
	}
	return b
}

// ConsensusMap folds the homologs hs of the molecule (name, seq) under
// ConsensusFold and returns consensus.Support.Consensus of the query's
// own map p with them: for each pair of columns the mean of the query's
// and the homologs' probabilities over the sequences that have both
// bases. It stops between folds once ctx is done.
func ConsensusMap(ctx context.Context, name, seq string, p []float32, hs []consensus.Homolog, workers int) ([]float32, error) {
	sup, err := consensus.NewSupport(len(seq))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for k := range hs {
		ps, err := ConsensusFold.Pairs(ctx, hs[k].Seq, workers)
		if err != nil {
			return nil, fmt.Errorf("%s: homolog %s: %w", name, hs[k].Name, err)
		}
		pairs := make([]consensus.Pair, len(ps))
		for i, pp := range ps {
			pairs[i] = consensus.Pair{I: int(pp.I), J: int(pp.J), P: float64(pp.P)}
		}
		if err := sup.Add(&hs[k], pairs); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	q, err := sup.Consensus(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return q, nil
}

// DecodeConsensus decodes a consensus map: rna.DecodeMEA with gamma
// ConsensusGamma, nested canonical pairs.
func DecodeConsensus(name, seq string, q []float32) (*rna.Structure, error) {
	return rna.DecodeMEA(name, seq, q, rna.DecodeOptions{Gamma: ConsensusGamma})
}

// SeesTemplate reports whether a network of record r sees the template
// t: it takes templates, does not drop them, and t is a reference of
// identity at least r.MinIdentity. A molecule whose template a network
// sees is predicted by the network alone, with no consensus: the
// template is its strength on a family of the references (trial 10's
// amendment, kept by trial 17).
func SeesTemplate(r Record, t *homology.Template) bool {
	return r.UsesTemplates() && !r.NoTemplate && t != nil && t.Ref != nil && t.Identity >= r.MinIdentity
}

// consensusPredictor is the consensus method: the query's ensemble and
// its homologs' (o.Homologs) under ConsensusFold, their consensus
// decoded by DecodeConsensus; with no homolog, or over ConsensusMaxLen
// bases, the query's own ensemble decoded the same way.
func consensusPredictor(o MethodOptions) MethodPredictor {
	return func(ctx context.Context, mol *Molecule) (*rna.Structure, []float32, error) {
		if o.Homologs == nil {
			return nil, nil, fmt.Errorf("%w: the consensus method needs homologs: give a sequence database (--db)", ErrUsage)
		}
		name, seq := mol.Name, mol.Seq
		ps, err := ConsensusFold.Pairs(ctx, seq, o.Workers)
		if err != nil {
			return nil, nil, err
		}
		l := len(seq)
		q := make([]float32, l*l)
		for _, pp := range ps {
			q[int(pp.I)*l+int(pp.J)], q[int(pp.J)*l+int(pp.I)] = pp.P, pp.P
		}
		if l <= ConsensusMaxLen {
			hs, err := o.Homologs(ctx, name, seq)
			if err != nil {
				return nil, nil, err
			}
			if q, err = ConsensusMap(ctx, name, seq, q, hs, o.Workers); err != nil {
				return nil, nil, err
			}
		}
		s, err := DecodeConsensus(name, seq, q)
		if err != nil || !o.Map {
			return s, nil, err
		}
		return s, q, nil
	}
}
