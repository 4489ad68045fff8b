package rec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/strictjson"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// Config is a network's shape; the defaults are CosRec's for MovieLens.
// Model files store it as JSON, the network under this package's name
// (Config.MarshalJSON): {"kind":"cosrec","users":...,"items":...,"l":...,
// "d":...,"blocks":[...],"fc":...,"dropout":...}.
type Config struct {
	Kind    scnn.Kind // CosRec or SCosRec
	Users   int
	Items   int   // catalogue size; ids 1..Items, 0 padding
	L       int   // items in the input sequence (5)
	D       int   // embedding size (50)
	Blocks  []int // block widths (128, 256)
	FC      int   // width of the dense layer after pooling (150)
	Dropout float64

	// kindName is the network's name in a record that names none of
	// this package's (UnmarshalJSON); Check refuses it.
	kindName string
}

// DefaultConfig is CosRec's configuration for ML-1M (d = 50, blocks 128
// and 256, FC 150, dropout 0.5, L = 5) for a data set's sizes.
func DefaultConfig(kind scnn.Kind, users, items int) Config {
	return Config{Kind: kind, Users: users, Items: items, L: 5, D: 50, Blocks: []int{128, 256}, FC: 150, Dropout: 0.5}
}

// block is one CosRec block: a 1x1 convolution and a valid 3x3 one, each
// followed by batchnorm and ReLU. In CosRec the convolutions are Conv2D;
// in SCosRec the first block's 1x1 is an sgConv on the item embeddings
// (gen) and the others are spConvs.
type block struct {
	gen        *scnn.SymGenConv
	sym1, sym3 *scnn.SymPresConv
	full1      *scnn.Conv2D
	full3      *scnn.Conv2D
	bn1, bn3   *scnn.BatchNorm2D
	all        []scnn.Layer // the layers above that exist, in order
}

// Model is a CosRec or SCosRec network.
type Model struct {
	Config
	UserEmb, ItemEmb *scnn.Embedding
	Out, OutBias     *scnn.Embedding // CosRec's W2 (Items+1, FC+D) and b2 (Items+1, 1)
	FCLayer          *scnn.Dense
	blocks           []*block
	mod              scnn.Module // every parameter, added as the layers are built
}

// Bounds of a Config, checked before anything is allocated so that a
// corrupt or hostile model file is refused with a message instead of
// running the process out of memory. They are far above CosRec's
// configurations and the MovieLens sets (ML-20M: 138,493 users, 26,744
// items).
const (
	MaxUsers  = 1 << 24 // users (16.8M)
	MaxItems  = 1 << 24 // items (16.8M)
	MaxL      = 256     // items in the input sequence
	MaxD      = 1024    // embedding size
	MaxWidth  = 4096    // a block's width and FC
	MaxBlocks = 16      // blocks
	// MaxParams bounds Config.ParamBound (128M float32 values, 512 MiB).
	MaxParams = 1 << 27
)

// ErrConfig marks an invalid configuration (Config.Check).
var ErrConfig = errors.New("invalid configuration")

// Check reports what is wrong with a configuration, naming the field (its
// name in a model file's record): an unknown kind, a size out of the
// bounds above, too few items in the sequence for the blocks, a dropout
// outside [0, 1), or more parameters than MaxParams. The error wraps
// ErrConfig.
func (c Config) Check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	if c.kindName != "" || (c.Kind != CosRec && c.Kind != SCosRec) {
		return bad("kind %q (want cosrec or scosrec)", c.name())
	}
	for _, f := range []struct {
		name      string
		v, lo, hi int
	}{{"users", c.Users, 1, MaxUsers}, {"items", c.Items, 1, MaxItems}, {"l", c.L, 3, MaxL}, {"d", c.D, 1, MaxD},
		{"fc", c.FC, 1, MaxWidth}, {"blocks", len(c.Blocks), 1, MaxBlocks}} {
		if f.v < f.lo || f.v > f.hi {
			return bad("%s %d out of bounds (%d..%d)", f.name, f.v, f.lo, f.hi)
		}
	}
	for i, w := range c.Blocks {
		if w < 1 || w > MaxWidth {
			return bad("block %d width %d out of bounds (1..%d)", i+1, w, MaxWidth)
		}
	}
	switch {
	case c.L-2*len(c.Blocks) < 1:
		return bad("%d valid 3x3 blocks need l > %d, have %d", len(c.Blocks), 2*len(c.Blocks), c.L)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return bad("dropout %v (want 0 <= dropout < 1)", c.Dropout)
	}
	if n := c.ParamBound(); n > MaxParams {
		return bad("%d users and %d items with d %d and fc %d: %d parameters out of bounds (at most %d)", c.Users, c.Items, c.D, c.FC, n, MaxParams)
	}
	return nil
}

