package rec

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"time"

	"github.com/contactmap/contactmap/internal/buildinfo"
	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
)

// TrainOptions configure a training run. Zero values take CosRec's
// settings.
type TrainOptions struct {
	Data     *Dataset
	DataName string    // recorded in the model file
	Out      string    // run directory
	Kind     scnn.Kind // CosRec or SCosRec
	Seed     uint64    // 0 means 1 (a new run) or the checkpoint's (Resume)
	Epochs   int       // default 30
	Batch    int       // default 512
	LR       float64   // default 1e-3
	L2       float64   // Adam weight decay on every parameter, default 5e-6
	T        int       // targets per window, default 3
	Negs     int       // negatives per window, default 3
	// Learning-rate decay on a plateau of validation MAP (as SCosRec's
	// ReduceLROnPlateau): multiply by Factor after Patience epochs without
	// a relative improvement of 1e-4. Defaults 0.15 and 3. A resumed run
	// keeps the checkpoint's.
	Factor   float64
	Patience int
	Workers  int // 0: GOMAXPROCS (new run) or the checkpoint's
	// Resume continues the run in Out from its checkpoint: another kind,
	// seed, workers, data (its checksum; the same data under another
	// name goes on with a note), Batch, LR, L2, T, Negs, Factor,
	// Patience or Config is refused; Epochs may change (a note says
	// so). Zero settings are not given: the run takes the checkpoint's.
	Resume bool
	Force  bool
	Config *Config // nil: DefaultConfig
	// CheckpointEvery is the longest time between checkpoints (0: 10
	// minutes); a checkpoint is also written at the end of every epoch
	// and when ctx is cancelled, inside an epoch too.
	CheckpointEvery time.Duration

	// OnEpochStart is told the epoch and its batches left to run (all
	// of them, unless the run resumes inside the epoch).
	OnEpochStart func(epoch, batches int)
	OnBatch      func(loss float64)
	OnEpochEnd   func(EpochLog)
	// OnNote is told what a resumed run changes or could not check
	// against its checkpoint.
	OnNote func(string)
}

