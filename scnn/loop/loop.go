// Package loop is the training loop of every network of the project:
// protein contact maps (pipeline/train), RNA secondary structure
// (rna/ssnet) and sequential recommendation (rec). It is modelled on
// gomlx's train.Loop and on PyTorch's split of optimisers
// (scnn.Optimizer), learning-rate schedules (Schedule) and the loop:
// the system supplies a Task (what one step and one validation are), the
// loop owns the rest:
//
//   - the run directory: a new run refuses a directory that holds one
//     unless forced; a resumed run needs its checkpoint (Open);
//   - rounds of steps (an epoch, or a fixed number of steps), each
//     ended by a validation that logs the Task's metrics, keeps the best
//     model (Config.Monitor), feeds the schedule and early stopping;
//   - checkpoints at least every Config.CheckpointEvery (10 minutes by
//     default), at every validation, and when the context is cancelled
//     (SIGINT, SIGTERM), at any step, before the first validation too;
//   - the time budget over all the sessions of a run (Config.Budget);
//   - the log file (LogFile) and hooks for progress bars.
//
// A resumed run continues bit-identically when the Task draws each
// step's randomness from the step's position (or checkpoints its
// generators in its State): the loop restores parameters, optimiser,
// schedule and position exactly.
package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/strictjson"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// Files of a run directory.
const (
	ModelFile      = "model.scnn"
	CheckpointFile = "checkpoint.scnn"
	LogFile        = "train_log.tsv"
)

// DefaultCheckpointEvery is the longest time between checkpoints when
// Config.CheckpointEvery is 0.
const DefaultCheckpointEvery = 10 * time.Minute

var (
	// ErrInterrupted: the context was cancelled; a checkpoint of the step
	// reached is written and a resumed run continues from it.
	ErrInterrupted = errors.New("training interrupted; a checkpoint of the step reached is written")
	// ErrRunExists: the directory holds a run and neither resume nor
	// force was asked.
	ErrRunExists = errors.New("the run directory holds a run")
	// ErrNoCheckpoint: resume was asked and the directory has no
	// checkpoint.
	ErrNoCheckpoint = errors.New("no checkpoint to resume")
)

// Task is what a system trains: the loop calls StartRound at the start
// of each round (and of a resumed one), then Step for each of its steps
// between the optimiser's ZeroGrad and Step, then Validate at its end.
type Task interface {
	// StartRound prepares round (1-based), of which the steps before
	// from are done (a resumed run), and returns its number of steps;
	// global is the number of optimiser steps taken before step from.
	StartRound(round, from, global int) (steps int, err error)
	// Step computes the loss of step i of the round in the training
	// pass p, and its gradients (p.Backward); global is the number of
	// optimiser steps taken before it. The loop owns p: it checks the
	// parameters p used against Config.Params, steps the optimiser and
	// frees p.
	Step(p *scnn.Pass, i, global int) (loss float64, err error)
	// Validate returns the validation metrics (Config.Metrics' order).
	Validate() ([]float64, error)
	// SaveBest writes the model: e is the validation that improved on
	// every earlier one.
	SaveBest(e Entry) error
	// State is the task's part of a checkpoint (JSON), read back by
	// Run.TaskState on resume, which refuses a field the reading type
	// does not know: a field once written is never removed nor renamed.
	State() any
}

// Metric names a validation value: its log column, its digits there,
// and whether lower is better (for Config.Monitor).
type Metric struct {
	Name   string
	Digits int
	Lower  bool
}

// Hooks are called as the run goes: progress bars and printed logs.
type Hooks struct {
	RoundStart func(round, steps, from int)
	Step       func(global int, loss float64)
	Validated  func(Entry)
}

