package ssnet

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/scnn"
)

// Kind is the network, the CNN or the SCNN: scnn.Kind, named here for
// this package's callers.
type Kind = scnn.Kind

// Kinds of network (scnn.CNN and scnn.SCNN).
const (
	CNN  = scnn.CNN
	SCNN = scnn.SCNN
)

// ParseKind reads "cnn" or "scnn" (scnn.ParseKind), saying what else it
// was given in the words of rna train's --model.
func ParseKind(s string) (Kind, error) {
	k, err := scnn.ParseKind(s)
	if err != nil {
		return "", fmt.Errorf("ssnet: unknown model %q (cnn or scnn)", s)
	}
	return k, nil
}

// Protocol is a training protocol: the network's widths and how it is
// trained.
type Protocol struct {
	Name      string  `json:"name"`
	Crop      int     `json:"crop"`       // training window, nucleotides
	Steps     int     `json:"steps"`      // optimiser steps
	Batch     int     `json:"batch"`      // crops per step
	LRCNN     float64 `json:"lr_cnn"`     // Adam learning rate of the CNN
	LRSCNN    float64 `json:"lr_scnn"`    // and of the SCNN
	L2        float64 `json:"l2"`         // L2 decay of the kernels
	PosWeight float64 `json:"pos_weight"` // weight of a true pair in the loss
	EvalEvery int     `json:"eval_every"` // steps between validations (and checkpoints)
	// HalveEvery is the number of steps between halvings of the learning
	// rate (the authors' code halves it every 2,500 steps); 0 keeps it.
	HalveEvery int `json:"halve_every"`
	// PairCrops draws windows of up to 2*Crop bases, half of them pair
	// crops around a long-range pair (RandomPairWindows); false draws
	// contiguous crops of Crop bases (RandomWindows).
	PairCrops bool `json:"pair_crops,omitempty"`
	// Buckets draws each batch with BucketWindows instead: whole molecules
	// of up to 2*Crop bases batched with molecules of similar length, and
	// longer ones as PairCrops draws them (the length-bucketed batches
	// tried in experiments/rna-families).
	Buckets bool `json:"buckets,omitempty"`
	// Template gives the network the homology template's channels
	// (TemplateChannels): a training molecule's template from the other
	// training molecules, any other molecule's from the training set,
	// none under MinIdentity. TemplateDrop is the share of training
	// windows whose template channels are left zero.
	Template     bool    `json:"template,omitempty"`
	MinIdentity  float64 `json:"min_identity,omitempty"`
	TemplateDrop float64 `json:"template_drop,omitempty"`
	// Energy gives the network the energy channels (EnergyChannels): the
	// molecule's minimum free energy structure and its possible pairs.
	Energy bool `json:"energy,omitempty"`
	// Ensemble gives the network the ensemble channel
	// (EnsembleChannels): the pair probabilities of the molecule's
	// Turner 2004 ensemble. With Energy it needs Template too (the
	// widths must tell the channels apart: Inputs2D).
	Ensemble bool `json:"ensemble,omitempty"`
	// EnsembleGlobal is the longest molecule whose ensemble channel
	// folds without a span limit (EnsembleFold; 0: EnsembleSpan, the
	// first ensemble networks' rule), recorded in the model.
	EnsembleGlobal int `json:"ensemble_global,omitempty"`
	// EnsemblePrior adds the ensemble channel's log-odds to the
	// network's output logits (addEnsemblePrior), in training and at
	// inference: the network learns a correction of the pair
	// probabilities rather than the probabilities. It needs Ensemble.
	EnsemblePrior bool `json:"ensemble_prior,omitempty"`
	// EnsembleTemps are further ensemble channels: the ensemble at each
	// of these temperatures (degrees Celsius, fold.Params.WithTemperature)
	// under the EnsembleGlobal rule, after the 37 C channel, recorded in
	// the model (Record.EnsembleTemps). They need Ensemble.
	EnsembleTemps []float64 `json:"ensemble_temps,omitempty"`
	// Mutate is the share of training windows whose molecule, when of at
	// most MutateMaxLen bases, is replaced by a structure-preserving
	// mutant (Mutant, each pair and unpaired base changed with
	// probability MutateRate), its energy and ensemble channels computed
	// from the mutant's sequence (MutantChannels); 0: none.
	Mutate       float64 `json:"mutate,omitempty"`
	MutateRate   float64 `json:"mutate_rate,omitempty"`
	MutateMaxLen int     `json:"mutate_max_len,omitempty"`
	// Hybrid trains the network's logits as the pair bonuses of Turner
	// 2004's ensemble (trial 19 of experiments/rna-holdout): the loss is
	// the negative log-likelihood of each window's target structure
	// under that ensemble (hybridLoss), not the BCE, and the windows are
	// contiguous: no PairCrops, and Buckets only with MaxLen at most
	// 2*Crop (whole molecules). Its model is decoded through the
	// ensemble (HybridProbabilities with alpha 1).
	Hybrid bool `json:"hybrid,omitempty"`
	// MaxLen, when positive, trains on the training molecules of at most
	// MaxLen bases only (their templates still come from every training
	// molecule); with Buckets and MaxLen at most 2*Crop every window is
	// a whole molecule.
	MaxLen int `json:"max_len,omitempty"`
	// ClusterWeights draws a training molecule with weight 1/sqrt(n), n
	// the number of training molecules (of every training file) in its
	// cluster (TrainOptions.Clusters, a families clustering; a molecule
	// it does not name is a cluster of its own), within its file as
	// before; PoolFiles draws from the files pooled, not a file first.
	ClusterWeights bool `json:"cluster_weights,omitempty"`
	PoolFiles      bool `json:"pool_files,omitempty"`
	// Widths of the network (see Spec).
	LSTMHidden, LSTMOut int   `json:"-"`
	Block1, Block2      []int `json:"-"` // kernel sizes of the first two blocks
	Widths1, Widths2    []int `json:"-"`
	Block3, Width3      int   `json:"-"`
	PairWidth           int   `json:"-"` // the SCNN's sgConv pair map
	ReinjectWidth       int   `json:"-"` // the SCNN's re-injection sgConv
}