// ParamBound is an upper bound of the parameter values (trainable and
// batchnorm state) of the network of a configuration whose sizes are
// within Check's bounds (convolutions counted as full ones).
func (c Config) ParamBound() int {
	n := c.Users*c.D + (c.Items+1)*(2*c.D+c.FC+1)
	in := 2 * c.D
	for _, w := range c.Blocks {
		n += in*w + w + 9*w*w + w + 8*w
		in = w
	}
	return n + in*c.FC + c.FC
}

// ParamShapes lists the names and shapes of the parameters NewModel
// builds for c, in the order of Model.Params, without allocating them: a
// model file's reader checks the file's arrays against them before
// allocating the network (scnn.ReadParamsExpect). c must pass Check.
func (c Config) ParamShapes() []scnn.ParamShape {
	var out []scnn.ParamShape
	add := func(ps []scnn.ParamShape) { out = append(out, ps...) }
	add(scnn.EmbeddingShapes("user", c.Users, c.D))
	add(scnn.EmbeddingShapes("item", c.Items+1, c.D))
	add(scnn.EmbeddingShapes("out.W", c.Items+1, c.FC+c.D))
	add(scnn.EmbeddingShapes("out.b", c.Items+1, 1))
	in := 2 * c.D
	for i, width := range c.Blocks {
		name := fmt.Sprintf("block%d", i+1)
		switch {
		case c.Kind == CosRec:
			add(scnn.Conv2DShapes(name+".conv1", 1, in, width))
			add(scnn.BatchNorm2DShapes(name+".bn1", width))
			add(scnn.Conv2DShapes(name+".conv3", 3, width, width))
		case i == 0:
			add(scnn.SymGenConvShapes(name+".sgconv1", 1, c.D, width))
			add(scnn.BatchNorm2DShapes(name+".bn1", width))
			add(scnn.SymPresConvShapes(name+".spconv3", 3, width, width))
		default:
			add(scnn.SymPresConvShapes(name+".spconv1", 1, in, width))
			add(scnn.BatchNorm2DShapes(name+".bn1", width))
			add(scnn.SymPresConvShapes(name+".spconv3", 3, width, width))
		}
		add(scnn.BatchNorm2DShapes(name+".bn3", width))
		in = width
	}
	add(scnn.DenseShapes("fc", in, c.FC))
	return out
}

