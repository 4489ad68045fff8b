package ssnet

import (
	"fmt"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/homology"
)

// Threshold is the paper's decoding threshold on pair probabilities.
const Threshold = 0.5

// MolScore is one molecule's scores.
type MolScore struct {
	Name   string    `json:"name"`
	Family string    `json:"family"`
	Len    int       `json:"length"`
	Exact  rna.Score `json:"exact"`
	Shift  rna.Score `json:"shift"` // one-position slip allowed
}

// Predictor turns a molecule's sequence into a predicted structure.
type Predictor func(m *Molecule) (*rna.Structure, error)

// Decoder turns pair probabilities into a structure.
type Decoder string

const (
	// Greedy is the paper's rule: the most probable pairs above
	// Threshold, each base at most once (rna.Decode); any pair, crossing
	// or not.
	Greedy Decoder = "greedy"
	// MEA is the maximum expected accuracy structure (rna.DecodeMEA,
	// gamma 1): nested, canonical and wobble pairs, hairpins of at least
	// three bases.
	MEA Decoder = "mea"
	// MEAKnots is MEA with a second, crossing layer of pairs above 0.5
	// among the bases MEA left unpaired.
	MEAKnots Decoder = "mea-pk"
)

// Decoders are every decoder, the paper's first.
var Decoders = []Decoder{Greedy, MEA, MEAKnots}

// ParseDecoder reads a decoder's name.
func ParseDecoder(s string) (Decoder, error) {
	for _, d := range Decoders {
		if Decoder(s) == d {
			return d, nil
		}
	}
	return "", fmt.Errorf("ssnet: unknown decoder %q (greedy, mea or mea-pk)", s)
}

// Decode decodes a symmetric L x L probability map of seq.
func (d Decoder) Decode(name, seq string, p []float32) (*rna.Structure, error) {
	switch d {
	case Greedy:
		return rna.Decode(name, seq, p, Threshold)
	case MEA:
		return rna.DecodeMEA(name, seq, p, rna.DecodeOptions{Gamma: 1})
	case MEAKnots:
		return rna.DecodeMEA(name, seq, p, rna.DecodeOptions{Gamma: 1, Pseudoknots: true})
	}
	return nil, fmt.Errorf("ssnet: unknown decoder %q", string(d))
}

// ModelPredictor decodes the model's probabilities greedily (the
// authors' rule) at Threshold.
func ModelPredictor(m *Model, workers int) Predictor { return DecodedPredictor(m, workers, Greedy) }

// DecodedPredictor predicts with the model and decodes with d. A model
// with template channels reads the molecule's attached template
// (AttachTemplates), which must be there.
func DecodedPredictor(m *Model, workers int, d Decoder) Predictor {
	return func(mol *Molecule) (*rna.Structure, error) {
		p, err := m.ProbabilitiesFor(mol, workers)
		if err != nil {
			return nil, err
		}
		return d.Decode(mol.Name, mol.Seq, p)
	}
}

// MFEPredictor is the thermodynamic baseline: the minimum free energy
// structure under the Turner 2004 parameters with RNAfold's defaults
// (package rna/fold).
func MFEPredictor() Predictor {
	return func(mol *Molecule) (*rna.Structure, error) {
		s, _, err := fold.MFE(mol.Seq)
		if err != nil {
			return nil, err
		}
		s.Name = mol.Name
		return s, nil
	}
}

// CentroidPredictor is the thermodynamic ensemble's baseline: the
// centroid structure (the pairs of probability above 1/2) of the Turner
// 2004 ensemble with RNAfold's defaults, as RNAfold -p reports it
// (package rna/fold), the model-free decoder reported strongest on
// families a method never saw.
func CentroidPredictor() Predictor {
	return func(mol *Molecule) (*rna.Structure, error) {
		e, err := fold.Partition(mol.Seq)
		if err != nil {
			return nil, err
		}
		s, _ := e.Centroid()
		s.Name = mol.Name
		return s, nil
	}
}

// HomologyRank is how homology transfer, the model-free baseline, ranks
// the candidates of its prefilter: by Jaccard similarity of the K-mer
// sets, chosen on validation (experiments/rna-families/homology-rank:
// VL0 F1 0.560 by shared K-mers, 0.617 by Jaccard, with the 16S and TR0
// references; 16S validation 0.954 either way). The template networks
// keep the ranking they were trained with (the index's own, RankShared
// by default).
const HomologyRank = homology.RankJaccard