// Paper is the paper's protocol: its widths, 500-nt crops, batches of 10,
// about the authors' 27,500 steps, and their learning-rate halving every
// 2,500 steps (dwillmott/ss-inf machine.py).
var Paper = Protocol{Name: "paper", Crop: 500, Steps: 27500, Batch: 10, LRCNN: 1e-3, LRSCNN: 2e-3, L2: 1e-5, PosWeight: 5, EvalEvery: 1000, HalveEvery: 2500,
	LSTMHidden: 75, LSTMOut: 15,
	Block1: []int{13, 9, 5}, Widths1: []int{20, 20, 10},
	Block2: []int{9, 5}, Widths2: []int{20, 20},
	Block3: 5, Width3: 20, PairWidth: 40, ReinjectWidth: 20}

// Default is the protocol of the shipped model and the seed comparison:
// the paper's shape with about a third of its widths and smaller kernels,
// trained on 64-nt crops for 3,000 steps with the learning rate halved
// every 1,000 (the authors halve theirs every 2,500), and validated
// twice (validation predicts the 28 whole molecules, about a minute on
// two cores), so that each model trains in under 15 minutes on two
// cores. The SCNN's pair map and re-injection keep the CNN's widths
// (2(5+8) = 26 and 10 channels). Crops of 64 learned more per second
// than crops of 96 or 160 in short trial runs (validation accuracy on
// every fourth validation molecule; notes in experiments/rna-default).
var Default = Protocol{Name: "default", Crop: 64, Steps: 3000, Batch: 10, LRCNN: 1e-3, LRSCNN: 2e-3, L2: 1e-5, PosWeight: 5,
	EvalEvery: 1500, HalveEvery: 1000,
	LSTMHidden: 24, LSTMOut: 8,
	Block1: []int{9, 5, 3}, Widths1: []int{8, 8, 4},
	Block2: []int{5, 3}, Widths2: []int{8, 8},
	Block3: 3, Width3: 8, PairWidth: 26, ReinjectWidth: 10}