// Config configures Run.Train.
type Config struct {
	Task Task
	// Params are the model's parameters, those the optimiser updates
	// and the checkpoint holds: a training pass that uses a parameter
	// not among them (a layer left out of the model's list, never to be
	// trained or saved) is an error at its first step.
	Params    []*scnn.Param
	Workers   int // goroutines of the training passes (scnn.Pass.Workers)
	Optimizer scnn.Optimizer
	Schedule  Schedule
	// Rounds is the number of rounds to train; a finished run resumed
	// with more rounds goes on as an uninterrupted longer run would.
	Rounds int
	// Unit names a round in messages ("epoch"); LogSteps logs the step
	// count instead of the round in the log's first column ("step").
	Unit     string
	LogSteps bool
	Metrics  []Metric
	Monitor  int // index into Metrics of the value that picks the best model
	// Patience stops the run after this many validations at round ends
	// without a better monitored value (0: never); such a run is over
	// for good.
	Patience int
	// Budget bounds the run's time over all its sessions (0: none): when
	// it is spent inside a round, the steps since the last validation are
	// validated, the model kept if better, and the run stops at that
	// position; a resumed run with a larger budget continues it.
	Budget time.Duration
	// CheckpointEvery is the longest time between checkpoints (0:
	// DefaultCheckpointEvery).
	CheckpointEvery time.Duration
	Hooks           Hooks
	// Clock replaces time.Now (tests).
	Clock func() time.Time
}

// State is the loop's part of a checkpoint.
type State struct {
	Round     int     `json:"round"`     // the round in progress or next, 1-based
	Next      int     `json:"next_step"` // steps of Round done
	Steps     int     `json:"steps"`     // optimiser steps in all
	LossSum   float64 `json:"loss_sum"`  // training loss since the last validation
	LossN     int     `json:"loss_n"`
	Best      float64 `json:"best"`       // the best monitored value
	BestRound int     `json:"best_round"` // 0 before the first validation
	BestStep  int     `json:"best_step"`
	Bad       int     `json:"rounds_since_best"` // validations at round ends since the best of them (Patience)
	// RoundBest is the best monitored value of the validations at round
	// ends (valid when BestRound > 0): the reference of Bad, which a
	// validation inside a round (a budget stop) leaves as an
	// uninterrupted run would have it.
	RoundBest    float64         `json:"round_best"`
	RoundBestSet bool            `json:"round_best_set,omitempty"`
	Log          []Entry         `json:"log"`
	Seconds      float64         `json:"seconds"` // time of every session
	Done         bool            `json:"done"`    // reached its rounds, or stopped early
	Stop         string          `json:"stop,omitempty"`
	Early        bool            `json:"early_stop,omitempty"` // stopped by Patience: over for good
	Schedule     json.RawMessage `json:"schedule,omitempty"`
}

// Entry is one validation.
type Entry struct {
	Round     int       `json:"round"`
	Step      int       `json:"step"`              // optimiser steps taken
	Partial   bool      `json:"partial,omitempty"` // inside the round (the budget was spent)
	TrainLoss float64   `json:"train_loss"`        // mean since the last validation
	Values    []float64 `json:"values"`            // Config.Metrics' order
	LR        float64   `json:"lr"`                // of the last step
	Seconds   float64   `json:"seconds"`           // since the last validation or the session's start
}

// Result is how a session of a run ended.
type Result struct {
	State
	// Budget: the session stopped because the budget was spent.
	Budget bool
}

// Run is a run directory opened for training.
type Run struct {
	Dir  string
	ckpt *checkpoint.Checkpoint
	st   State
}

// Legacy converts the record of a checkpoint written before this package
// (checkpoint.Checkpoint.Format 0) into the loop's state and the task's,
// for the system that wrote it.
type Legacy func(record json.RawMessage) (State, json.RawMessage, error)

// Open prepares dir for a run: it creates it, refuses a directory that
// holds a run (a model, a checkpoint or a training log) unless resume or
// force, reads
// the checkpoint when resume, removes the temporary files a killed run
// left and checks that dir is writable. legacy reads checkpoints of
// format 0 (nil: refused). extra are the other files the system writes
// there.
func Open(dir string, resume, force bool, legacy Legacy, extra ...string) (*Run, error) {
	return OpenKind(dir, resume, force, modelkind.Unknown, legacy, extra...)
}

