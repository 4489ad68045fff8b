package ssnet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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

// TrainOptions configure a training run.
type TrainOptions struct {
	Train, Valid []Molecule
	DataName     string // recorded in the model file
	Out          string // run directory
	Kind         Kind
	Protocol     Protocol
	Seed         uint64 // 0: 1 (new run) or the checkpoint's (Resume)
	Workers      int    // 0: GOMAXPROCS (new run) or the checkpoint's
	Resume       bool
	Force        bool
	// CheckpointEvery is the longest time between checkpoints (0: 10
	// minutes); a checkpoint is also written at every validation and
	// when ctx is cancelled.
	CheckpointEvery time.Duration
	// Budget limits the run's training time over all its sessions (0:
	// none): when it is spent the run validates, checkpoints and stops,
	// and Result.Stopped says so; Resume with a larger budget continues.
	Budget time.Duration
	// MFECache is the file of cached MFE structures for a protocol with
	// energy channels ("": fold every molecule at every start); the
	// structures folded are added to it.
	MFECache string

	OnStep func(step int, loss float64)
	OnEval func(EvalLog)
}

// EvalLog is one validation of a run.
type EvalLog struct {
	Step      int     `json:"step"`
	TrainLoss float64 `json:"train_loss"` // mean since the last validation
	ValAcc    float64 `json:"val_accuracy"`
	ValF1     float64 `json:"val_f1"`
	Seconds   float64 `json:"seconds"` // since the last validation
}

type runState struct {
	Record   Record    `json:"record"`
	Protocol Protocol  `json:"protocol"` // as trained (a protocol's name can outlive its settings)
	Step     int       `json:"step"`     // steps done
	LossSum  float64   `json:"loss_sum"`
	LossN    int       `json:"loss_n"`
	Best     float64   `json:"best_val_accuracy"`
	BestStep int       `json:"best_step"`
	Log      []EvalLog `json:"log"`
	Seconds  float64   `json:"seconds"`
	Workers  int       `json:"workers"`
	Done     bool      `json:"done"` // reached the protocol's steps
}

// Files of a run directory.
const (
	ModelFile      = "model.scnn"
	CheckpointFile = "checkpoint.scnn"
	LogFile        = "train_log.tsv"
)

// ErrInterrupted: the context was cancelled; a checkpoint of the step
// reached is on disk and Resume continues from it.
var ErrInterrupted = errors.New("training interrupted; a checkpoint of the step reached is written")