// PairCrop is the default network trained on pair crops (two stretches
// of 64 bases, one around each base of a long-range pair, or one stretch
// of 128) for 6,000 steps: the sequence-only protocol that shows the
// network long-range pairs (experiments/rna-template), and the
// SCNN-vs-CNN comparison's.
var PairCrop = withName(Default, "paircrop", func(p *Protocol) {
	p.PairCrops, p.Steps, p.EvalEvery, p.HalveEvery = true, 6000, 1000, 2000
})

// Template is PairCrop with the homology template's channels as a 2D
// input (TemplateChannels): templates of identity under 0.5 are left
// out (a family with no homolog in training), and a fifth of the
// training windows see none, so that the network also learns to predict
// without one.
var Template = withName(PairCrop, "template", func(p *Protocol) {
	p.Template, p.MinIdentity, p.TemplateDrop = true, 0.5, 0.2
})

// TemplateShort is Template trained for 1,500 steps (validated after
// 750 and 1,500, the learning rate halved every 500): the protocol of the
// seed comparison of the template networks, about a quarter of
// Template's cost.
var TemplateShort = withName(Template, "template-short", func(p *Protocol) {
	p.Steps, p.EvalEvery, p.HalveEvery = 1500, 750, 500
})

// Families is Template with the energy channels (EnergyChannels), for
// training sets of several files and families (experiments/rna-families):
// the 16S training molecules beside the bpRNA TR0 molecules unrelated to
// the evaluated ones (rna dedup), each file drawn half of the time
// (Molecule.Group), and validation the mean over the validation files.
// 3,000 steps, validated every 750, the learning rate halved every
// 1,000.
var Families = withName(Template, "families", func(p *Protocol) {
	p.Energy, p.Steps, p.EvalEvery, p.HalveEvery = true, 3000, 750, 1000
})

// FamiliesBucketed is Families with length-bucketed batches (Buckets):
// the bpRNA molecules (median 105 nt) whole, in batches of similar
// length, and 16S molecules as Families crops them. A trial protocol
// (experiments/rna-families).
var FamiliesBucketed = withName(Families, "families-bucketed", func(p *Protocol) {
	p.Buckets = true
})

// FamiliesNoEnergy is Families without the energy channels: the
// ablation that measures what they buy (experiments/rna-families).
var FamiliesNoEnergy = withName(Families, "families-noenergy", func(p *Protocol) {
	p.Energy = false
})

// drawn returns the molecules of set that training draws windows from:
// those of at most MaxLen bases when MaxLen is positive, else all.
func (p Protocol) drawn(set []Molecule) []Molecule {
	if p.MaxLen <= 0 {
		return set
	}
	var short []Molecule
	for _, mol := range set {
		if len(mol.Seq) <= p.MaxLen {
			short = append(short, mol)
		}
	}
	return short
}

func withName(base Protocol, name string, edit func(*Protocol)) Protocol {
	p := base
	p.Name = name
	p.Block1 = append([]int(nil), base.Block1...)
	p.Block2 = append([]int(nil), base.Block2...)
	p.Widths1 = append([]int(nil), base.Widths1...)
	p.Widths2 = append([]int(nil), base.Widths2...)
	p.EnsembleTemps = slices.Clone(base.EnsembleTemps)
	edit(&p)
	return p
}

// FamiliesEnsemble is Families with the ensemble channel
// (EnsembleChannels) beside the MFE's: the trial of the pair
// probabilities of the partition function as an input, for families
// absent from training (experiments/rna-holdout).
var FamiliesEnsemble = withName(Families, "families-ensemble", func(p *Protocol) {
	p.Ensemble = true
})

