package ssnet

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"time"

	"github.com/contactmap/contactmap/internal/buildinfo"
	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
)

// TrainOptions configure a training run.
type TrainOptions struct {
	Train, Valid []Molecule
	DataName     string // recorded in the model file (the training files)
	ValidName    string // the validation files, recorded in the checkpoint
	Out          string // run directory
	Kind         Kind
	// Protocol is the run's protocol; on Resume its Steps may differ
	// from the checkpoint's (a note says so; 0: the checkpoint's), its
	// other settings may not.
	Protocol Protocol
	Seed     uint64 // 0: 1 (new run) or the checkpoint's (Resume)
	Workers  int    // 0: GOMAXPROCS (new run) or the checkpoint's
	// Precision is the arithmetic of the run's matrix products and direct
	// convolutions: "float32" (or empty, the default) or "bfloat16" (a
	// CPU with AVX512_BF16; scnn.SetGemmPrecision, set process-wide for
	// the run and restored on return); "" on Resume: the checkpoint's.
	Precision string
	// Resume continues the run in Out from its checkpoint: another kind,
	// protocol, seed, workers or precision is refused, and so are other
	// training or validation molecules (their checksums; the same ones
	// under other file names go on with a note). Zero settings are not
	// given: the run takes the checkpoint's.
	Resume bool
	Force  bool
	// CheckpointEvery is the longest time between checkpoints (0: 10
	// minutes); a checkpoint is also written at every validation and
	// when ctx is cancelled.
	CheckpointEvery time.Duration
	// Budget limits the run's training time over all its sessions (0:
	// none): when it is spent the run validates, checkpoints and stops,
	// and Result.Stopped says so; Resume with a larger budget continues.
	// On Resume, 0 takes the checkpoint's budget and a negative one
	// lifts it (loop.Budget).
	Budget time.Duration
	// MFECache is the file of cached MFE structures for a protocol with
	// energy channels ("": fold every molecule at every start); the
	// structures folded are added to it.
	MFECache string
	// EnsembleCache is the file of cached ensemble channels
	// (EnsembleCache) for a protocol with the ensemble channel: read at
	// the start, the new entries appended as they are computed (so that
	// an interrupted preparation resumes); "": compute every molecule's at
	// every start.
	EnsembleCache string
	// Clusters names the cluster of each training molecule by name
	// (ReadClusters), for a protocol with ClusterWeights; ClustersName
	// is its file, for messages.
	Clusters     map[string]string
	ClustersName string
	// Progress, when not nil, shows the preparation before the first
	// step: the MFE structures and each rule's ensemble channels that
	// are not attached yet (cached or computed).
	Progress Progress

	OnStep func(step int, loss float64)
	OnEval func(EvalLog)
	// OnNote is told what a resumed run changes or could not check
	// against its checkpoint.
	OnNote func(string)
}

// EvalLog is one validation of a run.
type EvalLog struct {
	Step      int     `json:"step"`
	TrainLoss float64 `json:"train_loss"` // mean since the last validation
	ValAcc    float64 `json:"val_accuracy"`
	ValF1     float64 `json:"val_f1"`
	Seconds   float64 `json:"seconds"` // since the last validation
}

// taskState is the RNA part of a checkpoint (the loop's part is
// loop.State). A field once written is never removed nor renamed, its
// protocol's neither: the loop refuses a key it does not know
// (TestTaskStateKnownKeys).
type taskState struct {
	Record   Record   `json:"record"`
	Protocol Protocol `json:"protocol"` // as trained (a protocol's name can outlive its settings)
	Workers  int      `json:"workers"`
	// Precision is the run's TrainOptions.Precision, "" for float32.
	Precision string `json:"precision,omitempty"`
	// The checksums of the training and validation molecules
	// (moleculeSum), the validation files and the budget ("" and 0 in
	// checkpoints before they were recorded; the training files are
	// Record.Data).
	TrainSum string        `json:"train_sha256,omitempty"`
	ValidSum string        `json:"valid_sha256,omitempty"`
	Valid    string        `json:"valid,omitempty"`
	Budget   time.Duration `json:"budget_ns,omitempty"`
	// ClustersSum is the checksum of how a ClusterWeights or PoolFiles
	// protocol's run draws its training molecules (weighTraining).
	ClustersSum string `json:"clusters_sha256,omitempty"`
}

// legacyState is the record of a checkpoint written before the shared
// training loop (package scnn/loop).
type legacyState struct {
	taskState
	Step     int       `json:"step"`
	LossSum  float64   `json:"loss_sum"`
	LossN    int       `json:"loss_n"`
	Best     float64   `json:"best_val_accuracy"`
	BestStep int       `json:"best_step"`
	Log      []EvalLog `json:"log"`
	Seconds  float64   `json:"seconds"`
	Done     bool      `json:"done"`
}