// Train trains (or resumes) a model: each step a batch of random crops of
// the training molecules; every EvalEvery steps the validation molecules
// are predicted whole, the model with the best mean accuracy (PPV+Sens)/2
// is kept in Out/model.scnn, and a checkpoint is written.
func Train(ctx context.Context, o TrainOptions) (*Model, *Result, error) {
	p := o.Protocol
	if len(o.Train) == 0 || len(o.Valid) == 0 {
		return nil, nil, fmt.Errorf("ssnet: no training or validation molecules")
	}
	ckpt := filepath.Join(o.Out, CheckpointFile)
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, nil, fmt.Errorf("ssnet: %w", err)
	}
	_, statErr := os.Stat(ckpt)
	switch {
	case o.Resume && statErr != nil:
		return nil, nil, fmt.Errorf("ssnet: resume: no %s in %s (start without --resume)", CheckpointFile, o.Out)
	case !o.Resume && !o.Force && statErr == nil:
		return nil, nil, fmt.Errorf("ssnet: %s holds a run; continue it with --resume or replace it with --force", o.Out)
	}
	if err := fileio.RemoveStaleTemps(o.Out, ModelFile, CheckpointFile, LogFile); err != nil {
		return nil, nil, fmt.Errorf("ssnet: %w", err)
	}
	st := &runState{}
	var saved []scnn.Array
	if o.Resume {
		var err error
		if saved, err = checkpoint.Read(ckpt, st); err != nil {
			return nil, nil, fmt.Errorf("ssnet: resume: %w", err)
		}
		r := st.Record
		switch {
		case r.Kind != o.Kind || r.Protocol != p.Name:
			return nil, nil, fmt.Errorf("ssnet: resume: %s is a %s/%s run, asked for %s/%s", ckpt, r.Kind, r.Protocol, o.Kind, p.Name)
		case !sameSettings(st.Protocol, p):
			return nil, nil, fmt.Errorf("ssnet: resume: %s was trained under other %q settings than this build's (crop %d, halving every %d, validation every %d; this build %d, %d, %d)",
				ckpt, p.Name, st.Protocol.Crop, st.Protocol.HalveEvery, st.Protocol.EvalEvery, p.Crop, p.HalveEvery, p.EvalEvery)
		case o.Seed != 0 && o.Seed != r.Seed:
			return nil, nil, fmt.Errorf("ssnet: resume: the run has seed %d, asked for %d", r.Seed, o.Seed)
		case o.Workers != 0 && o.Workers != st.Workers:
			return nil, nil, fmt.Errorf("ssnet: resume: the run uses %d workers, asked for %d; results depend on it", st.Workers, o.Workers)
		}
		o.Seed, o.Workers = r.Seed, st.Workers
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	m, err := NewModel(o.Kind, p, o.Seed)
	if err != nil {
		return nil, nil, err
	}
	opt := scnn.NewAdam(m.Net.Params(), p.LR(o.Kind), p.L2)
	if o.Resume {
		if err := checkpoint.Restore(saved, m.Net.Params(), opt); err != nil {
			return nil, nil, fmt.Errorf("ssnet: resume: %s: %w", ckpt, err)
		}
		m.Record = st.Record
	} else {
		m.Record.Data, m.Record.Version = o.DataName, buildinfo.Revision()
		st.Record, st.Protocol = m.Record, p
	}
	st.Workers = o.Workers
	if p.Template {
		ix := TemplateRefs(o.Train)
		if err := AttachTemplates(o.Train, ix, true, p.MinIdentity); err != nil {
			return nil, nil, err
		}
		if err := AttachTemplates(o.Valid, ix, false, p.MinIdentity); err != nil {
			return nil, nil, err
		}
	}
	if p.Energy {
		if err := attachMFE(o); err != nil {
			return nil, nil, err
		}
	}
	every := o.CheckpointEvery
	if every <= 0 {
		every = 10 * time.Minute
	}
	loss := scnn.WeightedBCE{PosWeight: p.PosWeight, Workers: o.Workers}
	var recycler scnn.Recycler // the run's training buffers, reused step to step
	start, before, lastEval, lastSave := time.Now(), st.Seconds, time.Now(), time.Now()
	save := func() error {
		st.Seconds = before + time.Since(start).Seconds()
		lastSave = time.Now()
		return checkpoint.Save(ckpt, st, m.Net.Params(), opt)
	}
	stopped := false
	for st.Step < p.Steps {
		if ctx.Err() != nil {
			if err := save(); err != nil {
				return nil, nil, fmt.Errorf("ssnet: interrupted at step %d, and the checkpoint failed: %w", st.Step, err)
			}
			return nil, nil, ErrInterrupted
		}
		budgetSpent := o.Budget > 0 && before+time.Since(start).Seconds() >= o.Budget.Seconds()
		if budgetSpent && (len(st.Log) > 0 && st.Log[len(st.Log)-1].Step == st.Step) {
			stopped = true
			break
		}
		if !budgetSpent {
			if time.Since(lastSave) >= every {
				if err := save(); err != nil {
					return nil, nil, err
				}
			}
			// Each step draws from its own stream: a resumed run draws
			// what the uninterrupted run would have.
			rng := rand.New(rand.NewPCG(o.Seed, uint64(st.Step)))
			v, err := trainStep(m, opt, loss, &recycler, o, rng, st.Step)
			if err != nil {
				return nil, nil, err
			}
			st.Step++
			st.LossSum += v
			st.LossN++
			if o.OnStep != nil {
				o.OnStep(st.Step, v)
			}
			if st.Step%p.EvalEvery != 0 && st.Step != p.Steps {
				continue
			}
		}
		scores, err := Evaluate(o.Valid, ModelPredictor(m, o.Workers), nil)
		if err != nil {
			return nil, nil, err
		}
		acc, f1 := groupMeans(o.Valid, scores)
		e := EvalLog{Step: st.Step, TrainLoss: st.LossSum / float64(max(st.LossN, 1)), ValAcc: acc, ValF1: f1,
			Seconds: time.Since(lastEval).Seconds()}
		lastEval = time.Now()
		st.Log = append(st.Log, e)
		st.LossSum, st.LossN = 0, 0
		if st.BestStep == 0 || acc > st.Best {
			st.Best, st.BestStep = acc, st.Step
			m.Record.Step = st.Step
			if err := m.Save(filepath.Join(o.Out, ModelFile)); err != nil {
				return nil, nil, err
			}
		}
		if o.OnEval != nil {
			o.OnEval(e)
		}
		st.Done = st.Step >= p.Steps
		if err := writeLog(filepath.Join(o.Out, LogFile), st.Log); err != nil {
			return nil, nil, err
		}
		if err := save(); err != nil {
			return nil, nil, err
		}
		if budgetSpent {
			stopped = true
			break
		}
	}
	return m, &Result{Steps: st.Step, BestStep: st.BestStep, BestAcc: st.Best, Seconds: st.Seconds, Log: st.Log, Stopped: stopped}, nil
}

