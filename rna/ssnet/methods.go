package ssnet

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/homology"
)

// MethodNetwork is the name of the network method: the pair networks of
// this package (MethodOptions.Networks), their mean for an ensemble,
// decoded by MethodOptions.Decoder.
const MethodNetwork = "network"

// MethodConsensus is the name of the consensus method (consensusPredictor):
// model-free, it needs MethodOptions.Homologs.
const MethodConsensus = "consensus"

// A Method is one way to predict a secondary structure: the network, or
// a model-free predictor (homology transfer, the Turner 2004 folds, the
// stacking heuristic). Methods lists them; rna predict's --method names
// one, and the model-free baselines of rna eval and rna compare are the
// methods with a Baseline place.
type Method struct {
	Name  string // as --method names it: "mfe"
	About string // what it predicts, in one line
	// Row names the method among the baselines of an evaluation
	// ("MFE (Turner 2004)": rna eval's row "baseline: MFE (Turner
	// 2004)"); rna compare's baseline runs are of kind Name.
	Row string
	// Baseline is the method's place among the baselines of rna eval
	// and rna compare (1 first); 0 for a method that is no baseline.
	Baseline int
	// Needs says what an evaluation prepares before the baseline's row.
	Needs Needs
	// Folds is set for the methods that fold with package rna/fold:
	// Fold is the computation (for its memory estimate), and
	// MethodOptions.MaxSpan limits its pairs.
	Folds bool
	Fold  fold.Method
	// Bytes, where set, is the peak memory of a method that folds by a
	// rule of its own, whatever MethodOptions.MaxSpan says (consensus:
	// ConsensusBytes), for a molecule of l bases.
	Bytes func(l int) int64
	// New builds the method's predictor; it reads the fields of o the
	// method uses.
	New func(o MethodOptions) MethodPredictor
}

// Needs are what a baseline reads beyond the molecule, prepared by an
// evaluation before its row.
type Needs int

const (
	// NeedsMFE: the molecules' MFE structures attached (AttachMFE), so
	// that the row folds none.
	NeedsMFE Needs = 1 << iota
	// NeedsCentroids: a centroid cache (MethodOptions.Centroids).
	NeedsCentroids
	// NeedsMEAs: an MEA cache (MethodOptions.MEAs).
	NeedsMEAs
	// NeedsRefs: references of known structure other than the
	// molecules evaluated (MethodOptions.Refs): no row on the training
	// molecules themselves.
	NeedsRefs
)

// MethodOptions are what a method's predictor is built from; each
// method reads its own fields.
type MethodOptions struct {
	// Workers are the goroutines of one molecule's fold, or of a
	// network's convolutions (0: runtime.GOMAXPROCS(0)); the
	// predictions do not depend on them.
	Workers int
	// MaxSpan is the largest base-pair span j-i+1 of the folds (0: any).
	MaxSpan int
	// Map asks for the L x L pair map beside the structure: the
	// network's probabilities (an ensemble's mean), the Turner 2004
	// ensemble's for centroid and mea-pf, 1 at each predicted pair for
	// the other methods.
	Map bool
	// Energy gives the folds' structures their Turner 2004 energy
	// (rna.Energy): the MFE, or the centroid's or MEA structure's own
	// with the ensemble free energy.
	Energy bool
	// Refs are homology transfer's references.
	Refs *homology.Index
	// Centroids, when set, is a centroid cache (NewCentroidCache,
	// ReadCentroidCache) the centroid method reads and fills, without
	// map or energy (CachedCentroidPredictor).
	Centroids *MFECache
	// MEAs, when set, is an MEA cache (NewMEACache) the mea-pf method
	// reads and fills, without map or energy (CachedMEAPredictor).
	MEAs *MFECache
	// Networks are the network method's models, the mean of their
	// probabilities for more than one, decoded by Decoder.
	Networks []Network
	Decoder  Decoder
	// OnFold, when set, is called before the MFE fold of the energy
	// channels of a network (once for all its members), with the
	// molecule's name and length; progress, when not nil, is called as
	// the fold goes (fold.Params.FoldProgress), and end, when not nil,
	// once it is done or stopped.
	OnFold func(name string, l int) (progress func(done, total float64), end func())
	// OnNetwork, when set, is called after the templates are searched
	// and the energy channels folded, as the networks start on a
	// molecule, with the floating-point operations their passes will
	// execute (pairnet.Spec.InferenceFLOPs, summed over the members);
	// the function it returns, when not nil, is called after each layer
	// with the share of that work done, 1 after the last layer of the
	// last member, and once more with end set when the networks are done
	// or stopped.
	OnNetwork func(name string, l int, flops float64) func(done float64, end bool)
	// Homologs, when set, finds each molecule's homologs in a sequence
	// database (rna predict --db): the consensus method needs it, and
	// the network method then predicts from the consensus of the
	// networks' probabilities with the homologs' ensembles
	// (ConsensusMap, DecodeConsensus), except for a molecule whose
	// template a network sees (SeesTemplate) or of more than
	// ConsensusMaxLen bases, decoded by Decoder from the networks alone.
	Homologs HomologFinder
}