// OpenKind is Open for a system whose models are of kind: a checkpoint
// of another system's run (its task state holds a model record of
// another kind, checkpoint.RunKind) is refused on resume with a
// *modelkind.WrongKindError naming the kind found and the kind wanted.
// modelkind.Unknown checks nothing.
func OpenKind(dir string, resume, force bool, kind modelkind.Kind, legacy Legacy, extra ...string) (*Run, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ckpt := filepath.Join(dir, CheckpointFile)
	if !resume && !force {
		// The log too: a directory whose model and checkpoint are gone
		// still holds a run's record, which a new run would overwrite.
		for _, f := range []string{CheckpointFile, ModelFile, LogFile} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				return nil, fmt.Errorf("%w: %s has %s", ErrRunExists, dir, f)
			}
		}
	}
	if err := fileio.RemoveStaleTemps(dir, append([]string{ModelFile, CheckpointFile, LogFile}, extra...)...); err != nil {
		return nil, err
	}
	if err := fileio.CheckWritable(dir); err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, st: State{Round: 1}}
	if !resume {
		return r, nil
	}
	if _, err := os.Stat(ckpt); err != nil {
		return nil, fmt.Errorf("%w: no %s in %s", ErrNoCheckpoint, CheckpointFile, dir)
	}
	c, err := checkpoint.Load(ckpt)
	if err != nil {
		return nil, err
	}
	if err := checkKind(ckpt, c.Task, kind); err != nil {
		return nil, err
	}
	if c.Format == 0 {
		if legacy == nil {
			return nil, fmt.Errorf("%s: a checkpoint of an older format that this system cannot read: %w", ckpt, scnn.ErrVersion)
		}
		st, task, err := legacy(c.Task)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ckpt, err)
		}
		c.Loop, c.Task = nil, task
		r.st = st
	} else if err := decodeState(c.Loop, &r.st); err != nil {
		return nil, fmt.Errorf("%s: loop state: %w", ckpt, err)
	}
	if err := r.st.check(); err != nil {
		return nil, fmt.Errorf("%s: loop state: %w", ckpt, err)
	}
	r.ckpt = c
	return r, nil
}

// checkKind refuses the task state of a run of another kind than want
// (none: Unknown).
func checkKind(path string, task json.RawMessage, want modelkind.Kind) error {
	if want == modelkind.Unknown {
		return nil
	}
	if k, ok := checkpoint.RunKind(task); ok && k != want {
		return &modelkind.WrongKindError{Name: "the checkpoint " + path, Holds: k, Want: want}
	}
	return nil
}

// decodeState reads a checkpoint's loop state into st. A field this
// build does not know, in the state or in a log entry, is refused, not
// dropped: a newer build's field may say how the run goes on (as
// early_stop, once added, says a run is over for good). The state is
// decoded as before, then again by a decoder that refuses unknown
// fields (json.Decoder.DisallowUnknownFields), whose one possible error
// is then such a field. Every key a loop state has carried is one of
// State's and Entry's (TestStateKnownKeys). The schedule's state and
// the task's are read the same way (decodeStrict).
func decodeState(raw json.RawMessage, st *State) error {
	return decodeStrict(raw, st)
}

// KeyChecked is implemented by a task state or a schedule some of whose
// values read through their own UnmarshalJSON, which a decoder that
// refuses unknown fields does not look into: KeyCheck returns a new
// value (a pointer) of a type with the same keys at every depth and no
// such method, into which the state is decoded a second time for its
// keys to be checked.
type KeyChecked interface {
	KeyCheck() any
}

// decodeStrict reads raw into v (a pointer) as json.Unmarshal does, then
// refuses a field v's type does not know, at any depth, rather than
// drop it: a newer build's field may say how the run goes on. raw is
// decoded again, into a new value of v's type (or v's KeyCheck value),
// by a decoder that refuses unknown fields (strictjson), whose one
// possible error is then such a field. Every key a committed checkpoint
// carries is known (TestCommittedCheckpointsRead and the systems'
// tests of their task states).
func decodeStrict(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return err
	}
	var keys any
	if k, ok := v.(KeyChecked); ok {
		keys = k.KeyCheck()
	} else {
		keys = reflect.New(reflect.TypeOf(v).Elem()).Interface() // v is a non-nil pointer: json.Unmarshal took it
	}
	if err := strictjson.Decode(raw, keys); err != nil {
		return fmt.Errorf("%w: a field this build does not know: the checkpoint may come from a newer contactmap", err)
	}
	return nil
}

