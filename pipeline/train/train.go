package train

import (
	"context"
	"errors"
	"fmt"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/contactmap/contactmap/internal/checkpoint"
	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/scnn"
)

// Options configure a training run.
type Options struct {
	Features string // feature directory (manifest.tsv)
	Out      string // run directory: model, checkpoint, log, plot
	Arch     model.Arch
	// Seed of initialisation and data order; 0 means 1 for a new run and
	// the checkpoint's seed on Resume.
	Seed      uint64
	MaxEpochs int     // default 40
	BatchSize int     // default 10
	LR        float64 // default 1e-3 (CNN) or 2e-3 (SCNN), as in the paper
	L2        float64 // default 1e-5
	PosWeight float64 // default 5
	Patience  int     // early stopping: epochs without a better validation loss (default 6)
	// Budget, when positive, bounds the run's training time (st.Seconds:
	// wall clock of every session, validation included): once it is spent,
	// the epoch in progress ends after its current batch, is validated and
	// logged like a full one, and the run stops. A resumed run counts the
	// time of its earlier sessions.
	Budget time.Duration
	// CheckpointEvery, when positive, also writes the checkpoint inside an
	// epoch at this interval, so a killed run loses at most that much.
	CheckpointEvery time.Duration
	Plateau         int     // halve the learning rate after this many epochs without improvement (default 2)
	MinLR           float64 // default 1e-5
	// Workers is the number of convolution goroutines; results depend on
	// it. 0 means GOMAXPROCS for a new run and the checkpoint's on Resume.
	Workers int
	// Resume continues the run in Out from its checkpoint; a Seed or
	// Workers other than the checkpoint's is refused.
	Resume bool
	// Force starts a new run in an Out that holds one, replacing it.
	// Without Resume or Force, Train refuses such a directory.
	Force    bool
	MaxTrain int  // use at most this many training chains (0: all); for tests
	Random   bool // random batches instead of similar lengths (slower: more padding; see Batches)
	// Splits to train and validate on (default "train" and "validation";
	// "all" uses every chain).
	TrainSplit, ValSplit string

	clock func() time.Time // time.Now unless a test sets it

	OnEpochStart func(epoch, batches int)
	OnBatch      func(loss float64)
	OnEpochEnd   func(EpochLog)
}

// EpochLog is one line of the training log.
type EpochLog struct {
	Epoch     int     `json:"epoch"`
	TrainLoss float64 `json:"train_loss"`
	ValLoss   float64 `json:"val_loss"`
	ValAcc    float64 `json:"val_accuracy"`    // the paper's (PPV+Sens)/2
	ValLongL5 float64 `json:"val_long_top_l5"` // long-range top-L/5 precision
	LR        float64 `json:"lr"`
	Seconds   float64 `json:"seconds"`
}

// state is what a checkpoint stores besides parameters and Adam moments.
type state struct {
	Epoch     int        `json:"epoch"`      // current epoch (1-based)
	NextBatch int        `json:"next_batch"` // first batch of Epoch not yet done
	LossSum   float64    `json:"loss_sum"`   // training loss so far in Epoch
	LossN     int        `json:"loss_n"`
	BestVal   float64    `json:"best_val"`   // meaningful when BestEpoch > 0
	BestEpoch int        `json:"best_epoch"` // 0 before the first validation
	Bad       int        `json:"bad_epochs"` // since the best
	Flat      int        `json:"flat_epochs"`
	LR        float64    `json:"lr"`
	Log       []EpochLog `json:"log"`
	Seconds   float64    `json:"seconds"` // training time before this session
	Done      bool       `json:"done"`
	Stop      string     `json:"stop,omitempty"`
	Arch      model.Arch `json:"arch"`
	Workers   int        `json:"workers,omitempty"` // convolution goroutines (0 in checkpoints before it was recorded)
}

// Result summarises a finished run.
type Result struct {
	Model     string // path of the best model
	Arch      model.Arch
	Params    int
	BestEpoch int
	Epochs    int
	Seconds   float64
	Stop      string // why training stopped
	Log       []EpochLog
}

// ErrInterrupted is returned when the context is cancelled; a checkpoint
// has been written and Resume continues the run.
var ErrInterrupted = errors.New("training interrupted; checkpoint saved")

// ErrRunExists is returned when Out already holds a run and neither
// Resume nor Force is set.
var ErrRunExists = errors.New("the run directory holds a run")

// Paths inside the run directory.
const (
	ModelFile      = "model.scnn"
	CheckpointFile = "checkpoint.scnn"
	LogFile        = "train_log.tsv"
	PlotFile       = "curves.png"
)

