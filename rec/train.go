package rec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/contactmap/contactmap/internal/buildinfo"
	"github.com/contactmap/contactmap/internal/checkpoint"
	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/scnn"
)

// TrainOptions configure a training run. Zero values take CosRec's
// settings.
type TrainOptions struct {
	Data     *Dataset
	DataName string // recorded in the model file
	Out      string // run directory
	Kind     Kind
	Seed     uint64  // 0 means 1 (a new run) or the checkpoint's (Resume)
	Epochs   int     // default 30
	Batch    int     // default 512
	LR       float64 // default 1e-3
	L2       float64 // Adam weight decay on every parameter, default 5e-6
	T        int     // targets per window, default 3
	Negs     int     // negatives per window, default 3
	// Learning-rate decay on a plateau of validation MAP (as SCosRec's
	// ReduceLROnPlateau): multiply by Factor after Patience epochs without
	// a relative improvement of 1e-4. Defaults 0.15 and 3.
	Factor   float64
	Patience int
	Workers  int // 0: GOMAXPROCS (new run) or the checkpoint's
	Resume   bool
	Force    bool
	Config   *Config // nil: DefaultConfig

	OnEpochStart func(epoch, batches int)
	OnBatch      func(loss float64)
	OnEpochEnd   func(EpochLog)
}

// EpochLog is one line of a run's log.
type EpochLog struct {
	Epoch     int     `json:"epoch"`
	TrainLoss float64 `json:"train_loss"`
	ValMAP    float64 `json:"val_map"`
	ValPrec1  float64 `json:"val_prec1"`
	ValRec10  float64 `json:"val_recall10"`
	LR        float64 `json:"lr"`
	Seconds   float64 `json:"seconds"`
}

// runState is a checkpoint's record.
type runState struct {
	Record    Record     `json:"record"`
	Epoch     int        `json:"epoch"` // next epoch to run (1-based)
	LR        float64    `json:"lr"`
	Best      float64    `json:"best_val_map"`
	BestEpoch int        `json:"best_epoch"`
	Bad       int        `json:"bad_epochs"` // since the last improvement (plateau)
	Plateau   float64    `json:"plateau_best"`
	Log       []EpochLog `json:"log"`
	Seconds   float64    `json:"seconds"`
	Workers   int        `json:"workers"`
	Done      bool       `json:"done"` // reached the epoch limit it was run with
}

// Files of a run directory.
const (
	ModelFile      = "model.scnn"
	CheckpointFile = "checkpoint.scnn"
	LogFile        = "train_log.tsv"
)

// ErrInterrupted: the context was cancelled; the last finished epoch is
// checkpointed and Resume continues from there.
var ErrInterrupted = errors.New("training interrupted; the last finished epoch is checkpointed")

// TrainResult summarises a finished run.
type TrainResult struct {
	Model     string
	Params    int
	BestEpoch int
	BestMAP   float64
	Epochs    int
	Seconds   float64
	Log       []EpochLog
}

func (o *TrainOptions) defaults() {
	if o.Epochs == 0 {
		o.Epochs = 30
	}
	if o.Batch == 0 {
		o.Batch = 512
	}
	if o.LR == 0 {
		o.LR = 1e-3
	}
	if o.L2 == 0 {
		o.L2 = 5e-6
	}
	if o.T == 0 {
		o.T = 3
	}
	if o.Negs == 0 {
		o.Negs = 3
	}
	if o.Factor == 0 {
		o.Factor = 0.15
	}
	if o.Patience == 0 {
		o.Patience = 3
	}
}