// DefaultOut is the run directory rec train uses without --out:
// runs/rec/KIND-seedSEED, the network under its name (KindName) and seed
// 0 as 1 (a new run's).
func DefaultOut(kind scnn.Kind, seed uint64) string {
	return filepath.Join("runs", "rec", fmt.Sprintf("%s-seed%d", KindName(kind), max(seed, 1)))
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

// taskState is the recommendation part of a checkpoint (the loop's part
// is loop.State). A field once written is never removed nor renamed:
// the loop refuses a key it does not know (TestTaskStateKnownKeys).
type taskState struct {
	Record  Record `json:"record"`
	Workers int    `json:"workers"`
	// The settings that shape an epoch's batches (0 in a checkpoint
	// converted from the format before the shared loop).
	Batch int `json:"batch,omitempty"`
	T     int `json:"targets,omitempty"`
	Negs  int `json:"negatives,omitempty"`
	// The other settings and the data's checksum (dataSum), zero in
	// checkpoints before they were recorded.
	Epochs   int     `json:"epochs,omitempty"`
	LR       float64 `json:"lr,omitempty"`
	L2       float64 `json:"l2,omitempty"`
	Factor   float64 `json:"factor,omitempty"`
	Patience int     `json:"patience,omitempty"`
	DataSum  string  `json:"data_sha256,omitempty"`
	// The states of the epoch's two generators (rand.PCG's binary form)
	// at the checkpoint's step: order and negatives, dropout.
	OrderRNG   []byte `json:"order_rng,omitempty"`
	DropoutRNG []byte `json:"dropout_rng,omitempty"`
}

// KeyCheck is the task state as stored, its model record's
// configuration included (recordKeys), into which the loop decodes it a
// second time to refuse a field this build does not know
// (loop.KeyChecked): Config reads through its own UnmarshalJSON, which
// that decoder does not look into.
func (*taskState) KeyCheck() any {
	return new(struct {
		taskState
		Record recordKeys `json:"record"`
	})
}

// runState is the record of a checkpoint written before the shared
// training loop (package scnn/loop), at the end of an epoch.
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

// legacy converts a pre-loop checkpoint record (written at the end of an
// epoch, so at step 0 of the next). o gives the run's batches per epoch
// (the optimiser steps) and the plateau settings; nil (RunInfo) leaves
// the step counts 0.
func legacy(o *TrainOptions) loop.Legacy {
	return func(raw json.RawMessage) (loop.State, json.RawMessage, error) {
		var old runState
		if err := json.Unmarshal(raw, &old); err != nil {
			return loop.State{}, nil, err
		}
		if old.Epoch < 1 || old.BestEpoch < 0 || old.BestEpoch >= old.Epoch || old.Bad < 0 || len(old.Log) != old.Epoch-1 {
			return loop.State{}, nil, fmt.Errorf("next epoch %d, best epoch %d, %d bad epochs, %d logged: %w",
				old.Epoch, old.BestEpoch, old.Bad, len(old.Log), scnn.ErrCorrupt)
		}
		batches := 0
		p := loop.Plateau{LR: old.LR, Threshold: plateauThreshold, Best: old.Plateau, Seen: old.BestEpoch > 0, Bad: old.Bad}
		if o != nil {
			c := old.Record.Config
			if err := c.Check(); err != nil {
				return loop.State{}, nil, err
			}
			if o.Data != nil {
				batches = (o.Data.TrainingWindows(c.L, o.T).Len() + o.Batch - 1) / o.Batch
			}
			p.Factor, p.Patience = o.Factor, o.Patience
		}
		sch, err := json.Marshal(&p)
		if err != nil {
			return loop.State{}, nil, err
		}
		done := old.Epoch - 1
		st := loop.State{Round: old.Epoch, Steps: done * batches, Best: old.Best, BestRound: old.BestEpoch,
			BestStep: old.BestEpoch * batches, Bad: done - old.BestEpoch, Seconds: old.Seconds, Done: old.Done, Schedule: sch,
			RoundBest: old.Best, RoundBestSet: old.BestEpoch > 0}
		if old.Done {
			st.Stop = fmt.Sprintf("reached %d epochs", done)
		}
		for _, e := range old.Log {
			st.Log = append(st.Log, loop.Entry{Round: e.Epoch, Step: e.Epoch * batches, TrainLoss: e.TrainLoss,
				Values: []float64{e.ValMAP, e.ValPrec1, e.ValRec10}, LR: e.LR, Seconds: e.Seconds})
		}
		task, err := json.Marshal(taskState{Record: old.Record, Workers: old.Workers})
		return st, task, err
	}
}

// Files of a run directory.
const (
	ModelFile      = loop.ModelFile
	CheckpointFile = loop.CheckpointFile
	LogFile        = loop.LogFile
)

// ErrInterrupted: the context was cancelled; a checkpoint of the step
// reached is on disk and Resume continues from it.
var ErrInterrupted = loop.ErrInterrupted

// plateauThreshold is ReduceLROnPlateau's relative threshold.
const plateauThreshold = 1e-4

// metrics are the validation values the loop logs; the first (MAP) picks
// the model kept and drives the plateau schedule.
var metrics = []loop.Metric{{Name: "val_map", Digits: 4}, {Name: "val_prec1", Digits: 4}, {Name: "val_recall10", Digits: 4}}

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
// on the validation parts after every epoch and keeps the model with the
// best validation MAP in Out/model.scnn. The training loop is package
// scnn/loop: a checkpoint at every epoch's end, every CheckpointEvery and
// when ctx is cancelled (ErrInterrupted); Resume continues from it as the
// uninterrupted run would have, inside an epoch too.
func Train(ctx context.Context, o TrainOptions) (*TrainResult, error) {
	d := o.Data
	if d == nil {
		return nil, errors.New("rec: no data")
	}
	sum := dataSum(d)
	var ts taskState
	if o.Resume {
		// The settings not given are the checkpoint's: read before the
		// defaults (and legacy's step counts) apply.
		if err := loop.ReadTask(o.Out, modelkind.Rec, legacy(nil), &ts); err != nil {
			return nil, fmt.Errorf("rec: resume: %w", err)
		}
		var set loop.Settings
		known := ts.DataSum != ""
		o.Epochs = loop.Change(&set, "--epochs", o.Epochs, ts.Epochs, known)
		o.Batch = loop.Keep(&set, "--batch", o.Batch, ts.Batch, ts.Batch != 0)
		o.T = loop.Keep(&set, "targets per window", o.T, ts.T, ts.Batch != 0)
		o.Negs = loop.Keep(&set, "negatives per window", o.Negs, ts.Negs, ts.Batch != 0)
		o.LR = loop.Keep(&set, "--lr", o.LR, ts.LR, known)
		o.L2 = loop.Keep(&set, "--l2", o.L2, ts.L2, known)
		o.Factor = loop.Keep(&set, "plateau factor", o.Factor, ts.Factor, known)
		o.Patience = loop.Keep(&set, "plateau patience", o.Patience, ts.Patience, known)
		if o.DataName == "" {
			o.DataName = ts.Record.Data
		}
		switch r := ts.Record; {
		case !known && o.DataName != r.Data:
			set.Refuse("--data %s differs from the checkpoint's %s", o.DataName, r.Data)
		case !known:
			set.Note("--data %s: the checkpoint (an older one) does not record the data's checksum; not checked", o.DataName)
		case sum != ts.DataSum:
			set.Refuse("the ratings of --data %s (checksum %.12s) differ from the checkpoint's (%s, checksum %.12s)", o.DataName, sum, r.Data, ts.DataSum)
		case o.DataName != r.Data:
			set.Note("--data %s: the checkpoint's run read %s; the same ratings, so the run goes on", o.DataName, r.Data)
		}
		if o.Config != nil {
			c := *o.Config
			c.Kind, c.Users, c.Items = o.Kind, d.Users, d.Items
			if !reflect.DeepEqual(c, ts.Record.Config) && ts.Record.Config.Kind == o.Kind {
				set.Refuse("the model configuration %s differs from the checkpoint's %s", c.text(), ts.Record.Config.text())
			}
		}
		if err := set.Err(); err != nil {
			return nil, fmt.Errorf("rec: resume: %s: %w", filepath.Join(o.Out, CheckpointFile), err)
		}
		if o.OnNote != nil {
			for _, n := range set.Notes() {
				o.OnNote(n)
			}
		}
	}
	o.defaults()
	if o.Epochs < 1 || o.Batch < 1 || o.T < 1 || o.Negs < 0 {
		return nil, fmt.Errorf("rec: %d epochs, batch %d, %d targets, %d negatives", o.Epochs, o.Batch, o.T, o.Negs)
	}
	run, err := loop.OpenKind(o.Out, o.Resume, o.Force, modelkind.Rec, legacy(&o))
	if err != nil {
		return nil, fmt.Errorf("rec: %w", err)
	}
	ckpt := filepath.Join(o.Out, CheckpointFile)
	if run.Resumed() {
		if err := run.TaskState(&ts); err != nil {
			return nil, fmt.Errorf("rec: resume: %w", err)
		}
		r := ts.Record
		switch {
		case r.Config.Kind != o.Kind:
			return nil, fmt.Errorf("rec: resume: %s is a %s run, asked for %s", ckpt, r.Config.name(), KindName(o.Kind))
		case o.Seed != 0 && o.Seed != r.Seed:
			return nil, fmt.Errorf("rec: resume: the run has seed %d, asked for %d", r.Seed, o.Seed)
		case o.Workers != 0 && o.Workers != ts.Workers:
			return nil, fmt.Errorf("rec: resume: the run uses %d workers, asked for %d; results depend on it", ts.Workers, o.Workers)
		case r.Config.Users != d.Users || r.Config.Items != d.Items:
			return nil, fmt.Errorf("rec: resume: the run has %d users and %d items, the data %d and %d", r.Config.Users, r.Config.Items, d.Users, d.Items)
		case ts.Batch != 0 && (ts.Batch != o.Batch || ts.T != o.T || ts.Negs != o.Negs):
			return nil, fmt.Errorf("rec: resume: the run has batches of %d windows of %d targets and %d negatives, asked for %d, %d and %d; results depend on them",
				ts.Batch, ts.T, ts.Negs, o.Batch, o.T, o.Negs)
		}
		o.Seed, o.Workers = r.Seed, ts.Workers
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
	if run.Resumed() {
		cfg = ts.Record.Config
	} else {
		ts.Record = Record{Config: cfg, Seed: o.Seed, Data: o.DataName, UserRaw: d.UserRaw, ItemRaw: d.ItemRaw, Version: buildinfo.Revision()}
	}
	m, err := NewModel(cfg, o.Seed)
	if err != nil {
		return nil, err
	}
	ts.Workers, ts.Batch, ts.T, ts.Negs = o.Workers, o.Batch, o.T, o.Negs
	ts.Epochs, ts.LR, ts.L2, ts.Factor, ts.Patience, ts.DataSum = o.Epochs, o.LR, o.L2, o.Factor, o.Patience, sum
	t := &recTask{m: m, o: o, st: &ts, win: d.TrainingWindows(cfg.L, o.T), neg: newNegativeSampler(d),
		resumeOrder: ts.OrderRNG, resumeDropout: ts.DropoutRNG}
	c := loop.Config{Task: t, Params: m.Params(), Optimizer: scnn.NewAdam(m.Params(), o.LR, o.L2),
		Schedule: &loop.Plateau{LR: o.LR, Factor: o.Factor, Patience: o.Patience, Threshold: plateauThreshold},
		Rounds:   o.Epochs, Unit: "epoch", Metrics: metrics, CheckpointEvery: o.CheckpointEvery, Workers: o.Workers}
	if o.OnEpochStart != nil {
		c.Hooks.RoundStart = func(epoch, batches, from int) { o.OnEpochStart(epoch, batches-from) }
	}
	if o.OnBatch != nil {
		c.Hooks.Step = func(_ int, loss float64) { o.OnBatch(loss) }
	}
	if o.OnEpochEnd != nil {
		c.Hooks.Validated = func(e loop.Entry) { o.OnEpochEnd(epochLog(e)) }
	}
	res, err := run.Train(ctx, c)
	if err != nil {
		if errors.Is(err, loop.ErrInterrupted) {
			return nil, err
		}
		return nil, fmt.Errorf("rec: %w", err)
	}
	out := &TrainResult{Model: filepath.Join(o.Out, ModelFile), Params: m.Trainable(), BestEpoch: res.BestRound, BestMAP: res.Best,
		Epochs: len(res.Log), Seconds: res.Seconds}
	for _, e := range res.Log {
		out.Log = append(out.Log, epochLog(e))
	}
	return out, nil
}

func epochLog(e loop.Entry) EpochLog {
	return EpochLog{Epoch: e.Round, TrainLoss: e.TrainLoss, ValMAP: e.Values[0], ValPrec1: e.Values[1], ValRec10: e.Values[2],
		LR: e.LR, Seconds: e.Seconds}
}

// recTask is a recommendation run for the loop: a round is an epoch over
// the training windows in a random order, in batches. Each epoch draws
// from two generators of its own, one for the order and the negatives
// and one for dropout, used in sequence through the epoch; their states
// are checkpointed (State), so that a run resumed inside an epoch draws
// what the uninterrupted run would have.
type recTask struct {
	m   *Model
	o   TrainOptions
	st  *taskState
	win *Windows
	neg *negativeSampler

	order         []int
	src, dropSrc  *rand.PCG
	rng, drop     *rand.Rand
	resumeOrder   []byte // the checkpoint's generator states, used once
	resumeDropout []byte
}

func (t *recTask) StartRound(epoch, from, _ int) (int, error) {
	t.src = rand.NewPCG(t.o.Seed, uint64(epoch))
	t.dropSrc = rand.NewPCG(t.o.Seed, uint64(epoch)|1<<32)
	t.rng, t.drop = rand.New(t.src), rand.New(t.dropSrc)
	t.order = t.rng.Perm(t.win.Len())
	batches := len(t.order)/t.o.Batch + min(len(t.order)%t.o.Batch, 1) // no overflow for any Batch
	if from > 0 {
		if from > batches {
			return 0, fmt.Errorf("the checkpoint is at batch %d of epoch %d, which has %d: %w", from, epoch, batches, scnn.ErrCorrupt)
		}
		if len(t.resumeOrder) == 0 || len(t.resumeDropout) == 0 {
			return 0, fmt.Errorf("the checkpoint inside epoch %d has no generator states: %w", epoch, scnn.ErrCorrupt)
		}
		if err := t.src.UnmarshalBinary(t.resumeOrder); err != nil {
			return 0, fmt.Errorf("order generator state: %w", err)
		}
		if err := t.dropSrc.UnmarshalBinary(t.resumeDropout); err != nil {
			return 0, fmt.Errorf("dropout generator state: %w", err)
		}
	}
	t.resumeOrder, t.resumeDropout = nil, nil
	return batches, nil
}

func (t *recTask) Step(pass *scnn.Pass, i, _ int) (float64, error) {
	o := t.o
	lo := i * o.Batch // < len(t.order): i < batches
	idx := t.order[lo : lo+min(o.Batch, len(t.order)-lo)]
	users, seq, cands := t.win.batch(idx, o.Negs, t.neg, t.rng)
	scores, err := t.m.Forward(pass, users, seq, cands, t.drop)
	if err != nil {
		return 0, err
	}
	v, g, err := Loss(scores, o.T)
	if err != nil {
		return 0, err
	}
	if err := pass.Backward(scores, g); err != nil {
		return 0, err
	}
	return v, nil
}

func (t *recTask) Validate() ([]float64, error) {
	um, err := Evaluate(t.o.Data, Validation, t.m.Scorer(t.o.Data, t.o.Workers), 256)
	if err != nil {
		return nil, err
	}
	s := Summarize(um)
	return []float64{s.MAP, s.Prec.At1, s.Recall.At10}, nil
}

func (t *recTask) SaveBest(e loop.Entry) error {
	r := t.st.Record
	r.Epoch = e.Round
	return t.m.Save(filepath.Join(t.o.Out, ModelFile), r)
}

// State is the task's checkpoint: the record, the settings and the
// generators' states at the step reached.
func (t *recTask) State() any {
	st := *t.st
	st.OrderRNG, st.DropoutRNG = nil, nil
	if t.src != nil {
		st.OrderRNG, _ = t.src.MarshalBinary() // never fails
		st.DropoutRNG, _ = t.dropSrc.MarshalBinary()
	}
	return &st
}

// dataSum is the SHA-256 of what a run trains and validates on: the
// users' and items' raw ids and each user's training and validation
// items.
func dataSum(d *Dataset) string {
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, []int64{int64(d.Users), int64(d.Items)})
	binary.Write(h, binary.LittleEndian, d.UserRaw)
	binary.Write(h, binary.LittleEndian, d.ItemRaw)
	for _, part := range [][][]int32{d.Train, d.Valid} {
		for _, items := range part {
			binary.Write(h, binary.LittleEndian, int64(len(items)))
			binary.Write(h, binary.LittleEndian, items)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RunData is the data a run's checkpoint in dir was trained on
// (TrainOptions.DataName), for a command that resumes it.
func RunData(dir string) (string, error) {
	var ts taskState
	if err := loop.ReadTask(dir, modelkind.Rec, legacy(nil), &ts); err != nil {
		return "", err
	}
	return ts.Record.Data, nil
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

// RunInfo reads a run directory's checkpoint: training seconds, epochs
// validated and whether the run reached its epochs.
func RunInfo(dir string) (seconds float64, epochs int, done bool, err error) {
	st, err := loop.Info(dir, legacy(nil))
	if err != nil {
		return 0, 0, false, err
	}
	return st.Seconds, len(st.Log), st.Done, nil
}