// NewModel builds a network with initial weights drawn from seed:
// embeddings N(0, 1/d) as CosRec (W2 N(0, 1/(FC+D)), b2 zero),
// convolutions Glorot, their symmetric variants half-Glorot.
func NewModel(cfg Config, seed uint64) (*Model, error) {
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("rec: %w", err)
	}
	rng := rand.New(rand.NewPCG(seed, 0xc05ec))
	m := &Model{Config: cfg}
	var err error
	if m.UserEmb, err = scnn.NewEmbedding("user", cfg.Users, cfg.D, 1/float64(cfg.D), rng); err != nil {
		return nil, err
	}
	if m.ItemEmb, err = scnn.NewEmbedding("item", cfg.Items+1, cfg.D, 1/float64(cfg.D), rng); err != nil {
		return nil, err
	}
	if m.Out, err = scnn.NewEmbedding("out.W", cfg.Items+1, cfg.FC+cfg.D, 1/float64(cfg.FC+cfg.D), rng); err != nil {
		return nil, err
	}
	if m.OutBias, err = scnn.NewEmbedding("out.b", cfg.Items+1, 1, 0, rng); err != nil {
		return nil, err
	}
	m.mod.Add(m.UserEmb, m.ItemEmb, m.Out, m.OutBias)
	in := 2 * cfg.D
	for i, width := range cfg.Blocks {
		name := fmt.Sprintf("block%d", i+1)
		b := &block{bn1: scnn.NewBatchNorm2D(name+".bn1", width), bn3: scnn.NewBatchNorm2D(name+".bn3", width)}
		switch {
		case cfg.Kind == CosRec:
			if b.full1, err = scnn.NewConv2D(name+".conv1", 1, in, width, rng); err != nil {
				return nil, err
			}
			b.full3, err = scnn.NewConv2D(name+".conv3", 3, width, width, rng)
		case i == 0:
			if b.gen, err = scnn.NewSymGenConv(name+".sgconv1", 1, cfg.D, width, rng); err != nil {
				return nil, err
			}
			b.sym3, err = scnn.NewSymPresConv(name+".spconv3", 3, width, width, rng)
		default:
			if b.sym1, err = scnn.NewSymPresConv(name+".spconv1", 1, in, width, rng); err != nil {
				return nil, err
			}
			b.sym3, err = scnn.NewSymPresConv(name+".spconv3", 3, width, width, rng)
		}
		if err != nil {
			return nil, err
		}
		if b.full1 != nil {
			b.all = []scnn.Layer{b.full1, b.bn1, b.full3, b.bn3}
		} else if b.gen != nil {
			b.all = []scnn.Layer{b.gen, b.bn1, b.sym3, b.bn3}
		} else {
			b.all = []scnn.Layer{b.sym1, b.bn1, b.sym3, b.bn3}
		}
		m.blocks = append(m.blocks, b)
		m.mod.Add(b.all...)
		in = width
	}
	if m.FCLayer, err = scnn.NewDense("fc", in, cfg.FC, rng); err != nil {
		return nil, err
	}
	m.mod.Add(m.FCLayer)
	if err := m.mod.Err(); err != nil {
		return nil, err
	}
	// PyTorch's Adam weight_decay, as CosRec uses it, decays every parameter.
	for _, p := range m.Params() {
		p.Decay = p.Trainable
	}
	return m, nil
}

// Params returns every parameter, embeddings first.
func (m *Model) Params() []*scnn.Param { return m.mod.Params() }

// Trainable is the number of trainable parameters.
func (m *Model) Trainable() int { return m.mod.Trainable() }

// Hidden returns the (B, FC+D) representation [tanh(FC(pool)),
// user embedding] of users (B) with their last L items seq (B*L). rng
// draws the dropout mask of a training pass (nil in inference).
func (m *Model) Hidden(p *scnn.Pass, users, seq []int32, rng *rand.Rand) (*scnn.Tensor, error) {
	b := len(users)
	if len(seq) != b*m.L {
		return nil, fmt.Errorf("rec: %d sequence items for %d users of %d", len(seq), b, m.L)
	}
	e, err := m.ItemEmb.Lookup(p, seq, b, m.L)
	if err != nil {
		return nil, err
	}
	var x *scnn.Tensor
	for i, blk := range m.blocks {
		var y *scnn.Tensor
		switch {
		case blk.full1 != nil:
			if i == 0 {
				if x, err = scnn.SelfCartesian(p, e); err != nil {
					return nil, err
				}
			}
			y, err = blk.full1.Apply(p, x)
		case blk.gen != nil:
			y, err = blk.gen.Apply(p, e)
		default:
			y, err = blk.sym1.Apply(p, x)
		}
		if err != nil {
			return nil, err
		}
		if y, err = m.bnReLU(p, blk.bn1, y); err != nil {
			return nil, err
		}
		if blk.full3 != nil {
			y, err = blk.full3.ApplyValid(p, y)
		} else {
			y, err = blk.sym3.ApplyValid(p, y)
		}
		if err != nil {
			return nil, err
		}
		if x, err = m.bnReLU(p, blk.bn3, y); err != nil {
			return nil, err
		}
	}
	pooled, err := scnn.GlobalAvgPool(p, x)
	if err != nil {
		return nil, err
	}
	h, err := m.FCLayer.Apply(p, pooled)
	if err != nil {
		return nil, err
	}
	if h, err = scnn.Dropout(p, scnn.Tanh(p, h), m.Dropout, rng); err != nil { // identity in inference
		return nil, err
	}
	u, err := m.UserEmb.Lookup(p, users, b)
	if err != nil {
		return nil, err
	}
	return scnn.Concat(p, h, u)
}

func (m *Model) bnReLU(p *scnn.Pass, bn *scnn.BatchNorm2D, x *scnn.Tensor) (*scnn.Tensor, error) {
	y, err := bn.Apply(p, x, nil)
	if err != nil {
		return nil, err
	}
	return scnn.ReLU(p, y), nil
}