// A Network is one model of the network method, with the references
// its template channels search.
type Network struct {
	Name  string // for an ensemble's errors ("rna-scnn: ...")
	Model *Model
	Refs  *homology.Index // nil for a model without template channels
}

// A MethodPredictor predicts one molecule: its structure and, when
// MethodOptions.Map asked for it, its L x L pair map (nil otherwise).
// It stops when ctx is done (the folds between two spans, a network
// between two layers), and is safe for concurrent use.
type MethodPredictor func(ctx context.Context, mol *Molecule) (*rna.Structure, []float32, error)

// Predictor is p as a Predictor, for Evaluate: the structure alone,
// never stopped.
func (p MethodPredictor) Predictor() Predictor {
	return func(mol *Molecule) (*rna.Structure, error) {
		s, _, err := p(context.Background(), mol)
		return s, err
	}
}

// methods are every method, in the order --method lists them.
var methods = []Method{
	{Name: MethodNetwork, About: "the paper's pair networks (CNN, SCNN), the mean of an ensemble's probabilities, decoded greedily or by MEA", New: networkPredictor},
	{Name: "homology", About: "model-free: the pairs of the most similar reference molecule of known structure, carried over a global alignment",
		Row: "homology transfer", Baseline: 5, Needs: NeedsRefs,
		New: func(o MethodOptions) MethodPredictor { return withMap(HomologyPredictor(o.Refs), o.Map) }},
	{Name: "mfe", About: "model-free: the minimum free energy structure under the Turner 2004 parameters (RNAfold's defaults)",
		Row: "MFE (Turner 2004)", Baseline: 2, Needs: NeedsMFE, Folds: true, Fold: fold.MethodMFE, New: mfePredictor},
	{Name: "centroid", About: "model-free: the pairs of probability above 1/2 in the Turner 2004 ensemble (RNAfold -p)",
		Row: "centroid (Turner 2004 ensemble)", Baseline: 3, Needs: NeedsCentroids, Folds: true, Fold: fold.MethodCentroid,
		New: func(o MethodOptions) MethodPredictor { return ensemblePredictor(o, false) }},
	{Name: "mea-pf", About: "model-free: the maximum expected accuracy structure of the Turner 2004 ensemble's pair probabilities (RNAfold --MEA)",
		Row: "MEA (Turner 2004 ensemble, gamma 1)", Baseline: 4, Needs: NeedsMEAs, Folds: true, Fold: fold.MethodMEA,
		New: func(o MethodOptions) MethodPredictor { return ensemblePredictor(o, true) }},
	{Name: MethodConsensus, About: "model-free: the MEA structure (gamma 2) of the mean of the Turner 2004 ensembles of the molecule and of its homologs in a sequence database (--db), mapped through nhmmer's alignment",
		Bytes: ConsensusBytes, New: consensusPredictor},
	{Name: "stacking", About: "model-free: the most stacked canonical pairs, hairpins of at least three bases",
		Row: "stacking", Baseline: 1,
		New: func(o MethodOptions) MethodPredictor { return withMap(BaselinePredictor(), o.Map) }},
}

// FoldBytes is the peak memory of the method's folds for a molecule of
// l bases with pairs spanning at most span bases (0: any): Bytes for a
// rule of its own (the span ignored), fold.MemoryEstimate of Fold for a
// method that Folds, and 0 for a method that folds nothing.
func (m Method) FoldBytes(l, span int) int64 {
	switch {
	case m.Bytes != nil:
		return m.Bytes(l)
	case m.Folds:
		return fold.MemoryEstimate(m.Fold, l, span)
	}
	return 0
}

// Methods returns every method, in the order --method lists them
// (network first).
func Methods() []Method { return slices.Clone(methods) }