func (s *State) check() error {
	switch {
	case s.Round < 1 || s.Next < 0 || s.Steps < 0 || s.LossN < 0 || s.BestRound < 0 || s.Bad < 0:
		return fmt.Errorf("round %d, step %d of it, %d steps, %d losses, best round %d, %d rounds since: %w",
			s.Round, s.Next, s.Steps, s.LossN, s.BestRound, s.Bad, scnn.ErrCorrupt)
	case math.IsNaN(s.Seconds) || s.Seconds < 0:
		return fmt.Errorf("seconds %v: %w", s.Seconds, scnn.ErrCorrupt)
	}
	return nil
}

// Resumed reports whether the run continues from a checkpoint.
func (r *Run) Resumed() bool { return r.ckpt != nil }

// State is the loop's state: a new run's, or the checkpoint's.
func (r *Run) State() State { return r.st }

// TaskState reads the task's part of the checkpoint into v (a resumed
// run), refusing a field v's type does not know (decodeStrict).
func (r *Run) TaskState(v any) error {
	if r.ckpt == nil {
		return fmt.Errorf("loop: %s: a new run has no task state", r.Dir)
	}
	if err := decodeStrict(r.ckpt.Task, v); err != nil {
		return fmt.Errorf("%s: task state: %w", filepath.Join(r.Dir, CheckpointFile), err)
	}
	return nil
}