func (o *Options) defaults() {
	if o.MaxEpochs == 0 {
		o.MaxEpochs = 40
	}
	if o.BatchSize == 0 {
		o.BatchSize = 10
	}
	if o.LR == 0 {
		o.LR = 1e-3
		if o.Arch.Kind == model.SCNN {
			o.LR = 2e-3
		}
	}
	if o.L2 == 0 {
		o.L2 = 1e-5
	}
	if o.PosWeight == 0 {
		o.PosWeight = 5
	}
	if o.Patience == 0 {
		o.Patience = 6
	}
	if o.Plateau == 0 {
		o.Plateau = 2
	}
	if o.MinLR == 0 {
		o.MinLR = 1e-5
	}
	if o.TrainSplit == "" {
		o.TrainSplit = "train"
	}
	if o.ValSplit == "" {
		o.ValSplit = "validation"
	}
}

// Train runs (or resumes) training and evaluation on the validation split
// each epoch, keeping the model with the lowest validation loss.
func Train(ctx context.Context, o Options) (*Result, error) {
	o.defaults()
	trainSet, mode, err := LoadSplit(o.Features, o.TrainSplit)
	if err != nil {
		return nil, err
	}
	valSet, vmode, err := LoadSplit(o.Features, o.ValSplit)
	if err != nil {
		return nil, err
	}
	if vmode != mode {
		return nil, fmt.Errorf("train: validation features are %s, training features %s", vmode, mode)
	}
	if o.MaxTrain > 0 && len(trainSet) > o.MaxTrain {
		trainSet = trainSet[:o.MaxTrain]
	}
	ckpt := filepath.Join(o.Out, CheckpointFile)
	if err := prepareRunDir(o); err != nil {
		return nil, err
	}
	st := &state{Epoch: 1, LR: o.LR}
	var saved []scnn.Array
	if o.Resume {
		var err error
		if saved, err = checkpoint.Read(ckpt, st); err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
		if st.Arch.Format != model.Format {
			return nil, fmt.Errorf("train: resume: the checkpoint is of model format %d, this build writes %d: start a new run", st.Arch.Format, model.Format)
		}
		if st.Arch.Kind != o.Arch.Kind || st.Arch.Config != o.Arch.Config {
			return nil, fmt.Errorf("train: resume: checkpoint is a %s/%s run, asked for %s/%s", st.Arch.Kind, st.Arch.Config, o.Arch.Kind, o.Arch.Config)
		}
		if o.Seed != 0 && o.Seed != st.Arch.Seed {
			return nil, fmt.Errorf("train: resume: the checkpoint's run has seed %d, asked for %d (leave --seed out to continue it)", st.Arch.Seed, o.Seed)
		}
		if o.Workers != 0 && st.Workers != 0 && o.Workers != st.Workers {
			return nil, fmt.Errorf("train: resume: the checkpoint's run uses %d workers, asked for %d; results depend on it (leave --workers out to continue it)", st.Workers, o.Workers)
		}
		o.Seed = st.Arch.Seed
		if st.Workers != 0 {
			o.Workers = st.Workers
		}
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	o.Arch.Mode, o.Arch.Seed = mode, o.Seed
	o.Arch.Data = filepath.Clean(o.Features)
	o.Arch.Labels = trainSet[0].Labels.Def
	o.Arch.MinLen, o.Arch.MaxLen = trainSet[0].L(), trainSet[0].L()
	for _, s := range trainSet {
		o.Arch.MinLen, o.Arch.MaxLen = min(o.Arch.MinLen, s.L()), max(o.Arch.MaxLen, s.L())
	}
	if vd, td := valSet[0].Labels.Def, trainSet[0].Labels.Def; vd != td {
		return nil, fmt.Errorf("train: validation labels are %s, training labels %s", vd, td)
	}
	o.Arch.Version = model.CodeVersion()
	m, err := model.NewModel(o.Arch, o.Seed)
	if err != nil {
		return nil, err
	}
	o.Arch = m.Arch // with the format and defaults NewModel fills in
	opt := scnn.NewAdam(m.Params(), o.LR, o.L2)
	if o.Resume {
		if err := checkpoint.Restore(saved, m.Params(), opt); err != nil {
			return nil, fmt.Errorf("train: resume: %s: %w", ckpt, err)
		}
		o.Arch = st.Arch
		m.Arch = st.Arch
	} else {
		st.Arch = o.Arch
	}
	st.Workers = o.Workers
	now := o.clock
	if now == nil {
		now = time.Now
	}
	start, before := now(), st.Seconds
	elapsed := func() float64 { return before + now().Sub(start).Seconds() }
	loss := scnn.WeightedBCE{PosWeight: o.PosWeight, Workers: o.Workers}
	recycler := new(scnn.Recycler) // the steps' buffers, from one step to the next
	for !st.Done && st.Epoch <= o.MaxEpochs {
		rng := rand.New(rand.NewPCG(o.Seed, uint64(st.Epoch)))
		batches := Batches(trainSet, o.BatchSize, rng, !o.Random)
		if o.Budget > 0 && st.NextBatch == 0 && elapsed() >= o.Budget.Seconds() {
			// Spent at the end of the last epoch (or resumed with a smaller budget).
			st.Done, st.Stop = true, fmt.Sprintf("time budget of %v spent before epoch %d", o.Budget, st.Epoch)
			st.Seconds = elapsed()
			if err := checkpoint.Save(ckpt, st, m.Params(), opt); err != nil {
				return nil, err
			}
			break
		}
		if o.OnEpochStart != nil {
			o.OnEpochStart(st.Epoch, len(batches))
		}
		epochStart, lastSave := time.Now(), now()
		overBudget := false
		for bi := st.NextBatch; bi < len(batches); bi++ {
			if ctx.Err() != nil {
				st.NextBatch = bi
				st.Seconds = elapsed()
				if err := checkpoint.Save(ckpt, st, m.Params(), opt); err != nil {
					return nil, err
				}
				return nil, ErrInterrupted
			}
			// (With no batch of this epoch done yet, the check before the
			// epoch decided.)
			if o.Budget > 0 && st.LossN > 0 && elapsed() >= o.Budget.Seconds() {
				overBudget = true
				st.Stop = fmt.Sprintf("time budget of %v spent after batch %d of %d in epoch %d", o.Budget, bi, len(batches), st.Epoch)
				break
			}
			if o.CheckpointEvery > 0 && bi > st.NextBatch && now().Sub(lastSave) >= o.CheckpointEvery {
				saveAt := *st
				saveAt.NextBatch, saveAt.Seconds = bi, elapsed()
				if err := checkpoint.Save(ckpt, &saveAt, m.Params(), opt); err != nil {
					return nil, err
				}
				lastSave = now()
			}
			samples := pick(trainSet, batches[bi])
			b := model.NewBatch(samples, m.Packed())
			opt.ZeroGrad()
			pass := scnn.TrainingWith(o.Workers, recycler)
			logits, err := m.Forward(pass, b)
			if err != nil {
				return nil, err
			}
			v, g, err := loss.Forward(logits, b.Labels, b.Mask)
			if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				err = fmt.Errorf("loss is %v", v)
			}
			if err != nil {
				return nil, fmt.Errorf("train: epoch %d batch %d (%s): %w", st.Epoch, bi+1, strings.Join(b.IDs, " "), err)
			}
			if err := pass.Backward(logits, g); err != nil {
				return nil, err
			}
			opt.LR = st.LR
			opt.Step()
			pass.Free() // its buffers go to the next step
			st.LossSum += v
			st.LossN++
			if o.OnBatch != nil {
				o.OnBatch(v)
			}
		}
		// End of epoch: validate, log, keep the best, decay, stop early.
		vs, err := evaluate(m, valSet, o.BatchSize, o.Workers, loss)
		if err != nil {
			return nil, err
		}
		e := EpochLog{Epoch: st.Epoch, TrainLoss: st.LossSum / float64(max(st.LossN, 1)), ValLoss: vs.Loss,
			ValAcc: vs.Summary.Accuracy, ValLongL5: vs.Summary.TopL[metrics.Long][metrics.TopL5], LR: st.LR, Seconds: time.Since(epochStart).Seconds()}
		st.Log = append(st.Log, e)
		if st.BestEpoch == 0 || vs.Loss < st.BestVal {
			st.BestVal, st.BestEpoch, st.Bad, st.Flat = vs.Loss, st.Epoch, 0, 0
			m.Arch.Epoch = st.Epoch
			if err := m.Save(filepath.Join(o.Out, ModelFile)); err != nil {
				return nil, err
			}
		} else {
			st.Bad++
			st.Flat++
			if st.Flat >= o.Plateau && st.LR > o.MinLR {
				st.LR = max(st.LR/2, o.MinLR)
				st.Flat = 0
			}
		}
		if o.OnEpochEnd != nil {
			o.OnEpochEnd(e)
		}
		switch {
		case overBudget:
			st.Done = true
		case o.Budget > 0 && elapsed() >= o.Budget.Seconds():
			st.Done, st.Stop = true, fmt.Sprintf("time budget of %v spent at the end of epoch %d", o.Budget, st.Epoch)
		case st.Bad >= o.Patience:
			st.Done, st.Stop = true, fmt.Sprintf("early stop: no better validation loss for %d epochs", o.Patience)
		case st.Epoch >= o.MaxEpochs:
			st.Done, st.Stop = true, fmt.Sprintf("reached %d epochs", o.MaxEpochs)
		}
		st.Epoch++
		st.NextBatch, st.LossSum, st.LossN = 0, 0, 0
		st.Seconds = elapsed()
		if err := writeLog(filepath.Join(o.Out, LogFile), st.Log); err != nil {
			return nil, err
		}
		if err := Plot(filepath.Join(o.Out, PlotFile), st.Log, string(o.Arch.Kind)); err != nil {
			return nil, err
		}
		if err := checkpoint.Save(ckpt, st, m.Params(), opt); err != nil {
			return nil, err
		}
	}
	return &Result{Model: filepath.Join(o.Out, ModelFile), Arch: o.Arch, Params: m.Trainable(), BestEpoch: st.BestEpoch,
		Epochs: len(st.Log), Seconds: st.Seconds, Stop: st.Stop, Log: st.Log}, nil
}

