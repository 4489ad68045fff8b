package ssnet

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/strictjson"
	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// Record is what a model file stores besides the parameters.
type Record struct {
	Format   int          `json:"format"`
	Kind     Kind         `json:"kind"`
	Protocol string       `json:"protocol"`
	Spec     pairnet.Spec `json:"spec"`
	Seed     uint64       `json:"seed"`
	Step     int          `json:"step"` // the step kept (best validation accuracy)
	Data     string       `json:"data"`
	Version  string       `json:"code_version"`
	// MinIdentity is, for a network with template channels
	// (Inputs2D), the identity under which a template is left out.
	MinIdentity float64 `json:"template_min_identity,omitempty"`
	// Precision is the arithmetic of training ("bfloat16": TrainOptions);
	// empty for float32. Prediction runs in float32 either way.
	Precision string `json:"train_precision,omitempty"`
	// EnsembleGlobal is, for a network with the ensemble channel, the
	// longest molecule whose channel folds globally (EnsembleFold; 0:
	// EnsembleSpan, the rule of the models written before the field).
	EnsembleGlobal int `json:"ensemble_global,omitempty"`
	// EnsemblePrior is whether the output logits are the network's plus
	// the ensemble channel's log-odds (Protocol.EnsemblePrior).
	EnsemblePrior bool `json:"ensemble_prior,omitempty"`
	// NoTemplate is whether the network was trained with every
	// template dropped (Protocol.TemplateDrop 1): its template channels
	// are zero at inference too, whatever the references hold, so that
	// it never sees an input it was not trained on.
	NoTemplate bool `json:"no_template,omitempty"`
	// Hybrid is whether the logits are the pair bonuses of Turner 2004's
	// ensemble (Protocol.Hybrid): the pair probabilities are then
	// HybridProbabilities' with alpha 1, not the logits' sigmoid.
	Hybrid bool `json:"hybrid,omitempty"`
	// EnsembleTemps are the temperatures (degrees Celsius) of the
	// network's further ensemble channels, after the 37 C one
	// (Protocol.EnsembleTemps): the ensemble at each, under the
	// record's rule (ExtraEnsembleFolds).
	EnsembleTemps []float64 `json:"ensemble_temps,omitempty"`
}

// MaxEnsembleTemps bounds Record.EnsembleTemps (and a protocol's).
const MaxEnsembleTemps = 4

// checkEnsembleTemps checks a record's or a protocol's further
// temperatures: at most MaxEnsembleTemps, each ValidEnsembleTemp, none 37 C (the ensemble channel's own) and none
// twice.
func checkEnsembleTemps(ts []float64) error {
	if len(ts) > MaxEnsembleTemps {
		return fmt.Errorf("ensemble_temps: %d temperatures (at most %d)", len(ts), MaxEnsembleTemps)
	}
	for k, t := range ts {
		if !ValidEnsembleTemp(t) || t == DefaultEnsembleTemp || slices.Contains(ts[:k], t) {
			return fmt.Errorf("ensemble_temps: %v (want distinct temperatures in (%d, %d] C other than %g)", ts, MinEnsembleTemp, MaxEnsembleTemp, DefaultEnsembleTemp)
		}
	}
	return nil
}

// ExtraEnsembleFolds are the rules of the network's further ensemble
// channels: the record's rule at each of EnsembleTemps, in order.
func (r Record) ExtraEnsembleFolds() []EnsembleFold {
	var fs []EnsembleFold
	for _, t := range r.EnsembleTemps {
		fs = append(fs, r.EnsembleFold().At(t))
	}
	return fs
}

// EnsembleFolds are the rules of every ensemble channel of the network:
// EnsembleFold, then ExtraEnsembleFolds; none without the channel.
func (r Record) EnsembleFolds() []EnsembleFold {
	if !r.Inputs2D().Ensemble {
		return nil
	}
	return append([]EnsembleFold{r.EnsembleFold()}, r.ExtraEnsembleFolds()...)
}

