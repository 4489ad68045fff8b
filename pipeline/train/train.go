package train

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/metrics"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
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
	// Budget, when positive, bounds the run's training time (wall clock
	// of every session, validation included): once it is spent, the
	// batches since the last validation are validated and logged (a
	// partial epoch), the model kept if better, a checkpoint written and
	// the run stops at that batch (Result.Stop says so). A resumed run
	// counts the time of its earlier sessions; resumed with a larger
	// budget, it continues from that batch. On Resume, 0 takes the
	// checkpoint's budget and a negative one lifts it; a change is
	// applied with a note (OnNote).
	Budget time.Duration
	// CheckpointEvery is the longest time between checkpoints inside an
	// epoch (0: 10 minutes, loop.DefaultCheckpointEvery), so a killed run
	// loses at most that much; a checkpoint is also written at every
	// epoch end and when ctx is cancelled.
	CheckpointEvery time.Duration
	Plateau         int     // halve the learning rate after this many epochs without improvement (default 2)
	MinLR           float64 // default 1e-5
	// Workers is the number of convolution goroutines; results depend on
	// it. 0 means GOMAXPROCS for a new run and the checkpoint's on Resume.
	Workers int
	// Precision is the arithmetic of the run's GEMMs and direct
	// convolutions: "float32" (or empty, the default) or "bfloat16"
	// (operands rounded to bfloat16, sums in float32; parameters and
	// optimiser state stay float32), which needs a CPU with AVX512_BF16.
	// Train sets it process-wide (scnn.SetGemmPrecision) for the run,
	// validation included, and restores the previous setting on return;
	// a resumed run keeps its checkpoint's.
	Precision string
	// Resume continues the run in Out from its checkpoint; a Seed,
	// Workers or Precision other than the checkpoint's is refused, and
	// so are other data (Features: the chains used and their checksums)
	// and another LR, L2, PosWeight, BatchSize, Plateau, MinLR, Random,
	// MaxTrain, TrainSplit or ValSplit. MaxEpochs, Patience and Budget
	// may change (a note says so). On Resume a zero setting (an empty
	// Features too) is not given: the run takes the checkpoint's.
	Resume bool
	// Force starts a new run in an Out that holds one, replacing it.
	// Without Resume or Force, Train refuses such a directory.
	Force    bool
	MaxTrain int  // use at most this many training chains (0: all); for tests
	Random   bool // random batches instead of similar lengths (slower: more padding; see Batches)
	// Splits to train and validate on (default "train" and "validation";
	// "all" uses every chain).
	TrainSplit, ValSplit string
	// Teacher, when set, makes the run a distillation (see Teacher).
	Teacher *Teacher

	clock func() time.Time // time.Now unless a test sets it

	OnEpochStart func(epoch, batches int)
	OnBatch      func(loss float64)
	OnEpochEnd   func(EpochLog)
	// OnNote is told what a resumed run changes or could not check
	// against its checkpoint (a new budget, an older checkpoint).
	OnNote func(string)
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

// taskState is the protein part of a checkpoint (the loop's part is
// loop.State). A field once written is never removed nor renamed, its
// settings' neither: the loop refuses a key it does not know
// (TestTaskStateKnownKeys).
type taskState struct {
	Arch    model.Arch `json:"arch"`
	Workers int        `json:"workers,omitempty"` // convolution goroutines (0 in checkpoints before it was recorded)
	// Precision is the run's Options.Precision, "" for float32.
	Precision string `json:"precision,omitempty"`
	// Teacher is a distillation's teacher fingerprint and label weight
	// (empty for a run on the labels).
	Teacher     string  `json:"teacher,omitempty"`
	LabelWeight float64 `json:"label_weight,omitempty"`
	// Settings are the run's settings and the checksum of its data (nil
	// in checkpoints before they were recorded).
	Settings *settings `json:"settings,omitempty"`
}