func pick(s []*model.Sample, idx []int) []*model.Sample {
	out := make([]*model.Sample, len(idx))
	for i, k := range idx {
		out[i] = s[k]
	}
	return out
}

type evalResult struct {
	Loss    float64
	Summary metrics.Summary
	Chains  []metrics.ChainMetrics
}

// evaluate runs the model in inference mode over samples in length-sorted
// batches and returns the pair-weighted mean loss and the metrics.
func evaluate(m *model.Model, samples []*model.Sample, batchSize, workers int, loss scnn.WeightedBCE) (*evalResult, error) {
	order := Batches(samples, batchSize, rand.New(rand.NewPCG(0, 0)), true) // inference: batching does not matter
	res := &evalResult{}
	pairs := 0.0
	for _, idx := range order {
		b := model.NewBatch(pick(samples, idx), m.Packed())
		logits, err := m.Forward(scnn.Inference(workers), b)
		if err != nil {
			return nil, err
		}
		v, _, err := loss.Forward(logits, b.Labels, b.Mask)
		if err != nil {
			return nil, err
		}
		n := countPairs(b)
		res.Loss += v * n
		pairs += n
		chains := pick(samples, idx)
		for k, p := range model.Probabilities(logits, b.Lengths) {
			res.Chains = append(res.Chains, metrics.Evaluate(b.IDs[k], p, chains[k].Labels))
		}
	}
	if pairs > 0 {
		res.Loss /= pairs
	}
	res.Summary = metrics.Summarize(res.Chains)
	return res, nil
}