// EnsembleFold is the rule of the network's ensemble channel.
func (r Record) EnsembleFold() EnsembleFold { return EnsembleFold{Global: r.EnsembleGlobal} }

// Inputs2D is the network's 2D input channels.
func (r Record) Inputs2D() Inputs2D {
	c, _ := inputs2DWith(r.Spec.In2D, len(r.EnsembleTemps))
	return c
}

// UsesTemplates reports whether the network takes template channels.
func (r Record) UsesTemplates() bool { return r.Inputs2D().Template }

// UsesEnergy reports whether the network takes the energy channels (the
// MFE structure and the possible pairs; EnergyChannels).
func (r Record) UsesEnergy() bool { return r.Inputs2D().Energy }

// RecordFormat is the version of Record.
const RecordFormat = 1

// Model is a trained network with its record.
type Model struct {
	Net    *pairnet.Net
	Record Record
}

// NewModel builds a network of a kind under a protocol.
func NewModel(k Kind, p Protocol, seed uint64) (*Model, error) {
	if c := (Inputs2D{Template: p.Template, Energy: p.Energy, Ensemble: p.Ensemble}); !c.valid() {
		return nil, fmt.Errorf("ssnet: protocol %s: the energy and ensemble channels without the template's (their width is the template's)", p.Name)
	}
	if err := checkEnsembleTemps(p.EnsembleTemps); err != nil {
		return nil, fmt.Errorf("ssnet: protocol %s: %w", p.Name, err)
	}
	if len(p.EnsembleTemps) > 0 && !p.Ensemble {
		return nil, fmt.Errorf("ssnet: protocol %s: ensemble_temps without the ensemble channel", p.Name)
	}
	if p.EnsemblePrior && !p.Ensemble {
		return nil, fmt.Errorf("ssnet: protocol %s: the ensemble prior without the ensemble channel", p.Name)
	}
	if p.Hybrid && (p.PairCrops || p.Buckets && !(p.MaxLen > 0 && p.MaxLen <= 2*p.Crop) || p.EnsemblePrior) {
		return nil, fmt.Errorf("ssnet: protocol %s: a hybrid trains on contiguous windows (no pair crops, buckets only of whole molecules) without the ensemble prior", p.Name)
	}
	if p.ClusterWeights && p.Buckets {
		return nil, fmt.Errorf("ssnet: protocol %s: cluster weights with length buckets (a bucket's companions are drawn by length, not by weight)", p.Name)
	}
	if p.MaxLen < 0 {
		return nil, fmt.Errorf("ssnet: protocol %s: max_len %d", p.Name, p.MaxLen)
	}
	if p.EnsembleGlobal < 0 || p.EnsembleGlobal > MaxEnsembleGlobal {
		return nil, fmt.Errorf("ssnet: protocol %s: ensemble_global %d (want 0..%d)", p.Name, p.EnsembleGlobal, MaxEnsembleGlobal)
	}
	spec := p.Spec(k)
	net, err := pairnet.New(spec, seed)
	if err != nil {
		return nil, err
	}
	return &Model{Net: net, Record: Record{Format: RecordFormat, Kind: k, Protocol: p.Name, Spec: spec, Seed: seed, MinIdentity: p.MinIdentity, EnsembleGlobal: p.EnsembleGlobal, EnsemblePrior: p.EnsemblePrior,
		NoTemplate: p.Template && p.TemplateDrop >= 1, Hybrid: p.Hybrid, EnsembleTemps: slices.Clone(p.EnsembleTemps)}}, nil
}

// Save writes the model atomically.
func (m *Model) Save(path string) error {
	arch, err := json.Marshal(m.Record)
	if err != nil {
		return err
	}
	return fileio.WriteAtomic(path, func(w io.Writer) error { return scnn.WriteParams(w, arch, m.Net.Params()) })
}