// legacy converts a pre-loop checkpoint record: rounds are the
// protocol's EvalEvery steps (the last one shorter).
func legacy(raw json.RawMessage) (loop.State, json.RawMessage, error) {
	var old legacyState
	if err := json.Unmarshal(raw, &old); err != nil {
		return loop.State{}, nil, err
	}
	e := old.Protocol.EvalEvery
	if e <= 0 {
		return loop.State{}, nil, fmt.Errorf("validation every %d steps: %w", e, scnn.ErrCorrupt)
	}
	round := func(step int) int { return max(1, (step+e-1)/e) }
	st := loop.State{Round: old.Step/e + 1, Next: old.Step % e, Steps: old.Step, LossSum: old.LossSum, LossN: old.LossN,
		Best: old.Best, BestStep: old.BestStep, Seconds: old.Seconds, Done: old.Done, RoundBest: old.Best, RoundBestSet: len(old.Log) > 0}
	if old.Done && old.Step%e != 0 { // the short last round is done
		st.Round, st.Next = old.Step/e+2, 0
	}
	if len(old.Log) > 0 {
		st.BestRound = round(old.BestStep)
	}
	for _, l := range old.Log {
		st.Log = append(st.Log, loop.Entry{Round: round(l.Step), Step: l.Step, TrainLoss: l.TrainLoss,
			Values: []float64{l.ValAcc, l.ValF1}, LR: old.Protocol.LRAt(old.Record.Kind, max(l.Step-1, 0)), Seconds: l.Seconds})
	}
	task, err := json.Marshal(old.taskState)
	return st, task, err
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

// metrics are the validation values the loop logs; the first picks the
// model kept.
var metrics = []loop.Metric{{Name: "val_accuracy", Digits: 4}, {Name: "val_f1", Digits: 4}}

// Train trains (or resumes) a model: each step a batch of random crops of
// the training molecules; every EvalEvery steps the validation molecules
// are predicted whole, the model with the best mean accuracy (PPV+Sens)/2
// is kept in Out/model.scnn, and a checkpoint is written (package
// scnn/loop: also every CheckpointEvery and on cancel).
func Train(ctx context.Context, o TrainOptions) (*Model, *Result, error) {
	p := o.Protocol
	if len(o.Train) == 0 || len(o.Valid) == 0 {
		return nil, nil, fmt.Errorf("ssnet: no training or validation molecules")
	}
	if p.EvalEvery <= 0 || p.Steps < 0 || p.Steps == 0 && !o.Resume || p.Steps > maxSteps {
		return nil, nil, fmt.Errorf("ssnet: protocol %s: %d steps, validation every %d", p.Name, p.Steps, p.EvalEvery)
	}
	// The data's checksums, before templates and MFE structures are
	// attached.
	trainSum, validSum := moleculeSum(o.Train), moleculeSum(o.Valid)
	var clustersSum string
	if p.ClusterWeights || p.PoolFiles {
		var err error
		if o.Train, clustersSum, _, err = weighTraining(o.Train, p, o.Clusters, o.ClustersName); err != nil {
			return nil, nil, err
		}
	}
	run, err := loop.OpenKind(o.Out, o.Resume, o.Force, modelkind.RNA, legacy)
	if err != nil {
		return nil, nil, fmt.Errorf("ssnet: %w", err)
	}
	ckpt := filepath.Join(o.Out, CheckpointFile)
	var ts taskState
	if run.Resumed() {
		if err := run.TaskState(&ts); err != nil {
			return nil, nil, fmt.Errorf("ssnet: resume: %w", err)
		}
		var set loop.Settings
		p.Steps = loop.Change(&set, "--steps", p.Steps, ts.Protocol.Steps, ts.Protocol.Steps > 0)
		o.Budget = loop.Budget(&set, o.Budget, ts.Budget, ts.TrainSum != "")
		resumeData(&set, "--train", o.DataName, trainSum, ts.Record.Data, ts.TrainSum)
		resumeData(&set, "--valid", o.ValidName, validSum, ts.Valid, ts.ValidSum)
		if clustersSum != ts.ClustersSum {
			return nil, nil, fmt.Errorf("ssnet: resume: %s: the training molecules' clusters (%s) differ from the run's", ckpt, cmp.Or(o.ClustersName, "none"))
		}
		if err := set.Err(); err != nil {
			return nil, nil, fmt.Errorf("ssnet: resume: %s: %w", ckpt, err)
		}
		if o.OnNote != nil {
			for _, n := range set.Notes() {
				o.OnNote(n)
			}
		}
		if p.Steps <= 0 || p.Steps > maxSteps {
			return nil, nil, fmt.Errorf("ssnet: resume: %s: %d steps", ckpt, p.Steps)
		}
		o.Protocol = p
		r := ts.Record
		switch {
		case r.Kind != o.Kind || r.Protocol != p.Name:
			return nil, nil, fmt.Errorf("ssnet: resume: %s is a %s/%s run, asked for %s/%s", ckpt, r.Kind, r.Protocol, o.Kind, p.Name)
		case !sameSettings(ts.Protocol, p):
			return nil, nil, fmt.Errorf("ssnet: resume: %s was trained under other %q settings than this build's (crop %d, halving every %d, validation every %d; this build %d, %d, %d)",
				ckpt, p.Name, ts.Protocol.Crop, ts.Protocol.HalveEvery, ts.Protocol.EvalEvery, p.Crop, p.HalveEvery, p.EvalEvery)
		case o.Seed != 0 && o.Seed != r.Seed:
			return nil, nil, fmt.Errorf("ssnet: resume: the run has seed %d, asked for %d", r.Seed, o.Seed)
		case o.Workers != 0 && o.Workers != ts.Workers:
			return nil, nil, fmt.Errorf("ssnet: resume: the run uses %d workers, asked for %d; results depend on it", ts.Workers, o.Workers)
		case o.Precision != "" && scnn.RecordedPrecision(o.Precision) != ts.Precision:
			return nil, nil, fmt.Errorf("ssnet: resume: the run is in %s, asked for %s; results depend on it", cmp.Or(ts.Precision, "float32"), o.Precision)
		}
		o.Seed, o.Workers, o.Precision = r.Seed, ts.Workers, ts.Precision
	}
	o.Precision = scnn.RecordedPrecision(o.Precision)
	prevPrecision := scnn.GemmPrecision()
	if err := scnn.SetGemmPrecision(o.Precision); err != nil {
		return nil, nil, fmt.Errorf("ssnet: %w", err)
	}
	defer scnn.SetGemmPrecision(prevPrecision)
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
	if run.Resumed() {
		m.Record = ts.Record
	} else {
		m.Record.Data, m.Record.Version, m.Record.Precision = o.DataName, buildinfo.Revision(), o.Precision
		ts.Record, ts.Protocol = m.Record, p
	}
	ts.Workers, ts.Precision = o.Workers, o.Precision
	ts.Protocol.Steps = p.Steps
	ts.TrainSum, ts.ValidSum, ts.Valid, ts.Budget = trainSum, validSum, o.ValidName, max(o.Budget, 0)
	ts.ClustersSum = clustersSum
	rounds := p.Steps/p.EvalEvery + min(p.Steps%p.EvalEvery, 1)
	// A finished run resumed with no more steps has nothing to train:
	// no templates or MFE structures to prepare (minutes on large sets).
	finished := run.Resumed() && run.State().Done && run.State().Round > rounds
	if p.Template && !finished {
		ix := TemplateRefs(o.Train)
		if err := AttachTemplates(ctx, o.Train, ix, true, p.MinIdentity); err != nil {
			return nil, nil, setupErr(ctx, err)
		}
		if err := AttachTemplates(ctx, o.Valid, ix, false, p.MinIdentity); err != nil {
			return nil, nil, setupErr(ctx, err)
		}
	}
	if p.Energy && !finished {
		if err := attachMFE(ctx, o); err != nil {
			return nil, nil, setupErr(ctx, err)
		}
	}
	if p.Ensemble && !finished {
		if err := attachEnsemble(ctx, o, m.Record.EnsembleFolds()); err != nil {
			return nil, nil, setupErr(ctx, err)
		}
	}
	if p.MaxLen > 0 {
		if o.Train = p.drawn(o.Train); len(o.Train) == 0 {
			return nil, nil, fmt.Errorf("ssnet: protocol %s: no training molecule of at most %d nt", p.Name, p.MaxLen)
		}
	}
	t := &rnaTask{m: m, o: o, st: &ts, loss: scnn.WeightedBCE{PosWeight: p.PosWeight, Workers: o.Workers}}
	cfg := loop.Config{Task: t, Params: m.Net.Params(), Optimizer: scnn.NewAdam(m.Net.Params(), p.LR(o.Kind), p.L2),
		Schedule: &loop.StepHalving{LR: p.LR(o.Kind), Every: p.HalveEvery},
		Rounds:   rounds, Unit: "round", LogSteps: true, Metrics: metrics,
		Budget: o.Budget, CheckpointEvery: o.CheckpointEvery, Workers: o.Workers}
	if o.OnStep != nil {
		cfg.Hooks.Step = o.OnStep
	}
	if o.OnEval != nil {
		cfg.Hooks.Validated = func(e loop.Entry) { o.OnEval(evalLog(e)) }
	}
	res, err := run.Train(ctx, cfg)
	if err != nil {
		if errors.Is(err, loop.ErrInterrupted) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("ssnet: %w", err)
	}
	out := &Result{Steps: res.Steps, BestStep: res.BestStep, BestAcc: res.Best, Seconds: res.Seconds, Stopped: res.Budget}
	for _, e := range res.Log {
		out.Log = append(out.Log, evalLog(e))
	}
	return m, out, nil
}

// maxSteps bounds a protocol's steps (and the step counts derived from
// them, which must not overflow).
const maxSteps = 1 << 40

// moleculeSum is the SHA-256 of a set of molecules as read: each one's
// group, name, sequence and pairs, in order.
func moleculeSum(set []Molecule) string {
	h := sha256.New()
	var b [8]byte
	for _, m := range set {
		fmt.Fprintf(h, "%d\t%s\t%s\t", m.Group, m.Name, m.Seq)
		for _, q := range m.Partner {
			binary.LittleEndian.PutUint64(b[:], uint64(int64(q)))
			h.Write(b[:])
		}
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// resumeData checks a resumed run's molecules of flag (files name,
// checksum sum) against the checkpoint's (files old, checksum oldSum,
// "" where not recorded): other molecules are refused, the same ones
// from other files are noted.
func resumeData(set *loop.Settings, flag, name, sum, old, oldSum string) {
	if name == "" {
		name = old // not given: the checkpoint's files
	}
	switch {
	case oldSum == "" && old != "" && name != old:
		set.Refuse("%s %s differs from the checkpoint's %s", flag, name, old)
	case oldSum == "":
		set.Note("%s %s: the checkpoint (an older one) does not record the molecules' checksum; not checked", flag, name)
	case sum != oldSum:
		set.Refuse("the molecules of %s %s (checksum %.12s) differ from the checkpoint's (%s, checksum %.12s)", flag, name, sum, old, oldSum)
	case name != old:
		set.Note("%s %s: the checkpoint's run read %s; the same molecules, so the run goes on", flag, name, old)
	}
}

// RunData is what a run's checkpoint in dir says of its data and steps,
// for a command that resumes it: the training and validation files
// ("" where the checkpoint does not record them) and the protocol's
// steps.
func RunData(dir string) (train, valid string, steps int, err error) {
	var ts taskState
	if err := loop.ReadTask(dir, modelkind.RNA, legacy, &ts); err != nil {
		return "", "", 0, err
	}
	return ts.Record.Data, ts.Valid, ts.Protocol.Steps, nil
}

func evalLog(e loop.Entry) EvalLog {
	return EvalLog{Step: e.Step, TrainLoss: e.TrainLoss, ValAcc: e.Values[0], ValF1: e.Values[1], Seconds: e.Seconds}
}

// rnaTask is an RNA run for the loop: rounds of EvalEvery steps (the
// last one up to the protocol's Steps), each step a batch drawn from its
// own stream (seed, global step), so that a resumed run draws what the
// uninterrupted one would have.
type rnaTask struct {
	m    *Model
	o    TrainOptions
	st   *taskState
	loss scnn.WeightedBCE
}

func (t *rnaTask) StartRound(_, from, global int) (int, error) {
	p := t.o.Protocol
	g0 := global - from
	return min((g0/p.EvalEvery+1)*p.EvalEvery, p.Steps) - g0, nil
}

func (t *rnaTask) Step(pass *scnn.Pass, _, global int) (float64, error) {
	rng := rand.New(rand.NewPCG(t.o.Seed, uint64(global)))
	return trainStep(pass, t.m, t.loss, t.o, rng, global)
}

func (t *rnaTask) Validate() ([]float64, error) {
	scores, err := Evaluate(t.o.Valid, ModelPredictor(t.m, t.o.Workers), nil)
	if err != nil {
		return nil, err
	}
	acc, f1 := groupMeans(t.o.Valid, scores)
	return []float64{acc, f1}, nil
}

func (t *rnaTask) SaveBest(e loop.Entry) error {
	t.m.Record.Step = e.Step
	t.st.Record.Step = e.Step
	return t.m.Save(filepath.Join(t.o.Out, ModelFile))
}

func (t *rnaTask) State() any { return t.st }

// attachMFE attaches the MFE structures of the training and validation
// molecules, from and to the options' cache file.
func attachMFE(ctx context.Context, o TrainOptions) error {
	missing := 0 // AttachMFE ticks for these only
	for _, set := range [][]Molecule{o.Train, o.Valid} {
		for k := range set {
			if set[k].MFE == nil {
				missing++
			}
		}
	}
	if missing == 0 {
		return nil
	}
	tick, end := o.Progress.Start(missing, "MFE structures")
	defer end()
	return AttachMFECached(ctx, o.MFECache, max(o.Workers, 1), tick, o.Train, o.Valid)
}

// attachEnsemble attaches the ensemble channels of the training and
// validation molecules under each rule of folds (the network's,
// Record.EnsembleFolds) through o's cache file.
func attachEnsemble(ctx context.Context, o TrainOptions, folds []EnsembleFold) error {
	cache, err := ReadEnsembleCache(o.EnsembleCache)
	if o.EnsembleCache == "" {
		cache, err = NewEnsembleCache(), nil
	}
	if err != nil {
		return err
	}
	for _, f := range folds {
		missing := 0 // AttachEnsembleFold ticks for these, cached or computed
		for _, set := range [][]Molecule{o.Train, o.Valid} {
			for k := range set {
				if !set[k].HasEnsemble(f) {
					missing++
				}
			}
		}
		if missing == 0 {
			continue
		}
		tick, end := o.Progress.Start(missing, f.Stage())
		for _, set := range [][]Molecule{o.Train, o.Valid} {
			if err := AttachEnsembleFold(ctx, f, set, cache, o.EnsembleCache, max(o.Workers, 1), tick); err != nil {
				end()
				return err
			}
		}
		end()
	}
	return nil
}

// setupErr is the error of a run's preparation (templates, MFE
// structures): ErrInterrupted where ctx was cancelled, since nothing of
// the run has changed and it can be started or resumed again.
func setupErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errSetupInterrupted{}
	}
	return err
}

// errSetupInterrupted is ErrInterrupted (errors.Is) before the first
// step of a session, when no checkpoint was written.
type errSetupInterrupted struct{}

func (errSetupInterrupted) Error() string {
	return "training interrupted while preparing the molecules, before the first step of this session"
}

func (errSetupInterrupted) Is(target error) bool { return target == ErrInterrupted }

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
func trainStep(pass *scnn.Pass, m *Model, loss scnn.WeightedBCE, o TrainOptions, rng *rand.Rand, step int) (float64, error) {
	p := o.Protocol
	var ws []Window
	switch {
	case p.Buckets:
		ws = BucketWindows(o.Train, p.Batch, p.Crop, rng)
	case p.PairCrops:
		ws = RandomPairWindows(o.Train, p.Batch, p.Crop, rng)
	default:
		ws = RandomWindows(o.Train, p.Batch, p.Crop, rng)
	}
	if p.TemplateDrop > 0 {
		for k := range ws {
			ws[k].NoTemplate = rng.Float64() < p.TemplateDrop
		}
	}
	if p.Mutate > 0 {
		for k := range ws {
			if len(ws[k].Mol.Seq) > p.MutateMaxLen || rng.Float64() >= p.Mutate {
				continue
			}
			mut := Mutant(ws[k].Mol, p.MutateRate, rng)
			if err := MutantChannels(context.Background(), mut, p.Energy, m.Record.EnsembleFolds()); err != nil {
				return 0, fmt.Errorf("ssnet: step %d: %w", step+1, err)
			}
			ws[k].Mol = mut
		}
	}
	b, err := NewBatch(ws, m.Record)
	if err != nil {
		return 0, fmt.Errorf("ssnet: step %d: %w", step+1, err)
	}
	logits, err := m.Net.Forward(pass, b.In)
	if err != nil {
		return 0, err
	}
	out, err := m.withPrior(logits, b.In.X2)
	if err != nil {
		return 0, fmt.Errorf("ssnet: step %d: %w", step+1, err)
	}
	var v float64
	var g *scnn.Tensor
	if p.Hybrid {
		v, g, err = hybridLoss(context.Background(), out, ws)
	} else {
		v, g, err = loss.Forward(out, b.Labels, b.Mask)
	}
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("loss is %v", v)
	}
	if err != nil {
		return 0, fmt.Errorf("ssnet: step %d: %w", step+1, err)
	}
	if err := pass.Backward(logits, g); err != nil {
		return 0, err
	}
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
	st, err := loop.Info(dir, legacy)
	if err != nil {
		return 0, 0, false, err
	}
	return st.Seconds, st.Steps, st.Done, nil
}