// Train trains from the run's position: a new run from the start, a
// resumed one from its checkpoint, whose parameters, optimiser and
// schedule it restores first. It returns when the rounds are done, the
// run stops early or spends its budget (Result), or ctx is cancelled
// (ErrInterrupted, after a checkpoint).
func (r *Run) Train(ctx context.Context, c Config) (*Result, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	ckptPath := filepath.Join(r.Dir, CheckpointFile)
	st := r.st
	for k, e := range st.Log {
		if len(e.Values) != len(c.Metrics) {
			return nil, fmt.Errorf("%s: log entry %d has %d values for %d metrics: %w", ckptPath, k+1, len(e.Values), len(c.Metrics), scnn.ErrCorrupt)
		}
	}
	resumed := r.ckpt != nil
	if r.ckpt != nil {
		if err := r.ckpt.Restore(c.Params, c.Optimizer); err != nil {
			return nil, fmt.Errorf("%s: %w", ckptPath, err)
		}
		if len(st.Schedule) > 0 {
			if err := decodeStrict(st.Schedule, c.Schedule); err != nil {
				return nil, fmt.Errorf("%s: schedule state: %w", ckptPath, err)
			}
		}
		r.ckpt = nil // restored once
	}
	now := c.Clock
	if now == nil {
		now = time.Now
	}
	every := c.CheckpointEvery
	if every <= 0 {
		every = DefaultCheckpointEvery
	}
	start, before := now(), st.Seconds
	elapsed := func() float64 { return before + now().Sub(start).Seconds() }
	lastSave, lastEval := now(), now()
	// saved: the checkpoint on disk is this run's (a resumed run's, or
	// one this session wrote). A new run writes one before its first
	// model, so that a model never lies in the directory without the
	// checkpoint of its run, whatever stops the session after it.
	saved := resumed
	save := func() error {
		st.Seconds = elapsed()
		sch, err := json.Marshal(c.Schedule)
		if err != nil {
			return err
		}
		st.Schedule = sch
		lastSave = now()
		if err := checkpoint.Save(ckptPath, &st, c.Task.State(), c.Params, c.Optimizer); err != nil {
			return fmt.Errorf("checkpoint at step %d: %w", st.Steps, err)
		}
		saved = true
		return nil
	}
	known := make(map[*scnn.Param]bool, len(c.Params))
	for _, q := range c.Params {
		known[q] = true
	}
	var recycler scnn.Recycler // the training passes' buffers, reused step to step
	spent := func() bool { return c.Budget > 0 && elapsed() >= c.Budget.Seconds() }
	validate := func(partial bool) (Entry, error) {
		if !saved {
			// A new run's first validation writes its first model: the
			// checkpoint of the position before it comes first (resumed,
			// the run validates again at a round's end, or goes on).
			if err := save(); err != nil {
				return Entry{}, err
			}
		}
		vals, err := c.Task.Validate()
		if err != nil {
			return Entry{}, err
		}
		if len(vals) != len(c.Metrics) {
			return Entry{}, fmt.Errorf("loop: validation gave %d values for %d metrics", len(vals), len(c.Metrics))
		}
		e := Entry{Round: st.Round, Step: st.Steps, Partial: partial, TrainLoss: st.LossSum / float64(max(st.LossN, 1)),
			Values: vals, LR: c.Schedule.Rate(max(st.Steps-1, 0)), Seconds: now().Sub(lastEval).Seconds()}
		lastEval = now()
		st.Log = append(st.Log, e)
		st.LossSum, st.LossN = 0, 0
		v := vals[c.Monitor]
		lower := c.Metrics[c.Monitor].Lower
		better := func(ref float64) bool { return lower && v < ref || !lower && v > ref }
		if st.BestRound == 0 || better(st.Best) {
			st.Best, st.BestRound, st.BestStep = v, st.Round, st.Steps
			if err := c.Task.SaveBest(e); err != nil {
				return Entry{}, err
			}
		}
		if !partial {
			if !st.RoundBestSet || better(st.RoundBest) {
				st.RoundBest, st.RoundBestSet, st.Bad = v, true, 0
			} else {
				st.Bad++
			}
		}
		if c.Hooks.Validated != nil {
			c.Hooks.Validated(e)
		}
		return e, writeLog(filepath.Join(r.Dir, LogFile), c, st.Log)
	}
	if st.Done && !st.Early && st.Round <= c.Rounds {
		st.Done = false // more rounds than the run had
	}
	if !st.Done {
		st.Stop = "" // a budget's stop, resumed
	}
	// stopForBudget validates the steps since the last validation (or a
	// run with none yet) and stops the session where it is.
	stopForBudget := func(steps int) (*Result, error) {
		if st.LossN > 0 || len(st.Log) == 0 {
			if _, err := validate(true); err != nil {
				return nil, err
			}
		}
		st.Stop = fmt.Sprintf("time budget of %v spent at step %d of %d in %s %d", c.Budget, st.Next, steps, c.Unit, st.Round)
		if err := save(); err != nil {
			return nil, err
		}
		return &Result{State: st, Budget: true}, nil
	}
	for !st.Done && st.Round <= c.Rounds {
		steps, err := c.Task.StartRound(st.Round, st.Next, st.Steps)
		if err != nil {
			return nil, err
		}
		// The budget is read once before the round's hooks, so that a
		// round that will not run is not announced, and that reading
		// serves its first step.
		checked := false
		if st.Next < steps && ctx.Err() == nil {
			if spent() {
				return stopForBudget(steps)
			}
			checked = true
		}
		if c.Hooks.RoundStart != nil {
			c.Hooks.RoundStart(st.Round, steps, st.Next)
		}
		for st.Next < steps {
			if ctx.Err() != nil {
				if err := save(); err != nil {
					return nil, fmt.Errorf("interrupted, and %w", err)
				}
				return nil, ErrInterrupted
			}
			if !checked && spent() {
				return stopForBudget(steps)
			}
			checked = false
			if now().Sub(lastSave) >= every {
				if err := save(); err != nil {
					return nil, err
				}
			}
			c.Optimizer.ZeroGrad()
			pass := scnn.TrainingWith(c.Workers, &recycler)
			v, err := c.Task.Step(pass, st.Next, st.Steps)
			if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				err = fmt.Errorf("loss is %v", v)
			}
			if err == nil {
				for _, q := range pass.Used() {
					if !known[q] {
						err = fmt.Errorf("the network used parameter %s, which is not among the model's %d parameters: it would never be trained or saved", q.Name, len(c.Params))
						break
					}
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%s %d, step %d: %w", c.Unit, st.Round, st.Next+1, err)
			}
			c.Optimizer.SetLR(c.Schedule.Rate(st.Steps))
			c.Optimizer.Step()
			pass.Free() // its buffers go to the next step
			st.Next++
			st.Steps++
			st.LossSum += v
			st.LossN++
			if c.Hooks.Step != nil {
				c.Hooks.Step(st.Steps, v)
			}
		}
		e, err := validate(false)
		if err != nil {
			return nil, err
		}
		c.Schedule.Observe(e.Values[c.Monitor])
		switch {
		case c.Patience > 0 && st.Bad >= c.Patience:
			st.Done, st.Early = true, true
			st.Stop = fmt.Sprintf("early stop: no better %s for %d %ss", c.Metrics[c.Monitor].Name, c.Patience, c.Unit)
		case st.Round >= c.Rounds:
			st.Done, st.Stop = true, fmt.Sprintf("reached %d %ss", c.Rounds, c.Unit)
		}
		st.Round++
		st.Next = 0
		if err := save(); err != nil {
			return nil, err
		}
	}
	st.Seconds = elapsed()
	return &Result{State: st}, nil
}