// Load reads a model file written by Save.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ssnet: %w", err)
	}
	defer f.Close()
	return ReadModel(f, path)
}

// ReadModel reads a model from r (name labels errors). A file holding
// another kind of model (a protein contact or recommendation model) gives
// a *modelkind.WrongKindError; a record out of bounds is refused before
// anything is allocated for it. The file's arrays are checked against the
// parameters of the network the record describes
// (pairnet.Spec.ParamShapes) before they are allocated, and the network
// is built only for a file that holds all of them: an array of another
// shape is refused naming it and both shapes (scnn.ErrMismatch).
func ReadModel(r io.Reader, name string) (*Model, error) {
	var (
		rec    Record
		recErr error // an error of the record, returned as it is
	)
	_, arrays, err := scnn.ReadParamsExpect(r, func(arch []byte) ([]scnn.ParamShape, error) {
		rec, recErr = readRecord(arch, name)
		if recErr != nil {
			return nil, recErr
		}
		return rec.Spec.ParamShapes(), nil
	})
	if err != nil {
		if recErr != nil && err == recErr {
			return nil, err
		}
		return nil, fmt.Errorf("ssnet: %s: %w", name, err)
	}
	net, err := pairnet.New(rec.Spec, 0)
	if err != nil {
		return nil, fmt.Errorf("ssnet: %s: %w", name, err)
	}
	if err := scnn.AssignParams(net.Params(), arrays); err != nil {
		return nil, fmt.Errorf("ssnet: %s: %w", name, err)
	}
	return &Model{Net: net, Record: rec}, nil
}

// readRecord reads and checks a model file's record; errors name the file.
func readRecord(arch []byte, name string) (Record, error) {
	if err := modelkind.Check(name, arch, modelkind.RNA); err != nil {
		return Record{}, fmt.Errorf("ssnet: %w", err)
	}
	if err := checkpoint.NotAModel(name, arch, modelkind.RNA); err != nil {
		return Record{}, fmt.Errorf("ssnet: %w", err)
	}
	// A field this build does not know is refused, not dropped: a
	// record's fields change what the network computes (the ensemble
	// prior, the channel's rule), so a model written by a newer build
	// must not run as if they were absent.
	var rec Record
	if err := strictjson.Decode(arch, &rec); err != nil {
		return Record{}, fmt.Errorf("ssnet: %s: record: %w (a model written by a newer build?)", name, err)
	}
	if rec.Format != RecordFormat {
		return Record{}, fmt.Errorf("ssnet: %s: record format %d, this build reads %d", name, rec.Format, RecordFormat)
	}
	// The record is checked before anything is allocated for it: the
	// kind, the one-hot input, and the network's bounds (pairnet.Spec.Check).
	sp := rec.Spec
	switch {
	case rec.Kind != CNN && rec.Kind != SCNN:
		return Record{}, fmt.Errorf("ssnet: %s: kind %q (want cnn or scnn)", name, rec.Kind)
	case sp.Symmetric != (rec.Kind == SCNN):
		return Record{}, fmt.Errorf("ssnet: %s: kind %s with a network of symmetric=%v", name, rec.Kind, sp.Symmetric)
	case len(rec.EnsembleTemps) > MaxEnsembleTemps:
		return Record{}, fmt.Errorf("ssnet: %s: %d ensemble_temps (at most %d)", name, len(rec.EnsembleTemps), MaxEnsembleTemps)
	case len(rec.EnsembleTemps) > 0 && !validIn2DWith(sp.In2D, len(rec.EnsembleTemps)):
		return Record{}, fmt.Errorf("ssnet: %s: in_2d %d with %d further ensemble channels (ensemble_temps; want the ensemble channel's widths %d, %d or %d plus them)",
			name, sp.In2D, len(rec.EnsembleTemps), EnsembleChannels, TemplateChannels+EnsembleChannels, TemplateChannels+EnergyChannels+EnsembleChannels)
	case sp.In1D != InChannels || len(rec.EnsembleTemps) == 0 && !validIn2D(sp.In2D) || sp.Fixed2D != 0:
		return Record{}, fmt.Errorf("ssnet: %s: network inputs in_1d %d, in_2d %d, fixed_2d %d (want %d; 0, %d, %d, %d, %d, %d or %d; 0: the one-hot bases, then the template, energy and ensemble channels)",
			name, sp.In1D, sp.In2D, sp.Fixed2D, InChannels, TemplateChannels, EnergyChannels, TemplateChannels+EnergyChannels,
			EnsembleChannels, TemplateChannels+EnsembleChannels, TemplateChannels+EnergyChannels+EnsembleChannels)
	case rec.Step < 0:
		return Record{}, fmt.Errorf("ssnet: %s: step %d (want at least 0)", name, rec.Step)
	case !(rec.MinIdentity >= 0 && rec.MinIdentity <= 1):
		return Record{}, fmt.Errorf("ssnet: %s: template_min_identity %v (want 0..1)", name, rec.MinIdentity)
	case rec.NoTemplate && !rec.Inputs2D().Template:
		return Record{}, fmt.Errorf("ssnet: %s: no_template without the template channels (in_2d %d)", name, sp.In2D)
	case rec.EnsemblePrior && !rec.Inputs2D().Ensemble:
		return Record{}, fmt.Errorf("ssnet: %s: ensemble_prior without the ensemble channel (in_2d %d)", name, sp.In2D)
	case rec.EnsembleGlobal < 0 || rec.EnsembleGlobal > MaxEnsembleGlobal:
		return Record{}, fmt.Errorf("ssnet: %s: ensemble_global %d (want 0..%d)", name, rec.EnsembleGlobal, MaxEnsembleGlobal)
	}
	if err := checkEnsembleTemps(rec.EnsembleTemps); err != nil {
		return Record{}, fmt.Errorf("ssnet: %s: %w", name, err)
	}
	if err := sp.Check(); err != nil {
		return Record{}, fmt.Errorf("ssnet: %s: %w", name, err)
	}
	return rec, nil
}