// HomologyPredictor is the model-free homology transfer from ix's
// references (package homology): the pairs of the most similar
// reference, carried through a global alignment, its candidates ranked
// by HomologyRank whatever ix's own Rank.
func HomologyPredictor(ix *homology.Index) Predictor {
	ix = ix.WithRank(HomologyRank)
	return func(mol *Molecule) (*rna.Structure, error) {
		s, _, err := ix.Predict(mol.Name, mol.Seq, nil)
		return s, err
	}
}

// BaselinePredictor is the model-free stacking baseline.
func BaselinePredictor() Predictor {
	return func(mol *Molecule) (*rna.Structure, error) { return rna.StackingBaseline(mol.Name, mol.Seq) }
}

// EvaluateDecoders predicts every molecule once with the model and
// scores each decoder's structure of it: out[d] are decoder ds[d]'s
// scores. A model with template channels reads the molecules' attached
// templates. progress (may be nil) is called after each molecule.
func EvaluateDecoders(set []Molecule, m *Model, workers int, ds []Decoder, progress func()) ([][]MolScore, error) {
	out := make([][]MolScore, len(ds))
	for i := range set {
		mol := &set[i]
		p, err := m.ProbabilitiesFor(mol, workers)
		if err != nil {
			return nil, err
		}
		for k, d := range ds {
			s, err := d.Decode(mol.Name, mol.Seq, p)
			if err != nil {
				return nil, fmt.Errorf("ssnet: %s: %w", mol.Name, err)
			}
			out[k] = append(out[k], score(mol, s))
		}
		if progress != nil {
			progress()
		}
	}
	return out, nil
}

func score(m *Molecule, s *rna.Structure) MolScore {
	return MolScore{Name: m.Name, Family: m.Family, Len: len(m.Seq),
		Exact: rna.Compare(s, m.Structure, false), Shift: rna.Compare(s, m.Structure, true)}
}

// Evaluate predicts and scores every molecule; progress (may be nil) is
// called after each.
func Evaluate(set []Molecule, pred Predictor, progress func()) ([]MolScore, error) {
	out := make([]MolScore, 0, len(set))
	for i := range set {
		m := &set[i]
		s, err := pred(m)
		if err != nil {
			return nil, fmt.Errorf("ssnet: %s: %w", m.Name, err)
		}
		out = append(out, score(m, s))
		if progress != nil {
			progress()
		}
	}
	return out, nil
}

// Means are per-molecule scores averaged over molecules (as the authors
// average).
type Means struct {
	PPV      float64 `json:"ppv"`
	Sens     float64 `json:"sensitivity"`
	Accuracy float64 `json:"accuracy"` // (PPV + Sens) / 2, the paper's
	F1       float64 `json:"f1"`
	MCC      float64 `json:"mcc"`
}

func (m *Means) add(s rna.Score) {
	m.PPV += s.PPV
	m.Sens += s.Sens
	m.Accuracy += s.Accuracy
	m.F1 += s.F1
	m.MCC += s.MCC
}

func (m *Means) div(n float64) {
	m.PPV /= n
	m.Sens /= n
	m.Accuracy /= n
	m.F1 /= n
	m.MCC /= n
}

// Summary is one group's means, exact and with a one-position slip.
type Summary struct {
	Group string `json:"group"`
	N     int    `json:"molecules"`
	Exact Means  `json:"exact"`
	Shift Means  `json:"shift"`
}

// Summarize averages scores over all molecules ("all") and, when there is
// more than one family, per family in the order families first appear.
func Summarize(scores []MolScore) []Summary {
	groups := map[string][]MolScore{}
	var order []string
	for _, s := range scores {
		if s.Family != "" {
			if _, ok := groups[s.Family]; !ok {
				order = append(order, s.Family)
			}
			groups[s.Family] = append(groups[s.Family], s)
		}
	}
	out := []Summary{summarize("all", scores)}
	if len(order) > 1 {
		for _, g := range order {
			out = append(out, summarize(g, groups[g]))
		}
	}
	return out
}

func summarize(group string, ss []MolScore) Summary {
	s := Summary{Group: group, N: len(ss)}
	for _, m := range ss {
		s.Exact.add(m.Exact)
		s.Shift.add(m.Shift)
	}
	if n := float64(len(ss)); n > 0 {
		s.Exact.div(n)
		s.Shift.div(n)
	}
	return s
}
