package ssnet

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

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

// Predictor turns a molecule's sequence into a predicted structure. A
// predictor must be safe for concurrent use: Evaluate calls it on
// parallel goroutines, each with its own molecule.
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
// (AttachTemplates), which must be there. Its convolutions run on
// workers goroutines (0: runtime.GOMAXPROCS(0)), and at most
// inferenceSlots(workers) molecules are in the network at once however
// many goroutines call the predictor (Evaluate's), so that the cores and
// the memory of one molecule at a time serve the default.
func DecodedPredictor(m *Model, workers int, d Decoder) Predictor {
	slots := make(chan struct{}, inferenceSlots(workers))
	return func(mol *Molecule) (*rna.Structure, error) {
		slots <- struct{}{}
		p, err := m.ProbabilitiesFor(mol, workers)
		<-slots
		if err != nil {
			return nil, err
		}
		return d.Decode(mol.Name, mol.Seq, p)
	}
}

// MFEPredictor is the thermodynamic baseline: the minimum free energy
// structure under the Turner 2004 parameters with RNAfold's defaults
// (package rna/fold). A molecule with its MFE structure attached
// (Molecule.MFE, from AttachMFE: the same fold with the same default
// parameters, whose structure does not depend on the number of
// goroutines) is not folded again: its attached partners are the
// structure.
func MFEPredictor() Predictor {
	return func(mol *Molecule) (*rna.Structure, error) {
		if mol.MFE != nil {
			return mfeStructure(mol)
		}
		s, _, err := fold.MFE(mol.Seq)
		if err != nil {
			return nil, err
		}
		s.Name = mol.Name
		return s, nil
	}
}

// mfeStructure is a molecule's attached MFE partners as a structure, as
// fold.MFE returns it: the normalised sequence, the molecule's name.
func mfeStructure(mol *Molecule) (*rna.Structure, error) {
	if err := checkMFE(mol); err != nil {
		return nil, err
	}
	s, err := partnersStructure(mol.Name, mol.Seq, mol.MFE)
	if err != nil {
		return nil, fmt.Errorf("ssnet: %s: the attached MFE structure: %w", mol.Name, err)
	}
	return s, nil
}