// Train trains (or resumes) a model on the training parts, evaluates MAP
// on the validation parts after every epoch, keeps the model with the
// best validation MAP in Out/model.scnn and checkpoints every epoch.
func Train(ctx context.Context, o TrainOptions) (*TrainResult, error) {
	o.defaults()
	d := o.Data
	ckpt := filepath.Join(o.Out, CheckpointFile)
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("rec: %w", err)
	}
	_, statErr := os.Stat(ckpt)
	switch {
	case o.Resume && statErr != nil:
		return nil, fmt.Errorf("rec: resume: no %s in %s (start without --resume)", CheckpointFile, o.Out)
	case !o.Resume && !o.Force && statErr == nil:
		return nil, fmt.Errorf("rec: %s holds a run; continue it with --resume or replace it with --force", o.Out)
	}
	if err := fileio.RemoveStaleTemps(o.Out, ModelFile, CheckpointFile, LogFile); err != nil {
		return nil, fmt.Errorf("rec: %w", err)
	}
	st := &runState{Epoch: 1, LR: o.LR}
	var saved []scnn.Array
	if o.Resume {
		var err error
		if saved, err = checkpoint.Read(ckpt, st); err != nil {
			return nil, fmt.Errorf("rec: resume: %w", err)
		}
		if st.Record.Config.Kind != o.Kind {
			return nil, fmt.Errorf("rec: resume: %s is a %s run, asked for %s", ckpt, st.Record.Config.Kind, o.Kind)
		}
		if o.Seed != 0 && o.Seed != st.Record.Seed {
			return nil, fmt.Errorf("rec: resume: the run has seed %d, asked for %d", st.Record.Seed, o.Seed)
		}
		if o.Workers != 0 && o.Workers != st.Workers {
			return nil, fmt.Errorf("rec: resume: the run uses %d workers, asked for %d; results depend on it", st.Workers, o.Workers)
		}
		if st.Record.Config.Users != d.Users || st.Record.Config.Items != d.Items {
			return nil, fmt.Errorf("rec: resume: the run has %d users and %d items, the data %d and %d", st.Record.Config.Users, st.Record.Config.Items, d.Users, d.Items)
		}
		o.Seed, o.Workers = st.Record.Seed, st.Workers
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	cfg := DefaultConfig(o.Kind, d.Users, d.Items)
	if o.Config != nil {
		cfg = *o.Config
		cfg.Kind, cfg.Users, cfg.Items = o.Kind, d.Users, d.Items
	}
	if o.Resume {
		cfg = st.Record.Config
	}
	m, err := NewModel(cfg, o.Seed)
	if err != nil {
		return nil, err
	}
	opt := scnn.NewAdam(m.Params(), st.LR, o.L2)
	if o.Resume {
		if err := checkpoint.Restore(saved, m.Params(), opt); err != nil {
			return nil, fmt.Errorf("rec: resume: %s: %w", ckpt, err)
		}
	} else {
		st.Record = Record{Config: cfg, Seed: o.Seed, Data: o.DataName, UserRaw: d.UserRaw, ItemRaw: d.ItemRaw, Version: buildinfo.Revision()}
	}
	st.Workers = o.Workers
	win := d.TrainingWindows(cfg.L, o.T)
	neg := newNegativeSampler(d)
	start, before := time.Now(), st.Seconds
	recycler := new(scnn.Recycler) // the steps' buffers, from one step to the next
	// The epoch limit alone ends the loop: resuming a finished run with a
	// larger --epochs continues it as an uninterrupted longer run would.
	for st.Epoch <= o.Epochs {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		t0 := time.Now()
		// One stream per epoch for order and negatives, one for dropout:
		// a resumed run draws what the uninterrupted run would have.
		rng := rand.New(rand.NewPCG(o.Seed, uint64(st.Epoch)))
		drop := rand.New(rand.NewPCG(o.Seed, uint64(st.Epoch)|1<<32))
		order := rng.Perm(win.Len())
		batches := (len(order) + o.Batch - 1) / o.Batch
		if o.OnEpochStart != nil {
			o.OnEpochStart(st.Epoch, batches)
		}
		lossSum := 0.0
		for bi := 0; bi < batches; bi++ {
			if ctx.Err() != nil {
				return nil, ErrInterrupted
			}
			idx := order[bi*o.Batch : min((bi+1)*o.Batch, len(order))]
			users, seq, cands := win.batch(idx, o.Negs, neg, rng)
			opt.ZeroGrad()
			pass := scnn.TrainingWith(o.Workers, recycler)
			scores, err := m.Forward(pass, users, seq, cands, drop)
			if err != nil {
				return nil, err
			}
			v, g, err := Loss(scores, o.T)
			if err != nil {
				return nil, fmt.Errorf("rec: epoch %d batch %d: %w", st.Epoch, bi+1, err)
			}
			if err := pass.Backward(scores, g); err != nil {
				return nil, err
			}
			opt.LR = st.LR
			opt.Step()
			pass.Free() // its buffers go to the next step
			lossSum += v
			if o.OnBatch != nil {
				o.OnBatch(v)
			}
		}
		um, err := Evaluate(d, Validation, m.Scorer(d, o.Workers), 256)
		if err != nil {
			return nil, err
		}
		s := Summarize(um)
		e := EpochLog{Epoch: st.Epoch, TrainLoss: lossSum / float64(max(batches, 1)), ValMAP: s.MAP, ValPrec1: s.Prec.At1,
			ValRec10: s.Recall.At10, LR: st.LR, Seconds: time.Since(t0).Seconds()}
		st.Log = append(st.Log, e)
		// ReduceLROnPlateau (mode max, relative threshold 1e-4, no
		// cooldown): after more than Patience epochs without a
		// significant improvement, multiply the rate by Factor.
		if st.BestEpoch == 0 || s.MAP > st.Plateau*(1+1e-4) {
			st.Plateau, st.Bad = s.MAP, 0
		} else {
			st.Bad++
		}
		if st.Bad > o.Patience {
			st.LR *= o.Factor
			st.Bad = 0
		}
		if st.BestEpoch == 0 || s.MAP > st.Best {
			st.Best, st.BestEpoch = s.MAP, st.Epoch
			rec := st.Record
			rec.Epoch = st.Epoch
			if err := m.Save(filepath.Join(o.Out, ModelFile), rec); err != nil {
				return nil, err
			}
		}
		if o.OnEpochEnd != nil {
			o.OnEpochEnd(e)
		}
		st.Epoch++
		st.Done = st.Epoch > o.Epochs
		st.Seconds = before + time.Since(start).Seconds()
		if err := writeLog(filepath.Join(o.Out, LogFile), st.Log); err != nil {
			return nil, err
		}
		if err := checkpoint.Save(ckpt, st, m.Params(), opt); err != nil {
			return nil, err
		}
	}
	return &TrainResult{Model: filepath.Join(o.Out, ModelFile), Params: m.Trainable(), BestEpoch: st.BestEpoch, BestMAP: st.Best,
		Epochs: len(st.Log), Seconds: st.Seconds, Log: st.Log}, nil
}