func validIn2D(w int) bool { _, ok := inputs2DOf(w); return ok }

func validIn2DWith(w, temps int) bool { _, ok := inputs2DWith(w, temps); return ok }

// withPrior is the network's output logits with the ensemble prior added
// when its record says so (Record.EnsemblePrior), else z.
func (m *Model) withPrior(z, x2 *scnn.Tensor) (*scnn.Tensor, error) {
	if !m.Record.EnsemblePrior {
		return z, nil
	}
	return addEnsemblePrior(z, x2, m.Record.Inputs2D().ensembleOffset())
}

// Probabilities returns the symmetric L x L pair probabilities (row-major)
// of a whole sequence (normalised bases), from one inference pass: the
// SCNN's symmetric output, or the CNN's upper triangle mirrored (its loss
// reads only i < j). The diagonal is 0.
func (m *Model) Probabilities(seq string, workers int) ([]float32, error) {
	if m.Record.UsesTemplates() {
		return nil, fmt.Errorf("ssnet: the model takes a homology template (ProbabilitiesWith)")
	}
	return m.ProbabilitiesWith(seq, nil, workers)
}

// ProbabilitiesFor is ProbabilitiesWith for a molecule, with its attached
// Template and MFE (AttachTemplates, AttachMFE); a network with energy
// channels folds a molecule without an attached MFE.
func (m *Model) ProbabilitiesFor(mol *Molecule, workers int) ([]float32, error) {
	if m.Record.UsesTemplates() && mol.Template == nil {
		return nil, fmt.Errorf("ssnet: %s: the model takes a homology template and none is attached", mol.Name)
	}
	if f := m.Record.EnsembleFold(); m.Record.Inputs2D().Ensemble && mol.Ensemble != nil && !mol.HasEnsemble(f) {
		return nil, fmt.Errorf("ssnet: %s: its ensemble channel was attached under the rule %+v, the model's is %+v (AttachEnsembleFold)", mol.Name, mol.EnsembleRule, f)
	}
	for _, f := range m.Record.ExtraEnsembleFolds() {
		for _, e := range mol.EnsembleAt {
			if e.Rule.TemperatureC() == f.TemperatureC() && !e.Rule.Same(f) {
				return nil, fmt.Errorf("ssnet: %s: its ensemble channel at %g C was attached under the rule %+v, the model's is %+v (AttachEnsembleFold)", mol.Name, f.TemperatureC(), e.Rule, f)
			}
		}
	}
	return m.probabilitiesAt(mol.Seq, mol.Template, mol.MFE, mol.Ensemble, mol.EnsembleAt, workers, nil)
}