func countPairs(b *model.Batch) float64 {
	n := 0.0
	for s := range b.Lengths {
		for i := 0; i < b.L; i++ {
			for j := i + 1; j < b.L; j++ {
				n += float64(b.Mask[(s*b.L+i)*b.L+j])
			}
		}
	}
	return n
}

func writeLog(path string, log []EpochLog) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		fmt.Fprintln(w, "epoch\ttrain_loss\tval_loss\tval_accuracy\tval_long_top_l5\tlr\tseconds")
		for _, e := range log {
			fmt.Fprintf(w, "%d\t%.6f\t%.6f\t%.4f\t%.4f\t%g\t%.1f\n", e.Epoch, e.TrainLoss, e.ValLoss, e.ValAcc, e.ValLongL5, e.LR, e.Seconds)
		}
		return nil
	})
}

// runFiles are what a run directory holds.
var runFiles = []string{ModelFile, CheckpointFile, LogFile, PlotFile}

// prepareRunDir creates o.Out, refuses to start over a run there unless
// o.Resume or o.Force, checks that it is writable, and removes the
// temporary files a killed run left.
func prepareRunDir(o Options) error {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if !o.Resume && !o.Force {
		for _, f := range runFiles[:2] {
			if _, err := os.Stat(filepath.Join(o.Out, f)); err == nil {
				return fmt.Errorf("train: %w: %s has %s; continue it with --resume or replace it with --force", ErrRunExists, o.Out, f)
			}
		}
	}
	if o.Resume {
		if _, err := os.Stat(filepath.Join(o.Out, CheckpointFile)); err != nil {
			return fmt.Errorf("train: resume: no %s in %s to continue (start without --resume)", CheckpointFile, o.Out)
		}
	}
	if err := fileio.RemoveStaleTemps(o.Out, runFiles...); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return fileio.CheckWritable(o.Out)
}