// negativeSampler draws items a user has not interacted with in training.
type negativeSampler struct {
	items int
	seen  []map[int32]bool
}

func newNegativeSampler(d *Dataset) *negativeSampler {
	s := &negativeSampler{items: d.Items, seen: make([]map[int32]bool, d.Users)}
	for u, items := range d.Train {
		s.seen[u] = map[int32]bool{}
		for _, it := range items {
			s.seen[u][it] = true
		}
	}
	return s
}

// draw returns an item in 1..Items uniformly among those user u has not
// interacted with in training (by rejection).
func (s *negativeSampler) draw(u int32, rng *rand.Rand) int32 {
	if len(s.seen[u]) >= s.items {
		return int32(1 + rng.IntN(s.items)) // a user who has seen everything
	}
	for {
		it := int32(1 + rng.IntN(s.items))
		if !s.seen[u][it] {
			return it
		}
	}
}

// batch gathers windows idx: users, sequences (B*L) and candidates
// (B*(T+negs)): the T targets, then negs sampled negatives.
func (w *Windows) batch(idx []int, negs int, s *negativeSampler, rng *rand.Rand) (users, seq, cands []int32) {
	c := w.T + negs
	users = make([]int32, len(idx))
	seq = make([]int32, 0, len(idx)*w.L)
	cands = make([]int32, 0, len(idx)*c)
	for i, k := range idx {
		u := w.User[k]
		users[i] = u
		seq = append(seq, w.Seq[k*w.L:(k+1)*w.L]...)
		cands = append(cands, w.Items[k*w.T:(k+1)*w.T]...)
		for n := 0; n < negs; n++ {
			cands = append(cands, s.draw(u, rng))
		}
	}
	return users, seq, cands
}

func writeLog(path string, log []EpochLog) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		fmt.Fprintln(w, "epoch\ttrain_loss\tval_map\tval_prec1\tval_recall10\tlr\tseconds")
		for _, e := range log {
			fmt.Fprintf(w, "%d\t%.6f\t%.4f\t%.4f\t%.4f\t%g\t%.1f\n", e.Epoch, e.TrainLoss, e.ValMAP, e.ValPrec1, e.ValRec10, e.LR, e.Seconds)
		}
		return nil
	})
}

// RunInfo reads a run directory's checkpoint: training seconds and epochs
// (zeros when there is none).
func RunInfo(dir string) (seconds float64, epochs int, done bool) {
	var st runState
	if _, err := checkpoint.Read(filepath.Join(dir, CheckpointFile), &st); err != nil {
		return 0, 0, false
	}
	return st.Seconds, len(st.Log), st.Done
}
