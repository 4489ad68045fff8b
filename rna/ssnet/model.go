package ssnet

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/scnn"
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
	// (Spec.In2D == TemplateChannels), the identity under which a
	// template is left out.
	MinIdentity float64 `json:"template_min_identity,omitempty"`
}

// UsesTemplates reports whether the network takes template channels.
func (r Record) UsesTemplates() bool { return r.Spec.In2D == TemplateChannels }

// RecordFormat is the version of Record.
const RecordFormat = 1

// Model is a trained network with its record.
type Model struct {
	Net    *pairnet.Net
	Record Record
}

// NewModel builds a network of a kind under a protocol.
func NewModel(k Kind, p Protocol, seed uint64) (*Model, error) {
	spec := p.Spec(k)
	net, err := pairnet.New(spec, seed)
	if err != nil {
		return nil, err
	}
	return &Model{Net: net, Record: Record{Format: RecordFormat, Kind: k, Protocol: p.Name, Spec: spec, Seed: seed, MinIdentity: p.MinIdentity}}, nil
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
// anything is allocated for it.
func ReadModel(r io.Reader, name string) (*Model, error) {
	arch, arrays, err := scnn.ReadParams(r)
	if err != nil {
		return nil, fmt.Errorf("ssnet: %s: %w", name, err)
	}
	if err := modelkind.Check(name, arch, modelkind.RNA); err != nil {
		return nil, fmt.Errorf("ssnet: %w", err)
	}
	var rec Record
	if err := json.Unmarshal(arch, &rec); err != nil {
		return nil, fmt.Errorf("ssnet: %s: record: %w", name, err)
	}
	if rec.Format != RecordFormat {
		return nil, fmt.Errorf("ssnet: %s: record format %d, this build reads %d", name, rec.Format, RecordFormat)
	}
	// The record is checked before anything is allocated for it: the
	// kind, the one-hot input, and the network's bounds (pairnet.Spec.Check).
	sp := rec.Spec
	switch {
	case rec.Kind != CNN && rec.Kind != SCNN:
		return nil, fmt.Errorf("ssnet: %s: kind %q (want cnn or scnn)", name, rec.Kind)
	case sp.Symmetric != (rec.Kind == SCNN):
		return nil, fmt.Errorf("ssnet: %s: kind %s with a network of symmetric=%v", name, rec.Kind, sp.Symmetric)
	case sp.In1D != InChannels || sp.In2D != 0 && sp.In2D != TemplateChannels || sp.Fixed2D != 0:
		return nil, fmt.Errorf("ssnet: %s: network inputs in_1d %d, in_2d %d, fixed_2d %d (want %d, 0 or %d, 0: the one-hot bases and the template channels)", name, sp.In1D, sp.In2D, sp.Fixed2D, InChannels, TemplateChannels)
	case rec.Step < 0:
		return nil, fmt.Errorf("ssnet: %s: step %d (want at least 0)", name, rec.Step)
	case !(rec.MinIdentity >= 0 && rec.MinIdentity <= 1):
		return nil, fmt.Errorf("ssnet: %s: template_min_identity %v (want 0..1)", name, rec.MinIdentity)
	}
	if err := sp.Check(); err != nil {
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

// ProbabilitiesWith is Probabilities for a network with template
// channels: t is the sequence's template (Index.Search or FindTemplate
// against the model's reference set); a template without a reference,
// or under the record's MinIdentity, gives zero channels. A network
// without template channels ignores t.
func (m *Model) ProbabilitiesWith(seq string, t *homology.Template, workers int) ([]float32, error) {
	in := OneHot([]string{seq})
	if m.Record.UsesTemplates() {
		if t == nil || t.Identity < m.Record.MinIdentity {
			t = &homology.Template{} // none: zero channels
		}
		if t.Ref != nil && len(t.Map) != len(seq) {
			return nil, fmt.Errorf("ssnet: a template of %d bases for a sequence of %d", len(t.Map), len(seq))
		}
		mol := &Molecule{Structure: &rna.Structure{Seq: seq}, Template: t}
		x2, err := windowTemplates([]Window{{Mol: mol, Len: len(seq)}}, len(seq), m.Net.Spec)
		if err != nil {
			return nil, err
		}
		in.X2 = x2
	}
	logits, err := m.Net.Forward(scnn.Inference(workers), in)
	if err != nil {
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
	return p, nil
}