// Forward returns the (B, C) scores of C candidate items per user
// (cands, B*C).
func (m *Model) Forward(p *scnn.Pass, users, seq, cands []int32, rng *rand.Rand) (*scnn.Tensor, error) {
	b := len(users)
	if b == 0 || len(cands)%b != 0 {
		return nil, fmt.Errorf("rec: %d candidates for %d users", len(cands), b)
	}
	c := len(cands) / b
	h, err := m.Hidden(p, users, seq, rng)
	if err != nil {
		return nil, err
	}
	w, err := m.Out.Lookup(p, cands, b, c)
	if err != nil {
		return nil, err
	}
	bias, err := m.OutBias.Lookup(p, cands, b, c)
	if err != nil {
		return nil, err
	}
	return scnn.RowDot(p, w, h, bias)
}

// ScoreAll returns the scores of every item 0..Items for each user (an
// inference pass), row u for users[u].
func (m *Model) ScoreAll(users, seq []int32, workers int) ([][]float32, error) {
	h, err := m.Hidden(scnn.Inference(workers), users, seq, nil)
	if err != nil {
		return nil, err
	}
	n, d := m.Items+1, m.FC+m.D
	out := make([]float32, len(users)*n)
	for u := range users {
		copy(out[u*n:(u+1)*n], m.OutBias.W.Value)
	}
	scnn.Sgemm(false, true, len(users), n, d, 1, h.Data, d, m.Out.W.Value, d, 1, out, n)
	rows := make([][]float32, len(users))
	for u := range rows {
		rows[u] = out[u*n : (u+1)*n]
	}
	return rows, nil
}

// Scorer ranks from each user's last L known items.
func (m *Model) Scorer(d *Dataset, workers int) Scorer {
	return func(users []int, s Split) ([][]float32, error) {
		us := make([]int32, len(users))
		var seq []int32
		for i, u := range users {
			us[i] = int32(u)
			seq = append(seq, LastItems(d.History(u, s), m.L)...)
		}
		return m.ScoreAll(us, seq, workers)
	}
}

// Record is what a model file stores besides the parameters: the
// configuration, how it was trained, and the raw ids of its users and
// items, so that a model file recommends on its own.
type Record struct {
	Format  int     `json:"format"`
	Config  Config  `json:"config"`
	Seed    uint64  `json:"seed"`
	Epoch   int     `json:"epoch"` // the epoch kept (best validation MAP)
	Data    string  `json:"data"`
	UserRaw []int64 `json:"user_ids"`
	ItemRaw []int64 `json:"item_ids"`
	Version string  `json:"code_version"`
}

// RecordFormat is the version of Record.
const RecordFormat = 1

// ErrUnknownField marks a model file's record holding a field this build
// does not know.
var ErrUnknownField = errors.New("a field this build does not know: the file may come from a newer contactmap")

// recordKeys is Record for a decoder that refuses unknown fields: such
// a decoder does not look inside Config.UnmarshalJSON, so the
// configuration is decoded as stored (storedConfig) for its fields to
// be checked too; Record's other fields are promoted.
type recordKeys struct {
	Record
	Config storedConfig `json:"config"`
}

// Save writes the model with its record atomically.
func (m *Model) Save(path string, rec Record) error {
	rec.Format, rec.Config = RecordFormat, m.Config
	arch, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return fileio.WriteAtomic(path, func(w io.Writer) error { return scnn.WriteParams(w, arch, m.Params()) })
}

// Load reads a model file written by Save.
func Load(path string) (*Model, *Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("rec: %w", err)
	}
	defer f.Close()
	return ReadModel(f, path)
}