// FamiliesEnsembleMutate is FamiliesEnsemble with structure-preserving
// mutants (Mutant) for half of the training windows of molecules of at
// most 200 bases, a quarter of their pairs and unpaired bases changed:
// the augmentation trial against family memorisation
// (experiments/rna-holdout). 200 bases keep the mutants' fresh channels
// cheap (a partition function of 200 bases takes about 30 ms).
var FamiliesEnsembleMutate = withName(FamiliesEnsemble, "families-ensemble-mutate", func(p *Protocol) {
	p.Mutate, p.MutateRate, p.MutateMaxLen = 0.5, 0.25, 200
})

// FamiliesEnsembleGlobal is FamiliesEnsemble with the ensemble channel
// of every molecule of at most 600 bases from its global partition
// function (EnsembleFold{Global: 600}) instead of the 200-base band:
// all of bpRNA TR0 (at most 500 nt) and every ArchiveII family but the
// 16S and 23S rRNAs fold globally, as the centroid and MEA baselines do
// (experiments/rna-holdout, trial 6).
var FamiliesEnsembleGlobal = withName(FamiliesEnsemble, "families-ensemble-global", func(p *Protocol) {
	p.EnsembleGlobal = 600
})

// FamiliesEnsemblePrior is FamiliesEnsemble whose output is a
// correction of the ensemble's pair probabilities (EnsemblePrior): the
// logits are the network's plus the channel's log-odds, so that an
// untrained correction predicts McCaskill's probabilities and the MEA
// decoder then gives the MEA row (experiments/rna-holdout, trial 7).
var FamiliesEnsemblePrior = withName(FamiliesEnsemble, "families-ensemble-prior", func(p *Protocol) {
	p.EnsemblePrior = true
})

// FamiliesEnsembleNoTemplate is FamiliesEnsemble with every template
// dropped (TemplateDrop 1; the record's NoTemplate zeroes them at
// inference too): the network trained in the regime it meets on a new
// family, where no reference is similar enough to be a template, rather
// than with a template in four windows of five where one exists
// (experiments/rna-holdout, trial 8). The template channels stay in the input, zero, so that the
// energy and ensemble channels keep their places.
var FamiliesEnsembleNoTemplate = withName(FamiliesEnsemble, "families-ensemble-notemplate", func(p *Protocol) {
	p.TemplateDrop = 1
})

// FamiliesEnsembleLong is FamiliesEnsemble trained twice as long: 6,000
// steps, the learning rate halved every 2,000 (the schedule stretched
// as PairCrop's is), validated every 750 (experiments/rna-holdout,
// trial 9: E's validation F1 still rose at its last step in six of ten
// seeds).
var FamiliesEnsembleLong = withName(FamiliesEnsemble, "families-ensemble-long", func(p *Protocol) {
	p.Steps, p.HalveEvery = 6000, 2000
})

// FamiliesEnsembleTemps is FamiliesEnsemble with two further ensemble
// channels, the ensemble at 25 C and at 50 C under the same rule
// (trials.md, trial 22): which helices hold as the temperature rises and
// which alternatives appear as it falls.
var FamiliesEnsembleTemps = withName(FamiliesEnsemble, "families-ensemble-temps", func(p *Protocol) {
	p.EnsembleTemps = []float64{25, 50}
})

// FamiliesEnsembleClusters is FamiliesEnsemble with the training
// molecules drawn by cluster weight within each file (ClusterWeights;
// trials.md, trial 23: CW).
var FamiliesEnsembleClusters = withName(FamiliesEnsemble, "families-ensemble-clusters", func(p *Protocol) {
	p.ClusterWeights = true
})

// FamiliesEnsembleClustersPooled is FamiliesEnsembleClusters over the
// training files pooled (PoolFiles; trial 23: CP).
var FamiliesEnsembleClustersPooled = withName(FamiliesEnsembleClusters, "families-ensemble-clusters-pooled", func(p *Protocol) {
	p.PoolFiles = true
})