func (c *Config) check() error {
	switch {
	case c.Task == nil || c.Optimizer == nil || c.Schedule == nil:
		return errors.New("loop: a Config needs a Task, an Optimizer and a Schedule")
	case c.Rounds < 1:
		return fmt.Errorf("loop: %d rounds", c.Rounds)
	case c.Monitor < 0 || c.Monitor >= len(c.Metrics):
		return fmt.Errorf("loop: monitor %d of %d metrics", c.Monitor, len(c.Metrics))
	}
	if c.Unit == "" {
		c.Unit = "round"
	}
	return nil
}

// writeLog writes the log file: the round (or the step count), the
// training loss, the metrics, the learning rate and the seconds.
func writeLog(path string, c Config, log []Entry) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		first := c.Unit
		if c.LogSteps {
			first = "step"
		}
		fmt.Fprintf(w, "%s\ttrain_loss", first)
		for _, m := range c.Metrics {
			fmt.Fprintf(w, "\t%s", m.Name)
		}
		fmt.Fprintln(w, "\tlr\tseconds")
		for _, e := range log {
			n := e.Round
			if c.LogSteps {
				n = e.Step
			}
			fmt.Fprintf(w, "%d\t%.6f", n, e.TrainLoss)
			for k, m := range c.Metrics {
				fmt.Fprintf(w, "\t%.*f", m.Digits, e.Values[k])
			}
			fmt.Fprintf(w, "\t%g\t%.1f\n", e.LR, e.Seconds)
		}
		return nil
	})
}

// Info reads a run directory's checkpoint without opening the run:
// the loop's state of a checkpoint of this package's format. legacy
// reads older ones (nil: refused).
func Info(dir string, legacy Legacy) (State, error) {
	path := filepath.Join(dir, CheckpointFile)
	c, err := checkpoint.Load(path)
	if err != nil {
		return State{}, err
	}
	var st State
	if c.Format == 0 {
		if legacy == nil {
			return State{}, fmt.Errorf("%s: a checkpoint of an older format: %w", path, scnn.ErrVersion)
		}
		if st, _, err = legacy(c.Task); err != nil {
			return State{}, fmt.Errorf("%s: %w", path, err)
		}
		return st, nil
	}
	if err := decodeState(c.Loop, &st); err != nil {
		return State{}, fmt.Errorf("%s: loop state: %w", path, err)
	}
	return st, nil
}

// ReadTask reads the task's part of the checkpoint in dir into v without
// opening the run (a format-0 checkpoint converted by legacy; nil:
// refused), refusing a run of another kind than kind as OpenKind does:
// what a system needs of a run before it resumes it (the data it was
// trained on, its settings). A field v's type does not know is refused
// (decodeStrict).
func ReadTask(dir string, kind modelkind.Kind, legacy Legacy, v any) error {
	path := filepath.Join(dir, CheckpointFile)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%w: no %s in %s", ErrNoCheckpoint, CheckpointFile, dir)
	}
	c, err := checkpoint.Load(path)
	if err != nil {
		return err
	}
	if err := checkKind(path, c.Task, kind); err != nil {
		return err
	}
	task := c.Task
	if c.Format == 0 {
		if legacy == nil {
			return fmt.Errorf("%s: a checkpoint of an older format: %w", path, scnn.ErrVersion)
		}
		if _, task, err = legacy(c.Task); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := decodeStrict(task, v); err != nil {
		return fmt.Errorf("%s: task state: %w", path, err)
	}
	return nil
}
