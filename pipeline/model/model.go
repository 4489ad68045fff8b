package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/strictjson"
	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// Kind is the network of a contact model, the paper's CNN or its SCNN:
// scnn.Kind, named here for this package's callers. It is stored (JSON)
// as its string, "cnn" or "scnn".
type Kind = scnn.Kind

// Kinds of model (scnn.CNN and scnn.SCNN).
const (
	CNN  = scnn.CNN
	SCNN = scnn.SCNN
)

// Format is the version of the model record this package writes. Format
// 2 (network package pairnet, typed feature mode and labels) reads the
// parameters of format 1 files unchanged, but a format 1 file is refused
// with a message: its record has no labels or training lengths.
const Format = 2

// Arch describes a contact model; it is stored in the model file.
type Arch struct {
	Format     int     `json:"format"`
	Kind       Kind    `json:"kind"`   // cnn or scnn
	Config     string  `json:"config"` // default or paper
	N1D        int     `json:"n1d"`
	N2D        int     `json:"n2d"`
	LSTMHidden int     `json:"lstm_hidden"` // per direction
	LSTMOut    int     `json:"lstm_out"`    // Dense after the BiLSTM (15 in the paper)
	Blocks     [][]int `json:"blocks"`      // kernel sizes of the parallel convolutions of each block
	Width      int     `json:"width"`       // output channels of each convolution in a block
	Head       []int   `json:"head"`        // kernel sizes after the re-injection; the last outputs 1 channel
	HeadWidth  int     `json:"head_width"`
	// SepChannels adds that many fixed channels of sequence separation
	// (see separationMap) to the 2D features, in both model kinds.
	SepChannels int           `json:"sep_channels,omitempty"`
	Mode        features.Mode `json:"feature_mode"` // feature mode of the training data
	// Labels the model was trained on: contact definition and cutoff.
	// Predictions mean this kind of contact.
	Labels pdb.ContactDef `json:"labels"`
	// MinLen and MaxLen are the shortest and longest training chains;
	// predictions far outside are extrapolation.
	MinLen int `json:"train_min_len,omitempty"`
	MaxLen int `json:"train_max_len,omitempty"`
	// Provenance, filled by training.
	Data    string `json:"data,omitempty"`
	Version string `json:"code_version,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	Epoch   int    `json:"epoch,omitempty"` // epoch the parameters come from
	// Teacher, for a distilled model, names the models it learned from
	// and their parameters' fingerprint (train.Teacher).
	Teacher string `json:"teacher,omitempty"`
	// Precision is the GEMMs' arithmetic in training, "bfloat16" for a
	// run with scnn.SetGemmPrecision("bfloat16"); empty: float32. The
	// parameters are float32 either way, and prediction runs in float32.
	Precision string `json:"train_precision,omitempty"`
}

// Spec is the network an Arch describes: the paper's pair network with
// the protein feature layout, the separation channels as fixed pair
// channels, a pair map with batchnorm and a plain re-injection of the 1D
// features' pair map.
func (a Arch) Spec() pairnet.Spec {
	s := pairnet.Spec{Symmetric: a.Kind == SCNN, In1D: a.N1D, In2D: a.N2D, Fixed2D: a.SepChannels,
		LSTMHidden: a.LSTMHidden, LSTMOut: a.LSTMOut, Pair: pairnet.MapSpec{BN: true}, Reinject: &pairnet.MapSpec{}}
	for _, ks := range a.Blocks {
		s.Blocks = append(s.Blocks, pairnet.Uniform(a.Width, ks...))
	}
	for hi, k := range a.Head {
		if hi == len(a.Head)-1 {
			s.OutKernel = k
			break
		}
		s.Head = append(s.Head, pairnet.Uniform(a.HeadWidth, k))
	}
	return s
}

// DefaultArch is small enough to train to convergence on the bundled data
// on two cores; PaperArch is sized to the paper's CNN budget (2.465M
// trainable parameters).
func DefaultArch(kind Kind) Arch {
	return Arch{Kind: kind, Config: "default", N1D: features.N1D, N2D: features.N2D, LSTMHidden: 16, LSTMOut: 15,
		Blocks: [][]int{{7, 5, 3}, {5, 3}, {3}}, Width: 8, Head: []int{3, 3}, HeadWidth: 8, SepChannels: 3}
}

// PaperArch: blocks (13, 9, 5), (9, 5), (5) of width 54, head (5, 5).
func PaperArch(kind Kind) Arch {
	return Arch{Kind: kind, Config: "paper", N1D: features.N1D, N2D: features.N2D, LSTMHidden: 64, LSTMOut: 15,
		Blocks: [][]int{{13, 9, 5}, {9, 5}, {5}}, Width: 54, Head: []int{5, 5}, HeadWidth: 54, SepChannels: 3}
}

// ArchByName returns DefaultArch or PaperArch.
func ArchByName(kind Kind, config string) (Arch, error) {
	if !kind.Valid() {
		return Arch{}, fmt.Errorf("model: kind %q: want cnn or scnn", kind)
	}
	switch config {
	case "default":
		return DefaultArch(kind), nil
	case "paper":
		return PaperArch(kind), nil
	}
	return Arch{}, fmt.Errorf("model: configuration %q: want default or paper", config)
}

// Model is a protein contact model: its record and its network.
type Model struct {
	Arch Arch
	Net  *pairnet.Net
}

// ErrArch marks an invalid architecture record (Arch.Check).
var ErrArch = errors.New("invalid model architecture")

// Check reports what is wrong with an architecture, naming the field (its
// name in the model file's record): a kind other than cnn or scnn, a
// width, channel count, kernel or block count out of pairnet's bounds
// (pairnet.MaxWidth and the others), a contact cutoff that is not a
// positive finite number (once a zero Labels is taken as the default),
// an unknown contact atom, or negative or crossed training lengths. The
// error wraps ErrArch. Loading a model file checks its record this way
// before allocating anything.
func (a Arch) Check() error {
	bad := func(format string, v ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrArch}, v...)...)
	}
	if !a.Kind.Valid() {
		return bad("kind %q (want cnn or scnn)", a.Kind)
	}
	for _, f := range []struct {
		name string
		v    int
		lo   int
	}{{"n1d", a.N1D, 1}, {"n2d", a.N2D, 0}, {"lstm_hidden", a.LSTMHidden, 0}, {"lstm_out", a.LSTMOut, 0},
		{"width", a.Width, 1}, {"head_width", a.HeadWidth, 1}, {"sep_channels", a.SepChannels, 0}} {
		if f.v < f.lo || f.v > pairnet.MaxWidth {
			return bad("%s %d out of bounds (%d..%d)", f.name, f.v, f.lo, pairnet.MaxWidth)
		}
	}
	switch {
	case len(a.Head) < 1:
		return bad("no head (the last head kernel makes the logits)")
	case len(a.Blocks)+len(a.Head)-1 > pairnet.MaxBlocks:
		return bad("%d blocks and %d head kernels out of bounds (at most %d in all)", len(a.Blocks), len(a.Head), pairnet.MaxBlocks+1)
	}
	labels := a.Labels
	if labels == (pdb.ContactDef{}) {
		labels = pdb.DefaultContactDef
	}
	switch {
	case math.IsNaN(labels.Cutoff) || math.IsInf(labels.Cutoff, 0) || labels.Cutoff <= 0:
		return bad("contact cutoff %v (want a positive number of Å)", labels.Cutoff)
	case labels.Atoms != pdb.CAlpha && labels.Atoms != pdb.CBeta:
		return bad("contact atoms %d (want %d, C-alpha, or %d, C-beta)", labels.Atoms, pdb.CAlpha, pdb.CBeta)
	case a.MinLen < 0:
		return bad("train_min_len %d (want at least 0)", a.MinLen)
	case a.MaxLen < 0:
		return bad("train_max_len %d (want at least 0)", a.MaxLen)
	case a.MaxLen > 0 && a.MinLen > a.MaxLen:
		return bad("train_min_len %d above train_max_len %d", a.MinLen, a.MaxLen)
	}
	if err := a.Spec().Check(); err != nil {
		return fmt.Errorf("%w: %w", ErrArch, err)
	}
	return nil
}

// NewModel builds a model with freshly initialised parameters.
func NewModel(a Arch, seed uint64) (*Model, error) {
	if err := a.Check(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	a.Format = Format
	if a.Labels == (pdb.ContactDef{}) {
		a.Labels = pdb.DefaultContactDef
	}
	n, err := pairnet.New(a.Spec(), seed)
	if err != nil {
		return nil, err
	}
	return &Model{Arch: a, Net: n}, nil
}

// Packed reports whether the model's 2D maps are packed (SCNN).
func (m *Model) Packed() bool { return m.Net.Layout() == scnn.Packed }

// Params lists every parameter (trainable and state) in a fixed order.
func (m *Model) Params() []*scnn.Param { return m.Net.Params() }

// Trainable counts the trainable parameters.
func (m *Model) Trainable() int { return m.Net.Trainable() }

// Forward returns the logits (B, L, L, 1) of a batch: row-major for a
// CNN, packed (exactly symmetric) for an SCNN. In a training pass,
// p.Backward from the logits gives the parameter gradients.
func (m *Model) Forward(p *scnn.Pass, b *Batch) (*scnn.Tensor, error) {
	return m.ForwardAfter(p, b, nil)
}

// ForwardAfter is Forward with afterLayer, when not nil, called after
// each layer of the network with the work done and the pass's total
// (pairnet.Inputs.AfterLayer: floating-point operations, done increasing
// to total). The logits are Forward's, bit for bit; an error afterLayer
// returns stops the pass and is returned as it is (a context's Err, to
// stop a long prediction between layers).
func (m *Model) ForwardAfter(p *scnn.Pass, b *Batch, afterLayer func(done, total float64) error) (*scnn.Tensor, error) {
	if b.X2.Layout == scnn.Packed != m.Packed() {
		return nil, fmt.Errorf("model: batch layout %s for a %s model", b.X2.Layout, m.Arch.Kind)
	}
	in := pairnet.Inputs{X1: b.X1, X2: b.X2, Lengths: b.Lengths, AfterLayer: afterLayer}
	if m.Arch.SepChannels > 0 {
		in.Fixed = separationMap(b, m.Arch.SepChannels)
	}
	return m.Net.Forward(p, in)
}

// Save writes the model (architecture record + parameters) atomically.
func (m *Model) Save(path string) error {
	arch, err := json.Marshal(m.Arch)
	if err != nil {
		return err
	}
	return fileio.WriteAtomic(path, func(w io.Writer) error { return scnn.WriteParams(w, arch, m.Params()) })
}

// LoadModel reads a model file.
func LoadModel(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadModel(f, path)
}

// ReadModel reads a model from r; name is the file name for errors. A
// file holding another kind of model (an RNA or recommendation model)
// gives a *modelkind.WrongKindError; an architecture record out of
// bounds (Arch.Check) an error wrapping ErrArch, before anything is
// allocated for it. The record is read first and the file's arrays are
// checked against the parameters of the network it describes
// (pairnet.Spec.ParamShapes) before they are allocated, and the network
// is built only for a file that holds all of them: an array of another
// shape is refused naming it and both shapes (scnn.ErrMismatch), so a
// small file whose record describes a large network fails having
// allocated about its own size. A record holding a field Arch does not
// have (one a newer build wrote) is refused naming the field, with an
// error wrapping ErrUnknownField.
func ReadModel(r io.Reader, name string) (*Model, error) {
	var (
		a      Arch
		recErr error // an error of the record, returned as it is
	)
	_, arrays, err := scnn.ReadParamsExpect(r, func(archJSON []byte) ([]scnn.ParamShape, error) {
		a, recErr = readArch(archJSON, name)
		if recErr != nil {
			return nil, recErr
		}
		return a.Spec().ParamShapes(), nil
	})
	if err != nil {
		if recErr != nil && err == recErr {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m, err := NewModel(a, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := scnn.AssignParams(m.Params(), arrays); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// readArch reads and checks a model file's architecture record; errors
// name the file.
func readArch(archJSON []byte, name string) (Arch, error) {
	if err := modelkind.Check(name, archJSON, modelkind.Protein); err != nil {
		return Arch{}, fmt.Errorf("model: %w", err)
	}
	if err := checkpoint.NotAModel(name, archJSON, modelkind.Protein); err != nil {
		return Arch{}, fmt.Errorf("model: %w", err)
	}
	var head struct {
		Format int `json:"format"`
	}
	if err := json.Unmarshal(archJSON, &head); err != nil {
		return Arch{}, fmt.Errorf("%s: architecture record: %w", name, err)
	}
	if head.Format != Format {
		f := head.Format
		if f == 0 {
			f = 1 // files before the format was recorded
		}
		return Arch{}, fmt.Errorf("%s: model file format %d, this build reads format %d: %w (retrain it with contactmap train)", name, f, Format, ErrFormat)
	}
	var a Arch
	if err := json.Unmarshal(archJSON, &a); err != nil {
		return Arch{}, fmt.Errorf("%s: architecture record: %w", name, err)
	}
	// A field this build does not know is refused, not dropped: the
	// record's fields say what the network computes (its inputs, its
	// labels), so a model written by a newer build must not run as if
	// they were absent. Every key a format-2 record has carried is one
	// of Arch's (TestReadModelKnownKeys); format 1's contact_def and
	// contact_cutoff were refused above, by the format.
	if err := strictjson.Decode(archJSON, new(Arch)); err != nil {
		return Arch{}, fmt.Errorf("%s: architecture record: %w: %w", name, err, ErrUnknownField)
	}
	if err := a.Check(); err != nil {
		return Arch{}, fmt.Errorf("model: %s: %w", name, err)
	}
	return a, nil
}

// ErrFormat marks a model file of another format version.
var ErrFormat = errors.New("unsupported model file format")

// ErrUnknownField marks an architecture record holding a field this
// build does not know.
var ErrUnknownField = errors.New("a field this build does not know: the file may come from a newer contactmap")

// separationMap returns the fixed symmetric pair channels of a batch, in
// its layout, zero at padding: for d = |i-j|,
//
//	0: log(1+d) / log(101)   1: 1 if d < 6   2: 1 if d >= 24
//
// An sgConv on a self-Cartesian product sees x_i and x_j only through
// a_i + a_j, so unlike a CNN it cannot form the separation from position
// features; these channels give it to both model kinds alike.
func separationMap(b *Batch, n int) *scnn.Tensor {
	nb, l := len(b.Lengths), b.L
	var t *scnn.Tensor
	if b.X2.Layout == scnn.Packed {
		t = scnn.NewPacked(nb, l, n)
	} else {
		t = scnn.New(nb, l, l, n)
	}
	// The channels depend only on d: one row of values per separation.
	vals := make([][3]float32, l)
	for d := range vals {
		vals[d][0] = float32(math.Log1p(float64(d)) / math.Log(101))
		if d < 6 {
			vals[d][1] = 1
		}
		if d >= 24 {
			vals[d][2] = 1
		}
	}
	packed := t.Layout == scnn.Packed
	stride := t.Len() / nb // values per sample
	for s, ls := range b.Lengths {
		ts := t.Data[s*stride : (s+1)*stride]
		p := 0 // stored pixel
		for i := 0; i < l; i++ {
			j0 := 0
			if packed {
				j0 = i
			}
			for j := j0; j < l; j, p = j+1, p+1 {
				if i >= ls || j >= ls {
					continue
				}
				d := max(j-i, i-j)
				copy(ts[p*n:p*n+min(n, 3)], vals[d][:])
			}
		}
	}
	return t
}