// ReadModel reads a model written by Save from r; name labels errors. A
// file holding another kind of model (a protein contact or RNA model)
// gives a *modelkind.WrongKindError; a record out of bounds
// (Config.Check) or whose raw ids do not match its sizes is refused
// before anything is allocated for it. The file's arrays are checked
// against the parameters of the configuration (Config.ParamShapes)
// before they are allocated, and the network is built only for a file
// that holds all of them: an array of another shape is refused naming it
// and both shapes (scnn.ErrMismatch). A record holding a field Record or
// its configuration does not have (one a newer build wrote) is refused
// naming the field, with an error wrapping ErrUnknownField.
func ReadModel(r io.Reader, name string) (*Model, *Record, error) {
	var (
		rec    Record
		recErr error // an error of the record, returned as it is
	)
	_, arrays, err := scnn.ReadParamsExpect(r, func(arch []byte) ([]scnn.ParamShape, error) {
		rec, recErr = readRecord(arch, name)
		if recErr != nil {
			return nil, recErr
		}
		return rec.Config.ParamShapes(), nil
	})
	if err != nil {
		if recErr != nil && err == recErr {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("rec: %s: %w", name, err)
	}
	m, err := NewModel(rec.Config, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("rec: %s: %w", name, err)
	}
	if err := scnn.AssignParams(m.Params(), arrays); err != nil {
		return nil, nil, fmt.Errorf("rec: %s: %w", name, err)
	}
	return m, &rec, nil
}

// readRecord reads and checks a model file's record; errors name the file.
func readRecord(arch []byte, name string) (Record, error) {
	if err := modelkind.Check(name, arch, modelkind.Rec); err != nil {
		return Record{}, fmt.Errorf("rec: %w", err)
	}
	if err := checkpoint.NotAModel(name, arch, modelkind.Rec); err != nil {
		return Record{}, fmt.Errorf("rec: %w", err)
	}
	var rec Record
	if err := json.Unmarshal(arch, &rec); err != nil {
		if k, ok := modelkind.Detect(arch); !ok || k != modelkind.Rec {
			return Record{}, fmt.Errorf("rec: %s: not a recommendation model (record: %w)", name, err)
		}
		return Record{}, fmt.Errorf("rec: %s: record: %w", name, err)
	}
	if rec.Format != RecordFormat {
		return Record{}, fmt.Errorf("rec: %s: record format %d, this build reads %d", name, rec.Format, RecordFormat)
	}
	// A field this build does not know is refused, not dropped: a newer
	// build's field may change what the network computes or how its
	// ids read. Every key a record has carried is one of recordKeys'
	// (TestReadModelKnownKeys).
	if err := strictjson.Decode(arch, new(recordKeys)); err != nil {
		return Record{}, fmt.Errorf("rec: %s: record: %w: %w", name, err, ErrUnknownField)
	}
	if err := rec.Config.Check(); err != nil {
		return Record{}, fmt.Errorf("rec: %s: %w", name, err)
	}
	switch c := rec.Config; {
	case len(rec.UserRaw) != c.Users:
		return Record{}, fmt.Errorf("rec: %s: record: %d user ids for %d users", name, len(rec.UserRaw), c.Users)
	case len(rec.ItemRaw) != c.Items+1:
		return Record{}, fmt.Errorf("rec: %s: record: %d item ids for %d items and the padding", name, len(rec.ItemRaw), c.Items)
	case rec.Epoch < 0:
		return Record{}, fmt.Errorf("rec: %s: record: epoch %d", name, rec.Epoch)
	}
	return rec, nil
}

// softplus(z) = log(1 + e^z), stably.
func softplus(z float64) float64 { return max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) }

// Loss is CosRec's loss on scores (B, T+N) whose first T columns are
// targets and the rest negatives:
//
//	-mean_pos log sigmoid(s) - mean_neg log(1 - sigmoid(s))
//
// and its gradient.
func Loss(scores *scnn.Tensor, t int) (float64, *scnn.Tensor, error) {
	b, c := scores.Shape[0], scores.Shape[1]
	if t < 1 || t >= c {
		return 0, nil, fmt.Errorf("rec: loss: %d targets of %d columns", t, c)
	}
	g := scnn.ZerosLike(scores)
	npos, nneg := float64(b*t), float64(b*(c-t))
	var pos, neg float64
	for s := 0; s < b; s++ {
		for q := 0; q < c; q++ {
			z := float64(scores.Data[s*c+q])
			if math.IsNaN(z) || math.IsInf(z, 0) {
				return 0, nil, fmt.Errorf("rec: loss: score of sample %d column %d is %v", s, q, z)
			}
			sig := 1 / (1 + math.Exp(-z))
			if q < t {
				pos += softplus(-z)
				g.Data[s*c+q] = float32((sig - 1) / npos)
			} else {
				neg += softplus(z)
				g.Data[s*c+q] = float32(sig / nneg)
			}
		}
	}
	return pos/npos + neg/nneg, g, nil
}