// settings are the Options of a run that a resumed run checks
// (Options.Resume), after defaults.
type settings struct {
	DataSum    string        `json:"data_sha256"` // dataSum of the chains trained and validated on
	TrainSplit string        `json:"train_split"`
	ValSplit   string        `json:"val_split"`
	MaxTrain   int           `json:"max_train,omitempty"`
	BatchSize  int           `json:"batch_size"`
	LR         float64       `json:"lr"`
	L2         float64       `json:"l2"`
	PosWeight  float64       `json:"pos_weight"`
	Plateau    int           `json:"plateau"`
	MinLR      float64       `json:"min_lr"`
	Random     bool          `json:"random_batches,omitempty"`
	MaxEpochs  int           `json:"epochs"`
	Patience   int           `json:"patience"`
	Budget     time.Duration `json:"budget_ns,omitempty"` // 0: none
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
// of the batch reached has been written and Resume continues the run.
var ErrInterrupted = loop.ErrInterrupted

// ErrRunExists is returned when Out already holds a run and neither
// Resume nor Force is set.
var ErrRunExists = loop.ErrRunExists

// Paths inside the run directory.
const (
	ModelFile      = loop.ModelFile
	CheckpointFile = loop.CheckpointFile
	LogFile        = loop.LogFile
	PlotFile       = "curves.png"
)

// metricsLogged are the validation values of the log, in its column
// order; the first (the validation loss) picks the model kept, drives
// the learning-rate schedule and early stopping.
var metricsLogged = []loop.Metric{
	{Name: "val_loss", Digits: 6, Lower: true},
	{Name: "val_accuracy", Digits: 4},
	{Name: "val_long_top_l5", Digits: 4},
}

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

// schedule is the run's learning-rate schedule: halved after o.Plateau
// validations without a lower validation loss, never below o.MinLR.
func schedule(o Options) *loop.Plateau {
	return &loop.Plateau{LR: o.LR, Factor: 0.5, Patience: o.Plateau - 1, Min: o.MinLR, Lower: true}
}

// Train runs (or resumes) training and evaluation on the validation split
// each epoch, keeping the model with the lowest validation loss (package
// scnn/loop: an epoch is a round of the loop).
func Train(ctx context.Context, o Options) (*Result, error) {
	var set loop.Settings // a resumed run's settings against its checkpoint's
	var old taskState     // the checkpoint's, read before the data
	if o.Resume {
		d := o
		d.defaults()
		if err := loop.ReadTask(o.Out, modelkind.Protein, legacy(d, 0), &old); err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
		resumeSettings(&set, &o, old)
		if err := set.Err(); err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
	}
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
	sum, err := dataSum(o.Features, o.TrainSplit, o.ValSplit, o.MaxTrain)
	if err != nil {
		return nil, err
	}
	if o.Resume {
		resumeData(&set, o.Features, sum, old)
		if err := set.Err(); err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
		if o.OnNote != nil {
			for _, n := range set.Notes() {
				o.OnNote(n)
			}
		}
	}
	perEpoch := len(trainSet)/o.BatchSize + min(len(trainSet)%o.BatchSize, 1)
	run, err := loop.OpenKind(o.Out, o.Resume, o.Force, modelkind.Protein, legacy(o, perEpoch), PlotFile)
	switch {
	case err != nil && o.Resume:
		return nil, fmt.Errorf("train: resume: %w", err)
	case err != nil:
		return nil, fmt.Errorf("train: %w", err)
	}
	var teacherFP string // the teacher's fingerprint, computed once ("" without one)
	if o.Teacher != nil {
		teacherFP = o.Teacher.Fingerprint()
	}
	var ts taskState
	if run.Resumed() {
		if err := run.TaskState(&ts); err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
		if ts.Arch.Format != model.Format {
			// A protein run of another model format (another kind of
			// run is refused by loop.OpenKind).
			return nil, fmt.Errorf("train: resume: the checkpoint is of model format %d, this build writes %d: start a new run", ts.Arch.Format, model.Format)
		}
		if ts.Arch.Kind != o.Arch.Kind || ts.Arch.Config != o.Arch.Config {
			return nil, fmt.Errorf("train: resume: checkpoint is a %s/%s run, asked for %s/%s", ts.Arch.Kind, ts.Arch.Config, o.Arch.Kind, o.Arch.Config)
		}
		if o.Seed != 0 && o.Seed != ts.Arch.Seed {
			return nil, fmt.Errorf("train: resume: the checkpoint's run has seed %d, asked for %d (a resumed run keeps its seed)", ts.Arch.Seed, o.Seed)
		}
		if o.Workers != 0 && ts.Workers != 0 && o.Workers != ts.Workers {
			return nil, fmt.Errorf("train: resume: the checkpoint's run uses %d workers, asked for %d; results depend on it (a resumed run keeps its workers)", ts.Workers, o.Workers)
		}
		if p := scnn.RecordedPrecision(o.Precision); o.Precision != "" && p != ts.Precision {
			return nil, fmt.Errorf("train: resume: the checkpoint's run is in %s, asked for %s (a resumed run keeps its precision)", cmp.Or(ts.Precision, "float32"), cmp.Or(p, "float32"))
		}
		o.Precision = ts.Precision
		if lw := o.Teacher.labelWeight(); teacherFP != ts.Teacher || lw != ts.LabelWeight {
			return nil, fmt.Errorf("train: resume: the checkpoint's run has teacher %q (label weight %v), asked for %q (label weight %v): a resumed run keeps its teacher", short(ts.Teacher), ts.LabelWeight, short(teacherFP), lw)
		}
		o.Seed = ts.Arch.Seed
		if ts.Workers != 0 {
			o.Workers = ts.Workers
		}
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	o.Precision = scnn.RecordedPrecision(o.Precision)
	prevPrecision := scnn.GemmPrecision()
	if err := scnn.SetGemmPrecision(o.Precision); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	defer scnn.SetGemmPrecision(prevPrecision)
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
	o.Arch.Precision = o.Precision
	var targets [][]float32
	if o.Teacher != nil {
		if err := o.Teacher.check(trainSet); err != nil {
			return nil, err
		}
		ts.Teacher, ts.LabelWeight = teacherFP, o.Teacher.LabelWeight
		o.Arch.Teacher = fmt.Sprintf("%d models, fingerprint %s, label weight %v", len(o.Teacher.Members), short(teacherFP), o.Teacher.LabelWeight)
		if targets, err = o.Teacher.targets(trainSet, o.BatchSize); err != nil {
			return nil, fmt.Errorf("train: teacher: %w", err)
		}
	}
	m, err := model.NewModel(o.Arch, o.Seed)
	if err != nil {
		return nil, err
	}
	o.Arch = m.Arch // with the format and defaults NewModel fills in
	if run.Resumed() {
		// The parameters are restored by the loop; the model file keeps
		// the run's provenance.
		o.Arch = ts.Arch
		m.Arch = ts.Arch
	} else {
		ts.Arch = o.Arch
	}
	ts.Workers, ts.Precision = o.Workers, o.Precision
	ts.Settings = &settings{DataSum: sum, TrainSplit: o.TrainSplit, ValSplit: o.ValSplit, MaxTrain: o.MaxTrain,
		BatchSize: o.BatchSize, LR: o.LR, L2: o.L2, PosWeight: o.PosWeight, Plateau: o.Plateau, MinLR: o.MinLR,
		Random: o.Random, MaxEpochs: o.MaxEpochs, Patience: o.Patience, Budget: max(o.Budget, 0)}
	t := &proteinTask{o: o, m: m, train: trainSet, targets: targets, val: valSet, st: &ts,
		loss: scnn.WeightedBCE{PosWeight: o.PosWeight, Workers: o.Workers}}
	for _, e := range run.State().Log {
		t.log = append(t.log, epochLog(e))
	}
	cfg := loop.Config{Task: t, Params: m.Params(), Optimizer: scnn.NewAdam(m.Params(), o.LR, o.L2), Schedule: schedule(o),
		Rounds: o.MaxEpochs, Unit: "epoch", Metrics: metricsLogged, Patience: o.Patience,
		Budget: o.Budget, CheckpointEvery: o.CheckpointEvery, Clock: o.clock, Workers: o.Workers,
		Hooks: loop.Hooks{Validated: t.validated}}
	if o.OnEpochStart != nil {
		cfg.Hooks.RoundStart = func(epoch, batches, _ int) { o.OnEpochStart(epoch, batches) }
	}
	if o.OnBatch != nil {
		cfg.Hooks.Step = func(_ int, loss float64) { o.OnBatch(loss) }
	}
	res, err := run.Train(ctx, cfg)
	if err == nil {
		err = t.plotErr
	}
	if err != nil {
		if errors.Is(err, loop.ErrInterrupted) {
			return nil, err
		}
		return nil, fmt.Errorf("train: %w", err)
	}
	out := &Result{Model: filepath.Join(o.Out, ModelFile), Arch: o.Arch, Params: m.Trainable(), BestEpoch: res.BestRound,
		Epochs: len(res.Log), Seconds: res.Seconds, Stop: res.Stop}
	for _, e := range res.Log {
		out.Log = append(out.Log, epochLog(e))
	}
	return out, nil
}

// resumeSettings checks the options of a resumed run against its
// checkpoint's task state old (loop.Keep, loop.Change): a setting not
// given takes the checkpoint's.
func resumeSettings(set *loop.Settings, o *Options, old taskState) {
	if o.Features == "" {
		o.Features = old.Arch.Data
	}
	var r settings
	known := old.Settings != nil
	if known {
		r = *old.Settings
	}
	o.TrainSplit = loop.Keep(set, "training split", o.TrainSplit, r.TrainSplit, known)
	o.ValSplit = loop.Keep(set, "validation split", o.ValSplit, r.ValSplit, known)
	o.MaxTrain = loop.Keep(set, "training chains limit (MaxTrain)", o.MaxTrain, r.MaxTrain, known)
	o.BatchSize = loop.Keep(set, "batch size", o.BatchSize, r.BatchSize, known)
	o.LR = loop.Keep(set, "--lr", o.LR, r.LR, known)
	o.L2 = loop.Keep(set, "L2 decay", o.L2, r.L2, known)
	o.PosWeight = loop.Keep(set, "positive weight", o.PosWeight, r.PosWeight, known)
	o.Plateau = loop.Keep(set, "plateau epochs", o.Plateau, r.Plateau, known)
	o.MinLR = loop.Keep(set, "minimum learning rate", o.MinLR, r.MinLR, known)
	o.Random = loop.Keep(set, "random batches", o.Random, r.Random, known)
	o.MaxEpochs = loop.Change(set, "--epochs", o.MaxEpochs, r.MaxEpochs, known)
	o.Patience = loop.Change(set, "--patience", o.Patience, r.Patience, known)
	o.Budget = loop.Budget(set, o.Budget, r.Budget, known)
}

// resumeData checks the data of a resumed run (features directory dir,
// dataSum sum) against its checkpoint's: other chains or checksums are
// refused; the same data in another directory is noted.
func resumeData(set *loop.Settings, dir, sum string, old taskState) {
	dir = filepath.Clean(dir)
	switch {
	case old.Settings == nil && dir != old.Arch.Data:
		set.Refuse("--features %s differs from the checkpoint's %s", dir, old.Arch.Data)
	case old.Settings == nil:
		set.Note("--features %s: the checkpoint (an older one) does not record the data's checksum; not checked", dir)
	case sum != old.Settings.DataSum:
		set.Refuse("the data of --features %s (checksum %s) differ from the checkpoint's (%s, checksum %s)", dir, short(sum), old.Arch.Data, short(old.Settings.DataSum))
	case dir != old.Arch.Data:
		set.Note("--features %s: the checkpoint's run read %s; the same chains and checksums, so the run goes on", dir, old.Arch.Data)
	}
}

// dataSum is the SHA-256 of the chains a run trains and validates on:
// their IDs and feature files' checksums, as dir/manifest.tsv lists them
// (LoadSplit checks the files against it), split by split.
func dataSum(dir, trainSplit, valSplit string, maxTrain int) (string, error) {
	entries, err := features.ReadManifest(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return "", fmt.Errorf("train: %w", err)
	}
	h := sha256.New()
	for k, split := range []string{trainSplit, valSplit} {
		fmt.Fprintf(h, "split %s\n", split)
		n := 0
		for _, e := range entries {
			if split != "all" && e.Split != split || k == 0 && maxTrain > 0 && n >= maxTrain {
				continue
			}
			n++
			fmt.Fprintf(h, "%s\t%s\n", e.ID, e.SHA256)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func epochLog(e loop.Entry) EpochLog {
	return EpochLog{Epoch: e.Round, TrainLoss: e.TrainLoss, ValLoss: e.Values[0], ValAcc: e.Values[1], ValLongL5: e.Values[2],
		LR: e.LR, Seconds: e.Seconds}
}

// proteinTask is a contact-map run for the loop: a round is an epoch,
// whose batches are drawn from the stream (seed, epoch), so that a
// resumed run draws what the uninterrupted one would have.
type proteinTask struct {
	o          Options
	m          *model.Model
	train, val []*model.Sample
	targets    [][]float32 // a distillation's teacher targets of train (Teacher.targets), or nil
	st         *taskState
	loss       scnn.WeightedBCE
	epoch      int
	batches    [][]int
	log        []EpochLog // every validation of the run, for the plot
	plotErr    error      // the plot could not be written
}

func (t *proteinTask) StartRound(epoch, _, _ int) (int, error) {
	if t.plotErr != nil {
		return 0, t.plotErr
	}
	rng := rand.New(rand.NewPCG(t.o.Seed, uint64(epoch)))
	t.epoch, t.batches = epoch, Batches(t.train, t.o.BatchSize, rng, !t.o.Random)
	return len(t.batches), nil
}

func (t *proteinTask) Step(pass *scnn.Pass, i, _ int) (float64, error) {
	b := model.NewBatch(pick(t.train, t.batches[i]), t.m.Packed())
	logits, err := t.m.Forward(pass, b)
	if err != nil {
		return 0, err
	}
	var v float64
	var g *scnn.Tensor
	if t.targets != nil {
		v, g, err = distillLoss(logits, b, pick(t.targets, t.batches[i]), t.o.Teacher.LabelWeight, t.loss)
	} else {
		v, g, err = t.loss.Forward(logits, b.Labels, b.Mask)
	}
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("loss is %v", v)
	}
	if err != nil {
		return 0, fmt.Errorf("chains %s: %w", strings.Join(b.IDs, " "), err)
	}
	if err := pass.Backward(logits, g); err != nil {
		return 0, err
	}
	return v, nil
}

func (t *proteinTask) Validate() ([]float64, error) {
	vs, err := evaluate(t.m, t.val, t.o.BatchSize, t.o.Workers, t.loss)
	if err != nil {
		return nil, err
	}
	return []float64{vs.Loss, vs.Summary.Accuracy, vs.Summary.TopL[metrics.Long][metrics.TopL5]}, nil
}

func (t *proteinTask) SaveBest(e loop.Entry) error {
	t.m.Arch.Epoch = e.Round
	return t.m.Save(filepath.Join(t.o.Out, ModelFile))
}

func (t *proteinTask) State() any { return t.st }

// validated is the loop's hook after each validation: the caller's
// OnEpochEnd, then the curves plot (an error stops the run at its next
// epoch, or when it returns).
func (t *proteinTask) validated(e loop.Entry) {
	l := epochLog(e)
	t.log = append(t.log, l)
	if t.o.OnEpochEnd != nil {
		t.o.OnEpochEnd(l)
	}
	if err := Plot(filepath.Join(t.o.Out, PlotFile), t.log, string(t.o.Arch.Kind)); err != nil && t.plotErr == nil {
		t.plotErr = fmt.Errorf("plot: %w", err)
	}
}

// legacyState is the record of a checkpoint written before the shared
// training loop (package scnn/loop).
type legacyState struct {
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
	Seconds   float64    `json:"seconds"`
	Done      bool       `json:"done"`
	Stop      string     `json:"stop,omitempty"`
	Arch      model.Arch `json:"arch"`
	Workers   int        `json:"workers,omitempty"`
}

// legacy converts the record of a pre-loop checkpoint for a run of
// options o (its learning-rate schedule's settings) with perEpoch
// batches an epoch (the step counts, which the old record lacks; a
// budget-stopped run's partial epoch is counted whole).
func legacy(o Options, perEpoch int) loop.Legacy {
	return func(raw json.RawMessage) (loop.State, json.RawMessage, error) {
		var old legacyState
		if err := json.Unmarshal(raw, &old); err != nil {
			return loop.State{}, nil, fmt.Errorf("checkpoint record: %w", err)
		}
		steps := func(epochsDone, batches int) int { return epochsDone*perEpoch + batches }
		st := loop.State{Round: old.Epoch, Next: old.NextBatch, Steps: steps(old.Epoch-1, old.NextBatch),
			LossSum: old.LossSum, LossN: old.LossN, Bad: old.Bad, Seconds: old.Seconds, Done: old.Done, Stop: old.Stop,
			Early: strings.HasPrefix(old.Stop, "early stop")}
		if old.BestEpoch > 0 {
			st.Best, st.BestRound, st.BestStep = old.BestVal, old.BestEpoch, steps(old.BestEpoch, 0)
			st.RoundBest, st.RoundBestSet = old.BestVal, true
		}
		for _, l := range old.Log {
			st.Log = append(st.Log, loop.Entry{Round: l.Epoch, Step: steps(l.Epoch, 0), TrainLoss: l.TrainLoss,
				Values: []float64{l.ValLoss, l.ValAcc, l.ValLongL5}, LR: l.LR, Seconds: l.Seconds})
		}
		sch := schedule(o)
		sch.LR, sch.Bad = old.LR, old.Flat
		sch.Best, sch.Seen = st.Best, old.BestEpoch > 0
		var err error
		if st.Schedule, err = json.Marshal(sch); err != nil {
			return loop.State{}, nil, err
		}
		task, err := json.Marshal(taskState{Arch: old.Arch, Workers: old.Workers})
		return st, task, err
	}
}

// Info reads the loop's state of the run in dir from its checkpoint
// (of either format; the step counts of a checkpoint written before the
// shared loop are not known to it and left at the batches of the epoch
// in progress).
func Info(dir string) (loop.State, error) {
	var o Options
	o.defaults()
	return loop.Info(dir, legacy(o, 0))
}

// pick returns s[idx[0]], s[idx[1]], ...: a batch's samples or their
// teacher targets.
func pick[T any](s []T, idx []int) []T {
	out := make([]T, len(idx))
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