// ProbabilitiesWith is Probabilities for a network with a 2D input: t
// is the sequence's template (Index.Search or FindTemplate against the
// model's reference set); a template without a reference, or under the
// record's MinIdentity, gives zero channels. A network with energy
// channels folds seq (rna/fold's defaults) for them. A network without
// template channels ignores t.
func (m *Model) ProbabilitiesWith(seq string, t *homology.Template, workers int) ([]float32, error) {
	return m.probabilities(seq, t, nil, nil, workers, nil)
}

// ProbabilitiesAfter is ProbabilitiesWith with afterLayer, when not nil,
// called once with done 0 as the network starts (after the fold of the
// energy channels), then after each layer of the network with the work
// done and the pass's total (pairnet.Inputs.AfterLayer: floating-point
// operations, done increasing to total), for a progress bar over a long
// molecule.
// The probabilities are ProbabilitiesWith's, bit for bit; an error
// afterLayer returns stops the pass and is returned as it is (a
// context's Err, to stop between layers).
func (m *Model) ProbabilitiesAfter(seq string, t *homology.Template, workers int, afterLayer func(done, total float64) error) ([]float32, error) {
	return m.probabilities(seq, t, nil, nil, workers, afterLayer)
}

// ProbabilitiesAfterMFE is ProbabilitiesAfter with the molecule's MFE
// partners given (MFEPartners' or MFEPartnersProgress's, -1 unpaired;
// nil: folded here) for a network with energy channels: an ensemble's
// members share one fold, and a caller can show its progress.
func (m *Model) ProbabilitiesAfterMFE(seq string, t *homology.Template, mfe []int, workers int, afterLayer func(done, total float64) error) ([]float32, error) {
	return m.ProbabilitiesAfterInputs(seq, t, mfe, nil, workers, afterLayer)
}

// ProbabilitiesAfterInputs is ProbabilitiesAfterMFE with the ensemble
// channel's pairs given too (EnsemblePairs', nil: computed here, not
// stoppable) for a network with that channel: an ensemble's members share
// one partition function, computed under the caller's context.
func (m *Model) ProbabilitiesAfterInputs(seq string, t *homology.Template, mfe []int, ens []PairProb, workers int, afterLayer func(done, total float64) error) ([]float32, error) {
	return m.ProbabilitiesAfterEnsembles(seq, t, mfe, ens, nil, workers, afterLayer)
}