// attachMFE attaches the MFE structures of the training and validation
// molecules, from and to the options' cache file.
func attachMFE(o TrainOptions) error {
	cache := NewMFECache()
	if o.MFECache != "" {
		var err error
		if cache, err = ReadMFECache(o.MFECache); err != nil {
			return err
		}
	}
	for _, set := range [][]Molecule{o.Train, o.Valid} {
		if err := AttachMFE(set, cache, max(o.Workers, 1), nil); err != nil {
			return err
		}
	}
	if o.MFECache != "" && cache.Changed() {
		return cache.Write(o.MFECache)
	}
	return nil
}

// groupMeans is the validation score: the mean accuracy and F1 over the
// molecules of each group (Molecule.Group: the validation files), then
// over the groups; with one group, the means over the molecules.
func groupMeans(set []Molecule, scores []MolScore) (acc, f1 float64) {
	type sum struct {
		acc, f1 float64
		n       int
	}
	var order []int
	groups := map[int]*sum{}
	for k, s := range scores {
		g := set[k].Group
		if groups[g] == nil {
			groups[g] = &sum{}
			order = append(order, g)
		}
		groups[g].acc += s.Exact.Accuracy
		groups[g].f1 += s.Exact.F1
		groups[g].n++
	}
	for _, g := range order {
		acc += groups[g].acc / float64(groups[g].n)
		f1 += groups[g].f1 / float64(groups[g].n)
	}
	n := float64(max(len(order), 1))
	return acc / n, f1 / n
}

// trainStep is one optimiser step on a batch drawn from rng; it returns
// the loss.
func trainStep(m *Model, opt *scnn.Adam, loss scnn.WeightedBCE, rec *scnn.Recycler, o TrainOptions, rng *rand.Rand, step int) (float64, error) {
	p := o.Protocol
	var ws []Window
	if p.PairCrops {
		ws = RandomPairWindows(o.Train, p.Batch, p.Crop, rng)
	} else {
		ws = RandomWindows(o.Train, p.Batch, p.Crop, rng)
	}
	if p.TemplateDrop > 0 {
		for k := range ws {
			ws[k].NoTemplate = rng.Float64() < p.TemplateDrop
		}
	}
	b, err := NewBatch(ws, m.Net.Spec)
	if err != nil {
		return 0, fmt.Errorf("ssnet: step %d: %w", step+1, err)
	}
	opt.ZeroGrad()
	opt.LR = p.LRAt(o.Kind, step)
	pass := scnn.TrainingWith(o.Workers, rec)
	logits, err := m.Net.Forward(pass, b.In)
	if err != nil {
		return 0, err
	}
	v, g, err := loss.Forward(logits, b.Labels, b.Mask)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("loss is %v", v)
	}
	if err != nil {
		return 0, fmt.Errorf("ssnet: step %d: %w", step+1, err)
	}
	if err := pass.Backward(logits, g); err != nil {
		return 0, err
	}
	opt.Step()
	pass.Free() // its buffers go to the next step
	return v, nil
}

// sameSettings reports whether two protocols train alike up to their
// step counts (a run may be extended; the widths are checked by the
// model's shapes when the parameters are restored).
func sameSettings(a, b Protocol) bool {
	a.Steps, b.Steps = 0, 0
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// Result summarises a finished run; the model returned beside it is the
// last step's, the best one is in the run directory.
type Result struct {
	Steps, BestStep int
	BestAcc         float64 // best mean validation accuracy
	Seconds         float64
	Log             []EvalLog
	Stopped         bool // the budget was spent before the protocol's steps
}

// RunInfo reads a run directory's checkpoint: training seconds, steps and
// whether it reached its protocol's steps.
func RunInfo(dir string) (seconds float64, steps int, done bool, err error) {
	var st runState
	if _, err := checkpoint.Read(filepath.Join(dir, CheckpointFile), &st); err != nil {
		return 0, 0, false, err
	}
	return st.Seconds, st.Step, st.Done, nil
}

func writeLog(path string, log []EvalLog) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		fmt.Fprintln(w, "step\ttrain_loss\tval_accuracy\tval_f1\tseconds")
		for _, e := range log {
			fmt.Fprintf(w, "%d\t%.6f\t%.4f\t%.4f\t%.1f\n", e.Step, e.TrainLoss, e.ValAcc, e.ValF1, e.Seconds)
		}
		return nil
	})
}
