package train

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/scnn"
)

// Kinds of model.
const (
	CNN  = "cnn"
	SCNN = "scnn"
)

// Arch describes a contact model; it is stored in the model file.
type Arch struct {
	Kind       string  `json:"kind"`   // cnn or scnn
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
	SepChannels int    `json:"sep_channels,omitempty"`
	Mode        string `json:"feature_mode"` // feature mode of the training data
	// Labels the model was trained on: contact definition (0 C-alpha,
	// 1 C-beta) and cutoff in Å (0 in files before it was recorded: the
	// default, 8). Predictions mean this kind of contact.
	Contact pdb.Definition `json:"contact_def"`
	Cutoff  float64        `json:"contact_cutoff,omitempty"`
	// MinLen and MaxLen are the shortest and longest training chains
	// (0 when not recorded); predictions far outside are extrapolation.
	MinLen int `json:"train_min_len,omitempty"`
	MaxLen int `json:"train_max_len,omitempty"`
	// Provenance, filled by training.
	Data    string `json:"data,omitempty"`
	Version string `json:"code_version,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	Epoch   int    `json:"epoch,omitempty"` // epoch the parameters come from
}

// DefaultArch is small enough to train to convergence on the bundled data
// on two cores; PaperArch is sized to the paper's CNN budget (2.465M
// trainable parameters).
func DefaultArch(kind string) Arch {
	return Arch{Kind: kind, Config: "default", N1D: features.N1D, N2D: features.N2D, LSTMHidden: 16, LSTMOut: 15,
		Blocks: [][]int{{7, 5, 3}, {5, 3}, {3}}, Width: 8, Head: []int{3, 3}, HeadWidth: 8, SepChannels: 3}
}

// PaperArch: blocks (13, 9, 5), (9, 5), (5) of width 54, head (5, 5).
func PaperArch(kind string) Arch {
	return Arch{Kind: kind, Config: "paper", N1D: features.N1D, N2D: features.N2D, LSTMHidden: 64, LSTMOut: 15,
		Blocks: [][]int{{13, 9, 5}, {9, 5}, {5}}, Width: 54, Head: []int{5, 5}, HeadWidth: 54, SepChannels: 3}
}

// ArchByName returns DefaultArch or PaperArch.
func ArchByName(kind, config string) (Arch, error) {
	if kind != CNN && kind != SCNN {
		return Arch{}, fmt.Errorf("train: model kind %q: want cnn or scnn", kind)
	}
	switch config {
	case "default":
		return DefaultArch(kind), nil
	case "paper":
		return PaperArch(kind), nil
	}
	return Arch{}, fmt.Errorf("train: configuration %q: want default or paper", config)
}

// conv is an ordinary or symmetric convolution.
type conv interface {
	scnn.Layer
	scnn.BranchConv
	OutChannels() int
	Forward(*scnn.Tensor) (*scnn.Tensor, error)
	Backward(*scnn.Tensor) (*scnn.Tensor, error)
}

type block struct {
	convs []conv // parallel branches on one input, outputs joined by channel
	bn    *scnn.BatchNorm2D
	relu  scnn.ReLU
}

// Model is a CNN or SCNN contact model (see package doc for the layout).
type Model struct {
	Arch Arch

	lstm   *scnn.BiLSTM
	dense  *scnn.Dense
	cat1   scnn.Concat // [x1, dense] -> 1D features of width N1D+LSTMOut
	sc1    scnn.SelfCartesian
	sg1    *scnn.SymGenConv // SCNN: replaces sc1
	pairBN *scnn.BatchNorm2D
	catSep scnn.Concat // 2D features + separation channels
	cat2   scnn.Concat // + 2D features
	blocks []*block
	sc2    scnn.SelfCartesian // re-injection of x1
	sg2    *scnn.SymGenConv
	cat3   scnn.Concat // re-injection [x1 pair, x2]
	cat4   scnn.Concat // [block output, re-injection]
	head   []*block    // all but the last conv: conv, BN, ReLU
	final  conv

	lengths []int
}

// NewModel builds a model with freshly initialised parameters.
func NewModel(a Arch, seed uint64) (*Model, error) {
	rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
	m := &Model{Arch: a}
	var err error
	if m.lstm, err = scnn.NewBiLSTM("lstm", a.N1D, a.LSTMHidden, rng); err != nil {
		return nil, err
	}
	if m.dense, err = scnn.NewDense("lstm_dense", 2*a.LSTMHidden, a.LSTMOut, rng); err != nil {
		return nil, err
	}
	n1 := a.N1D + a.LSTMOut
	n2 := a.N2D + a.SepChannels
	in := 2*n1 + n2
	m.pairBN = scnn.NewBatchNorm2D("pair.bn", 2*n1)
	sym := a.Kind == SCNN
	if sym {
		if m.sg1, err = scnn.NewSymGenConv("pair", 1, n1, 2*n1, rng); err != nil {
			return nil, err
		}
		if m.sg2, err = scnn.NewSymGenConv("reinject", 1, a.N1D, 2*a.N1D, rng); err != nil {
			return nil, err
		}
	}
	newConv := func(name string, k, cin, cout int) (conv, error) {
		if sym {
			return scnn.NewSymPresConv(name, k, cin, cout, rng)
		}
		return scnn.NewConv2D(name, k, cin, cout, rng)
	}
	for bi, ks := range a.Blocks {
		b := &block{bn: scnn.NewBatchNorm2D(fmt.Sprintf("block%d.bn", bi+1), a.Width*len(ks))}
		for _, k := range ks {
			c, err := newConv(fmt.Sprintf("block%d.k%d", bi+1, k), k, in, a.Width)
			if err != nil {
				return nil, err
			}
			b.convs = append(b.convs, c)
		}
		m.blocks = append(m.blocks, b)
		in = a.Width * len(ks)
	}
	in += 2*a.N1D + n2
	for hi, k := range a.Head {
		name := fmt.Sprintf("head%d.k%d", hi+1, k)
		if hi == len(a.Head)-1 {
			if m.final, err = newConv(name, k, in, 1); err != nil {
				return nil, err
			}
			break
		}
		c, err := newConv(name, k, in, a.HeadWidth)
		if err != nil {
			return nil, err
		}
		m.head = append(m.head, &block{convs: []conv{c}, bn: scnn.NewBatchNorm2D(name+".bn", a.HeadWidth)})
		in = a.HeadWidth
	}
	return m, nil
}

// Packed reports whether the model's 2D maps are packed (SCNN).
func (m *Model) Packed() bool { return m.Arch.Kind == SCNN }

// Params lists every parameter (trainable and state) in a fixed order.
func (m *Model) Params() []*scnn.Param {
	var ps []*scnn.Param
	add := func(l scnn.Layer) { ps = append(ps, l.Params()...) }
	add(m.lstm)
	add(m.dense)
	if m.sg1 != nil {
		add(m.sg1)
		add(m.sg2)
	}
	add(m.pairBN)
	for _, b := range append(append([]*block(nil), m.blocks...), m.head...) {
		for _, c := range b.convs {
			add(c)
		}
		add(b.bn)
	}
	add(m.final)
	return ps
}

// Trainable counts the trainable parameters.
func (m *Model) Trainable() int {
	n := 0
	for _, p := range m.Params() {
		if p.Trainable {
			n += len(p.Value)
		}
	}
	return n
}

// SetWorkers sets the goroutines of every convolution.
func (m *Model) SetWorkers(w int) {
	for _, b := range append(append([]*block(nil), m.blocks...), m.head...) {
		for _, c := range b.convs {
			setWorkers(c, w)
		}
	}
	setWorkers(m.final, w)
}

func setWorkers(c conv, w int) {
	switch c := c.(type) {
	case *scnn.Conv2D:
		c.Workers = w
	case *scnn.SymPresConv:
		c.Workers = w
	}
}

func (b *block) forward(x *scnn.Tensor, lengths []int, train bool) (*scnn.Tensor, error) {
	bcs := make([]scnn.BranchConv, len(b.convs))
	for i, c := range b.convs {
		bcs[i] = c
	}
	y, err := scnn.ForwardBranches(x, bcs...)
	if err != nil {
		return nil, err
	}
	if y, err = b.bn.Forward(y, lengths, train); err != nil {
		return nil, err
	}
	return b.relu.ForwardInPlace(y), nil // y is the batchnorm's own output
}

func (b *block) backward(dy *scnn.Tensor) (*scnn.Tensor, error) {
	g, err := b.relu.BackwardInPlace(dy) // dy is not used after this
	if err != nil {
		return nil, err
	}
	if g, err = b.bn.Backward(g); err != nil {
		return nil, err
	}
	parts := []*scnn.Tensor{g}
	if len(b.convs) > 1 {
		widths := make([]int, len(b.convs))
		for i, c := range b.convs {
			widths[i] = c.OutChannels()
		}
		if parts, err = scnn.SplitChannels(g, widths...); err != nil {
			return nil, err
		}
	}
	var dx *scnn.Tensor
	for i, c := range b.convs {
		d, err := c.Backward(parts[i])
		if err != nil {
			return nil, err
		}
		if dx == nil {
			dx = d
		} else {
			for k, v := range d.Data {
				dx.Data[k] += v
			}
		}
	}
	return dx, nil
}

// pairMap turns 1D features into the model's first 2D map: the
// self-Cartesian product (CNN) or a 1x1 sgConv (SCNN), padding zeroed.
func (m *Model) pairMap(sc *scnn.SelfCartesian, sg *scnn.SymGenConv, x *scnn.Tensor) (*scnn.Tensor, error) {
	var y *scnn.Tensor
	var err error
	if sg != nil {
		y, err = sg.Forward(x)
	} else {
		y, err = sc.Forward(x)
	}
	if err != nil {
		return nil, err
	}
	return y, scnn.MaskPixels(y, m.lengths)
}

func (m *Model) pairMapBackward(sc *scnn.SelfCartesian, sg *scnn.SymGenConv, dy *scnn.Tensor) (*scnn.Tensor, error) {
	if err := scnn.MaskPixels(dy, m.lengths); err != nil {
		return nil, err
	}
	if sg != nil {
		return sg.Backward(dy)
	}
	return sc.Backward(dy)
}

// Forward returns the logits (B, L, L, 1): row-major for a CNN, packed
// (exactly symmetric) for an SCNN.
func (m *Model) Forward(b *Batch, train bool) (*scnn.Tensor, error) {
	m.lengths = b.Lengths
	if b.X2.Layout == scnn.Packed != m.Packed() {
		return nil, fmt.Errorf("train: batch layout %s for a %s model", b.X2.Layout, m.Arch.Kind)
	}
	h, err := m.lstm.Forward(b.X1, b.Lengths)
	if err != nil {
		return nil, err
	}
	if h, err = m.dense.Forward(h); err != nil {
		return nil, err
	}
	if err := scnn.MaskSequences(h, b.Lengths); err != nil {
		return nil, err
	}
	x40, err := m.cat1.Forward(b.X1, h)
	if err != nil {
		return nil, err
	}
	pair, err := m.pairMap(&m.sc1, m.sg1, x40)
	if err != nil {
		return nil, err
	}
	if pair, err = m.pairBN.Forward(pair, b.Lengths, train); err != nil {
		return nil, err
	}
	x2 := b.X2
	if m.Arch.SepChannels > 0 {
		if x2, err = m.catSep.Forward(x2, separationMap(b, m.Arch.SepChannels)); err != nil {
			return nil, err
		}
	}
	y, err := m.cat2.Forward(pair, x2)
	if err != nil {
		return nil, err
	}
	for _, blk := range m.blocks {
		if y, err = blk.forward(y, b.Lengths, train); err != nil {
			return nil, err
		}
	}
	re, err := m.pairMap(&m.sc2, m.sg2, b.X1)
	if err != nil {
		return nil, err
	}
	if re, err = m.cat3.Forward(re, x2); err != nil {
		return nil, err
	}
	if y, err = m.cat4.Forward(y, re); err != nil {
		return nil, err
	}
	for _, blk := range m.head {
		if y, err = blk.forward(y, b.Lengths, train); err != nil {
			return nil, err
		}
	}
	return m.final.Forward(y)
}

// Backward propagates the logits' gradient and accumulates parameter
// gradients.
func (m *Model) Backward(dlogits *scnn.Tensor) error {
	g, err := m.final.Backward(dlogits)
	if err != nil {
		return err
	}
	for i := len(m.head) - 1; i >= 0; i-- {
		if g, err = m.head[i].backward(g); err != nil {
			return err
		}
	}
	parts, err := m.cat4.Backward(g)
	if err != nil {
		return err
	}
	g = parts[0]
	reParts, err := m.cat3.Backward(parts[1])
	if err != nil {
		return err
	}
	if m.sg2 != nil { // the CNN's re-injected product has no parameters
		if _, err := m.pairMapBackward(nil, m.sg2, reParts[0]); err != nil {
			return err
		}
	}
	for i := len(m.blocks) - 1; i >= 0; i-- {
		if g, err = m.blocks[i].backward(g); err != nil {
			return err
		}
	}
	parts, err = m.cat2.Backward(g)
	if err != nil {
		return err
	}
	dpair, err := m.pairBN.Backward(parts[0])
	if err != nil {
		return err
	}
	dx40, err := m.pairMapBackward(&m.sc1, m.sg1, dpair)
	if err != nil {
		return err
	}
	parts, err = m.cat1.Backward(dx40)
	if err != nil {
		return err
	}
	dh := parts[1]
	if err := scnn.MaskSequences(dh, m.lengths); err != nil {
		return err
	}
	if dh, err = m.dense.Backward(dh); err != nil {
		return err
	}
	_, err = m.lstm.Backward(dh)
	return err
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

// ReadModel reads a model from r; name is the file name for errors.
func ReadModel(r io.Reader, name string) (*Model, error) {
	archJSON, arrays, err := scnn.ReadParams(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var a Arch
	if err := json.Unmarshal(archJSON, &a); err != nil {
		return nil, fmt.Errorf("%s: architecture record: %w", name, err)
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

// ContactCutoff is the cutoff of the model's labels in Å.
func (a Arch) ContactCutoff() float64 {
	if a.Cutoff == 0 {
		return pdb.ContactCutoff
	}
	return a.Cutoff
}

// LabelText describes the model's labels, e.g. "C-alpha pairs closer than
// 8 Å".
func (a Arch) LabelText() string {
	atom := "C-alpha"
	if a.Contact == pdb.CBeta {
		atom = "C-beta"
	}
	return fmt.Sprintf("%s pairs closer than %g Å", atom, a.ContactCutoff())
}

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