// ProbabilitiesAfterEnsembles is ProbabilitiesAfterInputs with the
// further ensemble channels given too (at, by rule: those of the
// network's ExtraEnsembleFolds it lacks are computed here, not
// stoppable), so that an ensemble's members share their partition
// functions at every temperature.
func (m *Model) ProbabilitiesAfterEnsembles(seq string, t *homology.Template, mfe []int, ens []PairProb, at []RuleEnsemble, workers int, afterLayer func(done, total float64) error) ([]float32, error) {
	if mfe != nil && len(mfe) != len(seq) {
		return nil, fmt.Errorf("ssnet: MFE partners of %d bases for a sequence of %d", len(mfe), len(seq))
	}
	for _, e := range append([]RuleEnsemble{{Pairs: ens}}, at...) {
		for _, p := range e.Pairs {
			if p.I < 0 || p.J <= p.I || int(p.J) >= len(seq) {
				return nil, fmt.Errorf("ssnet: an ensemble pair (%d, %d) for a sequence of %d", p.I, p.J, len(seq))
			}
		}
	}
	return m.probabilitiesAt(seq, t, mfe, ens, at, workers, afterLayer)
}

func (m *Model) probabilities(seq string, t *homology.Template, mfe []int, ens []PairProb, workers int, afterLayer func(done, total float64) error) ([]float32, error) {
	return m.probabilitiesAt(seq, t, mfe, ens, nil, workers, afterLayer)
}

// probabilitiesAt is probabilities with the further ensemble channels
// at (those the network takes and at lacks are computed).
func (m *Model) probabilitiesAt(seq string, t *homology.Template, mfe []int, ens []PairProb, at []RuleEnsemble, workers int, afterLayer func(done, total float64) error) ([]float32, error) {
	in := OneHot([]string{seq})
	if c := m.Record.Inputs2D(); c.Width() > 0 {
		if t == nil || t.Identity < m.Record.MinIdentity || m.Record.NoTemplate {
			t = &homology.Template{} // none: zero channels
		}
		if t.Ref != nil && len(t.Map) != len(seq) {
			return nil, fmt.Errorf("ssnet: a template of %d bases for a sequence of %d", len(t.Map), len(seq))
		}
		if c.Energy && mfe == nil {
			var err error
			if mfe, err = MFEPartners(seq, workers); err != nil {
				return nil, err
			}
		}
		if c.Ensemble && ens == nil {
			var err error
			if ens, err = m.Record.EnsembleFold().Pairs(context.Background(), seq, workers); err != nil {
				return nil, err
			}
		}
		mol := &Molecule{Structure: &rna.Structure{Seq: seq}, Template: t, MFE: mfe, Ensemble: ens, EnsembleRule: m.Record.EnsembleFold(), EnsembleAt: at}
		extra := m.Record.ExtraEnsembleFolds()
		for _, f := range extra {
			if !mol.HasEnsemble(f) {
				ps, err := f.Pairs(context.Background(), seq, workers)
				if err != nil {
					return nil, err
				}
				mol.SetEnsemble(f, ps)
			}
		}
		x2, err := window2D([]Window{{Mol: mol, Len: len(seq)}}, len(seq), m.Net.Spec, extra)
		if err != nil {
			return nil, err
		}
		in.X2 = x2
	}
	if afterLayer != nil {
		w := m.Net.Spec.LayerWork(len(seq))
		if err := afterLayer(0, w[len(w)-1]); err != nil {
			return nil, err
		}
		in.AfterLayer = afterLayer
	}
	logits, err := m.Net.Forward(scnn.Inference(workers), in)
	if err != nil {
		return nil, err
	}
	if logits, err = m.withPrior(logits, in.X2); err != nil {
		return nil, err
	}
	l := len(seq)
	z := logits.Data // one sample, one channel
	p := make([]float32, l*l)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			at := i*l + j // row-major (CNN)
			if logits.Layout == scnn.Packed {
				at = scnn.PackedIndex(l, i, j) // packed (SCNN): the upper triangle
			}
			v := float32(1 / (1 + math.Exp(-float64(z[at]))))
			p[i*l+j], p[j*l+i] = v, v
		}
	}
	if m.Record.Hybrid {
		// the logits are pair bonuses: the probabilities are the
		// ensemble's, under the span rule of the ensemble channel
		return HybridProbabilities(context.Background(), seq, p, 1, m.Record.EnsembleFold().Span(l), workers)
	}
	return p, nil
}