// FamiliesEnsembleGlobalHybrid is FamiliesEnsembleGlobal trained as a
// hybrid (Hybrid): its logits are the pair bonuses of Turner 2004's
// ensemble, learned by the structured loss on contiguous windows of up
// to 128 bases, validated once, after its 3,000 steps, which is the
// model kept (trial 19 of experiments/rna-holdout; `rna train --steps`
// keeps the validations every 3,000 steps).
var FamiliesEnsembleGlobalHybrid = withName(FamiliesEnsembleGlobal, "families-ensemble-global-hybrid", func(p *Protocol) {
	p.Hybrid, p.PairCrops, p.Crop, p.EvalEvery = true, false, 128, p.Steps
})

// FamiliesEnsembleGlobalHybridWhole is FamiliesEnsembleGlobalHybrid
// trained on whole molecules: those of at most 200 nt, in
// length-bucketed batches (trial 20 of experiments/rna-holdout).
var FamiliesEnsembleGlobalHybridWhole = withName(FamiliesEnsembleGlobalHybrid, "families-ensemble-global-hybrid-whole", func(p *Protocol) {
	p.Buckets, p.Crop, p.MaxLen = true, 100, 200
})

// Protocols are the named protocols.
var Protocols = []Protocol{Default, Paper, PairCrop, Template, TemplateShort, Families, FamiliesBucketed, FamiliesNoEnergy, FamiliesEnsemble, FamiliesEnsembleMutate, FamiliesEnsembleGlobal, FamiliesEnsemblePrior, FamiliesEnsembleNoTemplate, FamiliesEnsembleLong, FamiliesEnsembleGlobalHybrid, FamiliesEnsembleGlobalHybridWhole, FamiliesEnsembleTemps,
	FamiliesEnsembleClusters, FamiliesEnsembleClustersPooled}

// ProtocolByName returns the protocol of a name.
func ProtocolByName(name string) (Protocol, error) {
	var names []string
	for _, p := range Protocols {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Protocol{}, fmt.Errorf("ssnet: unknown protocol %q (one of %s)", name, strings.Join(names, ", "))
}

// LR is the protocol's initial learning rate for a kind.
func (p Protocol) LR(k Kind) float64 {
	if k == SCNN {
		return p.LRSCNN
	}
	return p.LRCNN
}

// LRAt is the learning rate of a kind's step (0-based): LR halved once
// per HalveEvery steps already taken.
func (p Protocol) LRAt(k Kind, step int) float64 {
	lr := p.LR(k)
	if p.HalveEvery > 0 {
		lr = math.Ldexp(lr, -(step / p.HalveEvery))
	}
	return lr
}

// InChannels is the width of the one-hot input: A, C, G, U, other.
const InChannels = 5

// Spec is the network of a kind under the protocol's widths: the CNN as
// Willmott's, the SCNN with the same widths and symmetric layers.
func (p Protocol) Spec(k Kind) pairnet.Spec {
	s := pairnet.Spec{Symmetric: k == SCNN, In1D: InChannels, LSTMHidden: p.LSTMHidden, LSTMOut: p.LSTMOut,
		Blocks: []pairnet.Block{{Kernels: p.Block1, Widths: p.Widths1}, {Kernels: p.Block2, Widths: p.Widths2},
			pairnet.Uniform(p.Width3, p.Block3)},
		Reinject: &pairnet.MapSpec{}, OutKernel: 3}
	s.In2D = Inputs2D{Template: p.Template, Energy: p.Energy, Ensemble: p.Ensemble, Temps: len(p.EnsembleTemps)}.Width()
	if k == SCNN {
		s.Pair = pairnet.MapSpec{Width: p.PairWidth, BN: true, ReLU: true}
		s.Reinject = &pairnet.MapSpec{Width: p.ReinjectWidth, BN: true, ReLU: true}
	}
	return s
}