// MethodNamed returns the method of that name.
func MethodNamed(name string) (Method, bool) {
	for _, m := range methods {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// MethodsHelp describes the methods for the help of rna predict
// --method, a line each wrapped at 72 columns, ending in a newline.
const MethodsHelp = `--method chooses the predictor: network (the default: the --model
network, decoded by --decoder: a shipped model's own decoder unless
given, greedy for a model file), homology (model-free: the pairs of the
most similar reference molecule of known structure, carried over a
global alignment; strong when the references hold a homolog, as the 16S
training set does for a 16S rRNA, and useless when they hold none, as for
5S rRNA, RNase P or group I introns), mfe (model-free: the minimum free
energy structure under the Turner 2004 parameters with RNAfold's default
options, package rna/fold), centroid (model-free: the pairs of
probability above 1/2 in the Turner 2004 ensemble, as RNAfold -p;
the PNG shows the pair probabilities), mea-pf (model-free: the maximum
expected accuracy structure of those probabilities, as RNAfold --MEA),
consensus (model-free, with --db: the MEA structure, gamma 2, of the
mean of the Turner 2004 ensembles of the molecule and of its homologs
found by nhmmer in the database), or stacking (model-free: the most
stacked canonical pairs).
`

// MethodNames lists the methods' names for a message or a help text:
// "network, homology, mfe, centroid, mea-pf, consensus or stacking".
func MethodNames() string {
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Baselines returns the baseline methods in their place (Method.Baseline).
func Baselines() []Method {
	var out []Method
	for _, m := range methods {
		if m.Baseline > 0 {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b Method) int { return a.Baseline - b.Baseline })
	return out
}

// withMap is a Predictor as a MethodPredictor whose map, when asked for,
// is 1 at each predicted pair.
func withMap(pred Predictor, wantMap bool) MethodPredictor {
	return func(_ context.Context, mol *Molecule) (*rna.Structure, []float32, error) {
		s, err := pred(mol)
		if err != nil || !wantMap {
			return s, nil, err
		}
		return s, pairOnes(s), nil
	}
}

// pairOnes is the L x L map of s: 1 at each pair (both triangles), 0
// elsewhere.
func pairOnes(s *rna.Structure) []float32 {
	l := len(s.Seq)
	p := make([]float32, l*l)
	for _, pr := range s.Pairs() {
		p[pr[0]*l+pr[1]], p[pr[1]*l+pr[0]] = 1, 1
	}
	return p
}

// mfePredictor is the mfe method: a molecule's attached MFE structure
// (MFEPredictor's), else the fold of its sequence with o's span and
// workers.
func mfePredictor(o MethodOptions) MethodPredictor {
	attached := MFEPredictor()
	p := fold.DefaultParams().WithMaxSpan(o.MaxSpan)
	return func(ctx context.Context, mol *Molecule) (*rna.Structure, []float32, error) {
		if mol.MFE != nil {
			return withMap(attached, o.Map)(ctx, mol)
		}
		s, energy, err := p.FoldContext(ctx, mol.Seq, o.Workers)
		if err != nil {
			return nil, nil, err
		}
		s.Name = mol.Name
		if o.Energy {
			s.Energy = &rna.Energy{Kind: rna.EnergyMFE, DeltaG: energy}
		}
		if !o.Map {
			return s, nil, nil
		}
		return s, pairOnes(s), nil
	}
}

// ensemblePredictor is the centroid (mea false) or mea-pf method: the
// Turner 2004 ensemble of the sequence with o's span and workers, and
// its centroid or MEA structure (gamma 1); the ensemble's pair
// probabilities are the map. A centroid cache (o.Centroids) serves the
// centroid instead (CachedCentroidPredictor), an MEA cache (o.MEAs) the
// MEA structure (CachedMEAPredictor).
func ensemblePredictor(o MethodOptions, mea bool) MethodPredictor {
	if !mea && o.Centroids != nil {
		return withMap(CachedCentroidPredictor(o.Centroids), o.Map)
	}
	if mea && o.MEAs != nil {
		return withMap(CachedMEAPredictor(o.MEAs), o.Map)
	}
	p := fold.DefaultParams().WithMaxSpan(o.MaxSpan)
	return func(ctx context.Context, mol *Molecule) (*rna.Structure, []float32, error) {
		e, err := p.PartitionContext(ctx, mol.Seq, o.Workers)
		if err != nil {
			return nil, nil, err
		}
		var s *rna.Structure
		en := &rna.Energy{Kind: rna.EnergyCentroid, Ensemble: e.FreeEnergy}
		if !mea {
			s, en.Score = e.Centroid()
		} else {
			en.Kind = rna.EnergyMEA
			if s, en.Score, err = e.MEA(1); err != nil {
				return nil, nil, err
			}
		}
		s.Name = mol.Name
		if o.Energy {
			if en.DeltaG, err = p.Eval(s.Seq, s.Pairs()); err != nil {
				return nil, nil, fmt.Errorf("energy of the %s structure: %w", en.Kind, err)
			}
			s.Energy = en
		}
		if !o.Map {
			return s, nil, nil
		}
		return s, e.Probabilities(), nil
	}
}

// networkPredictor is the network method: each network's probabilities
// (a template network's from the template its references hold, an
// energy network's from the sequence's MFE fold, folded once for all),
// their mean for an ensemble, decoded by o.Decoder.
func networkPredictor(o MethodOptions) MethodPredictor {
	nets := o.Networks
	return func(ctx context.Context, mol *Molecule) (*rna.Structure, []float32, error) {
		name, seq := mol.Name, mol.Seq
		// The templates are searched first, out of the network's bar.
		works, all := make([]float64, len(nets)), 0.0
		ts := make([]*homology.Template, len(nets))
		searched := map[*homology.Index]*homology.Template{} // once per set of references
		for i, n := range nets {
			works[i] = n.Model.Net.Spec.InferenceFLOPs(1, len(seq))
			all += works[i]
			if n.Model.Record.UsesTemplates() {
				if ts[i] = searched[n.Refs]; ts[i] == nil {
					tm := n.Refs.Search(seq, nil)
					ts[i] = &tm
					searched[n.Refs] = ts[i]
				}
			}
		}
		// The energy channels' MFE fold, once for all the members.
		var mfe []int
		for _, n := range nets {
			if n.Model.Record.UsesEnergy() {
				var progress func(done, total float64)
				var end func()
				if o.OnFold != nil {
					progress, end = o.OnFold(name, len(seq))
				}
				var err error
				mfe, err = MFEPartnersProgress(ctx, seq, o.Workers, progress)
				if end != nil {
					end()
				}
				if err != nil {
					return nil, nil, err
				}
				break
			}
		}
		// The ensemble channels' partition functions, once for all the
		// members of one rule (EnsembleFold: its span for seq and its
		// temperature), stopped by ctx.
		type foldKey struct {
			span int
			temp float64
		}
		key := func(f EnsembleFold) foldKey { return foldKey{f.Span(len(seq)), f.TemperatureC()} }
		ens := map[foldKey][]PairProb{}
		for _, n := range nets {
			for _, f := range n.Model.Record.EnsembleFolds() {
				if _, ok := ens[key(f)]; ok {
					continue
				}
				ps, err := f.Pairs(ctx, seq, o.Workers)
				if err != nil {
					return nil, nil, err
				}
				ens[key(f)] = ps
			}
		}
		var report func(float64, bool)
		if o.OnNetwork != nil {
			report = o.OnNetwork(name, len(seq), all)
		}
		end := func() {
			if report != nil {
				report(-1, true)
				report = nil
			}
		}
		defer end() // stopped by an error
		qs := make([][]float32, len(nets))
		for i, n := range nets {
			var m []int
			if n.Model.Record.UsesEnergy() {
				m = mfe
			}
			var e []PairProb
			var at []RuleEnsemble
			if n.Model.Record.Inputs2D().Ensemble {
				e = ens[key(n.Model.Record.EnsembleFold())]
				for _, f := range n.Model.Record.ExtraEnsembleFolds() {
					at = append(at, RuleEnsemble{Rule: f, Pairs: ens[key(f)]})
				}
			}
			q, err := n.Model.ProbabilitiesAfterEnsembles(seq, ts[i], m, e, at, o.Workers, MembersAfter(ctx, report, works, i))
			if err != nil {
				if len(nets) > 1 {
					err = fmt.Errorf("%s: %w", n.Name, err)
				}
				return nil, nil, err
			}
			qs[i] = q
		}
		end() // before the decoder
		p := MeanProbabilities(qs)
		seen := false
		for i, n := range nets {
			seen = seen || SeesTemplate(n.Model.Record, ts[i])
		}
		if o.Homologs != nil && !seen && len(seq) <= ConsensusMaxLen {
			hs, err := o.Homologs(ctx, name, seq)
			if err != nil {
				return nil, nil, err
			}
			if p, err = ConsensusMap(ctx, name, seq, p, hs, o.Workers); err != nil {
				return nil, nil, err
			}
			s, err := DecodeConsensus(name, seq, p)
			if err != nil || !o.Map {
				return s, nil, err
			}
			return s, p, nil
		}
		s, err := o.Decoder.Decode(name, seq, p)
		if err != nil || !o.Map {
			return s, nil, err
		}
		return s, p, nil
	}
}

// MembersAfter is the per-layer hook of member i of an ensemble whose
// members' passes execute works floating-point operations each: it gives
// report (when not nil) the share of the ensemble's work done, 1 after
// the last layer of the last member, and stops the pass with ctx's error
// once ctx is done (pairnet.Inputs.AfterLayer).
func MembersAfter(ctx context.Context, report func(float64, bool), works []float64, i int) func(done, total float64) error {
	before, all := 0.0, 0.0
	for k, w := range works {
		if k < i {
			before += w
		}
		all += w
	}
	return func(done, total float64) error {
		if report != nil && total > 0 && all > 0 {
			d := min(1, (before+done/total*works[i])/all)
			if i == len(works)-1 && done == total {
				d = 1
			}
			report(d, false)
		}
		return ctx.Err()
	}
}