// partnersStructure is the structure named name of seq (normalised, as
// rna/fold normalises it) whose base i pairs with partner[i] (-1:
// unpaired), checked as rna.New checks it.
func partnersStructure(name, seq string, partner []int) (*rna.Structure, error) {
	norm, err := rna.NormalizeSequence(seq)
	if err != nil {
		return nil, err
	}
	var pairs [][2]int
	for i, j := range partner {
		if j > i {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	return rna.New(name, norm, pairs)
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
// scores, in the set's order. A model with template channels reads the
// molecules' attached templates. Each molecule's convolutions run on
// workers goroutines (0: runtime.GOMAXPROCS(0)), and
// inferenceSlots(workers) molecules are predicted at once. The scores do
// not depend on either number. progress (may be nil) is called after
// each molecule, from one goroutine at a time. When ctx is cancelled no
// further molecule is started and it returns ctx's error.
func EvaluateDecoders(ctx context.Context, set []Molecule, m *Model, workers int, ds []Decoder, progress func()) ([][]MolScore, error) {
	return EvaluateEnsembleDecoders(ctx, set, []*Model{m}, workers, ds, progress)
}

// EvaluateEnsembleDecoders is EvaluateDecoders for an ensemble: each
// molecule's structure is decoded from the mean of the networks' pair
// probabilities (MeanProbabilities), as `rna predict` with several
// models decodes it; one network is EvaluateDecoders. The networks
// read the same attached channels, so they must share their inputs'
// rules (their templates' identity is each record's own).
func EvaluateEnsembleDecoders(ctx context.Context, set []Molecule, ms []*Model, workers int, ds []Decoder, progress func()) ([][]MolScore, error) {
	if len(ms) == 0 {
		return nil, fmt.Errorf("ssnet: an ensemble of no network")
	}
	for _, m := range ms[1:] {
		if err := SameInputs(ms[0], m); err != nil {
			return nil, err
		}
	}
	out := make([][]MolScore, len(ds))
	for k := range out {
		if len(set) > 0 {
			out[k] = make([]MolScore, len(set))
		}
	}
	err := forEachMolecule(len(set), min(inferenceSlots(workers), len(set)), progress, func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		mol := &set[i]
		qs := make([][]float32, len(ms))
		for j, m := range ms {
			var err error
			if qs[j], err = m.ProbabilitiesFor(mol, workers); err != nil {
				return err
			}
		}
		p := MeanProbabilities(qs)
		for k, d := range ds {
			s, err := d.Decode(mol.Name, mol.Seq, p)
			if err != nil {
				return fmt.Errorf("ssnet: %s: %w", mol.Name, err)
			}
			out[k][i] = score(mol, s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// inferenceSlots is the number of molecules a network predicts at once
// with its convolutions on workers goroutines each: one for workers 0
// (runtime.GOMAXPROCS(0): a network's convolutions keep every core busy,
// and two 16S maps at once would double the memory; measured on the 35
// test molecules, two at once were no faster), else
// runtime.GOMAXPROCS(0)/workers, at least one.
func inferenceSlots(workers int) int {
	if workers <= 0 {
		return 1
	}
	return max(1, runtime.GOMAXPROCS(0)/workers)
}

// evalParallel is the number of molecules Evaluate predicts at once:
// runtime.GOMAXPROCS(0), at most n.
func evalParallel(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n)) }

// forEachMolecule calls fn(0..n-1) on parallel goroutines, progress
// (may be nil) after each call, one at a time. It returns the error of
// the first failing index in index order; after an error no further
// index is started.
func forEachMolecule(n, parallel int, progress func(), fn func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < max(parallel, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if errs[i] = fn(i); errs[i] != nil {
					failed.Store(true)
					return
				}
				if progress != nil {
					mu.Lock()
					progress()
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func score(m *Molecule, s *rna.Structure) MolScore {
	return MolScore{Name: m.Name, Family: m.Family, Len: len(m.Seq),
		Exact: rna.Compare(s, m.Structure, false), Shift: rna.Compare(s, m.Structure, true)}
}

// Evaluate predicts and scores every molecule, on parallel goroutines
// (runtime.GOMAXPROCS(0)), so pred must be safe for concurrent use (the
// predictors of this package are); the scores are in the set's order and
// do not depend on the number of goroutines, and an error is the first
// failing molecule's in the set's order. progress (may be nil) is
// called after each molecule, from one goroutine at a time.
func Evaluate(set []Molecule, pred Predictor, progress func()) ([]MolScore, error) {
	out := make([]MolScore, len(set))
	err := forEachMolecule(len(set), evalParallel(len(set)), progress, func(i int) error {
		m := &set[i]
		s, err := pred(m)
		if err != nil {
			return fmt.Errorf("ssnet: %s: %w", m.Name, err)
		}
		out[i] = score(m, s)
		return nil
	})
	if err != nil {
		return nil, err
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

// SameInputs reports, as an ErrUsage, why b cannot join a's ensemble
// over one set of attached channels: its 2D inputs or its ensemble
// channel's rule differ (a template's identity is each record's own, at
// inference).
func SameInputs(a, b *Model) error {
	ra, rb := a.Record, b.Record
	switch {
	case ra.Spec.In2D != rb.Spec.In2D:
		return fmt.Errorf("%w: an ensemble's networks take other 2D inputs (in_2d %d and %d)", ErrUsage, ra.Spec.In2D, rb.Spec.In2D)
	case !slices.Equal(ra.EnsembleTemps, rb.EnsembleTemps):
		return fmt.Errorf("%w: an ensemble's networks take their further ensemble channels at other temperatures (%v C and %v C)", ErrUsage, ra.EnsembleTemps, rb.EnsembleTemps)
	case ra.Inputs2D().Ensemble && !ra.EnsembleFold().Same(rb.EnsembleFold()):
		return fmt.Errorf("%w: an ensemble's networks compute their ensemble channel under other rules (global to %d and %d nt)", ErrUsage, ra.EnsembleFold().GlobalLen(), rb.EnsembleFold().GlobalLen())
	}
	return nil
}

// MeanProbabilities is the mean of an ensemble's pair probabilities
// (maps of one length), summed in float64: the map itself for one
// network.
//
//	mean[k] = (qs[0][k] + ... + qs[n-1][k]) / n
func MeanProbabilities(qs [][]float32) []float32 {
	if len(qs) == 1 {
		return qs[0]
	}
	sum := make([]float64, len(qs[0]))
	for _, q := range qs {
		if len(q) != len(sum) {
			panic(fmt.Sprintf("ssnet: MeanProbabilities: maps of %d and %d values", len(sum), len(q)))
		}
		for k, v := range q {
			sum[k] += float64(v)
		}
	}
	p := make([]float32, len(sum))
	for k, v := range sum {
		p[k] = float32(v / float64(len(qs)))
	}
	return p
}
