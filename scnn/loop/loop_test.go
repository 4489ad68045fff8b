package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// toyTask fits w to a noisy target: each step's noise is drawn from the
// stream (seed, global step), so a resumed run draws what the
// uninterrupted one would have. Validation is the squared distance to
// the target; SaveBest copies w.
type toyTask struct {
	w      *scnn.Param
	target []float32
	seed   uint64
	steps  int // per round
	best   []float32
	saved  []Entry
	delay  time.Duration
	failAt int // a step whose loss is NaN (0: none)
}

func newToy(seed uint64) *toyTask {
	w := &scnn.Param{Name: "w", Shape: []int{4}, Value: make([]float32, 4), Grad: make([]float32, 4), Trainable: true}
	return &toyTask{w: w, target: []float32{1, -2, 0.5, 3}, seed: seed, steps: 7}
}

func (t *toyTask) StartRound(round, from, global int) (int, error) { return t.steps, nil }

func (t *toyTask) Step(_ *scnn.Pass, i, global int) (float64, error) {
	if t.delay > 0 {
		time.Sleep(t.delay)
	}
	rng := rand.New(rand.NewPCG(t.seed, uint64(global)))
	loss := 0.0
	for k, v := range t.w.Value {
		d := v - t.target[k] + float32(0.3*rng.NormFloat64())
		loss += float64(d * d)
		t.w.Grad[k] = 2 * d
	}
	if t.failAt > 0 && global+1 == t.failAt {
		return math.NaN(), nil
	}
	return loss, nil
}

func (t *toyTask) Validate() ([]float64, error) {
	s := 0.0
	for k, v := range t.w.Value {
		d := float64(v - t.target[k])
		s += d * d
	}
	return []float64{s, -s}, nil
}

func (t *toyTask) SaveBest(e Entry) error {
	t.best = slices.Clone(t.w.Value)
	t.saved = append(t.saved, e)
	return nil
}

func (t *toyTask) State() any { return map[string]uint64{"seed": t.seed} }

func toyConfig(t *toyTask, rounds int) Config {
	return Config{Task: t, Params: []*scnn.Param{t.w}, Optimizer: scnn.NewAdam([]*scnn.Param{t.w}, 0.1, 0),
		Schedule: &Plateau{LR: 0.1, Factor: 0.5, Patience: 0, Min: 1e-3, Lower: true}, Rounds: rounds, Unit: "epoch",
		Metrics: []Metric{{Name: "val_loss", Digits: 6, Lower: true}, {Name: "val_neg", Digits: 4}}}
}

func train(t *testing.T, dir string, resume bool, task *toyTask, rounds int, edit func(*Config)) (*Result, error) {
	t.Helper()
	run, err := Open(dir, resume, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := toyConfig(task, rounds)
	if edit != nil {
		edit(&c)
	}
	return run.Train(context.Background(), c)
}

func fileNoSeconds(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if i := strings.LastIndexByte(l, '\t'); i >= 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// The loop trains, validates at each round's end, keeps the best, logs
// every round with its columns, and a finished run resumed with more
// rounds equals one run of as many rounds.
func TestTrainRoundsAndExtend(t *testing.T) {
	dir := t.TempDir()
	long := newToy(1)
	res, err := train(t, filepath.Join(dir, "long"), false, long, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Log) != 5 || res.Steps != 35 || !res.Done || res.Stop != "reached 5 epochs" || res.Budget {
		t.Fatalf("result %+v", res)
	}
	if long.saved[0].Round != 1 || res.BestRound != long.saved[len(long.saved)-1].Round {
		t.Fatalf("saved %+v, best round %d", long.saved, res.BestRound)
	}
	log := fileNoSeconds(t, filepath.Join(dir, "long", LogFile))
	if !strings.HasPrefix(log, "epoch\ttrain_loss\tval_loss\tval_neg\tlr\n1\t") || strings.Count(log, "\n") != 6 {
		t.Fatalf("log:\n%s", log)
	}
}

// Open refuses a directory that holds a run unless resumed or forced,
// and a resume without a checkpoint.
func TestOpenRules(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, true, false, nil); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("resume of an empty directory: %v", err)
	}
	if _, err := train(t, dir, false, newToy(1), 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, false, false, nil); !errors.Is(err, ErrRunExists) {
		t.Fatalf("a second new run: %v", err)
	}
	if _, err := Open(dir, false, true, nil); err != nil {
		t.Fatalf("forced: %v", err)
	}
	// A temporary file of a killed write is removed.
	tmp := filepath.Join(dir, CheckpointFile+".tmp123")
	os.WriteFile(tmp, []byte("x"), 0o644)
	if _, err := Open(dir, true, false, nil); err != nil {
		t.Fatal(err)
	}
}

// A run resumed with more rounds goes on as the longer run.
func TestExtendEqualsLonger(t *testing.T) {
	dir := t.TempDir()
	long := newToy(2)
	if _, err := train(t, filepath.Join(dir, "long"), false, long, 4, nil); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short")
	if _, err := train(t, short, false, newToy(2), 2, nil); err != nil {
		t.Fatal(err)
	}
	ext := newToy(2)
	if _, err := train(t, short, true, ext, 4, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ext.w.Value, long.w.Value) {
		t.Fatalf("extended %v, longer run %v", ext.w.Value, long.w.Value)
	}
	if a, b := fileNoSeconds(t, filepath.Join(dir, "long", LogFile)), fileNoSeconds(t, filepath.Join(short, LogFile)); a != b {
		t.Fatalf("logs differ:\n%s\n%s", a, b)
	}
}

// Cancelling at a random step writes a checkpoint of that step (before
// the first validation too); the resumed run ends bit-identical, with
// the same log.
func TestCancelResumesBitIdentical(t *testing.T) {
	for trial := 0; trial < 5; trial++ {
		dir := t.TempDir()
		full := newToy(3)
		if _, err := train(t, filepath.Join(dir, "full"), false, full, 4, nil); err != nil {
			t.Fatal(err)
		}
		stopAt := 1 + rand.IntN(27)
		part := filepath.Join(dir, "part")
		run, err := Open(part, false, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		c := toyConfig(newToy(3), 4)
		c.Hooks.Step = func(g int, _ float64) {
			if g == stopAt {
				cancel()
			}
		}
		if _, err := run.Train(ctx, c); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("cancelled: %v", err)
		}
		st, err := Info(part, nil)
		if err != nil || st.Steps != stopAt {
			t.Fatalf("checkpoint of step %d: %+v, %v", stopAt, st, err)
		}
		resumed := newToy(3)
		if _, err := train(t, part, true, resumed, 4, nil); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(resumed.w.Value, full.w.Value) || !slices.Equal(resumed.best, full.best) && resumed.best != nil {
			t.Fatalf("stopped at %d: %v, want %v", stopAt, resumed.w.Value, full.w.Value)
		}
		if a, b := fileNoSeconds(t, filepath.Join(dir, "full", LogFile)), fileNoSeconds(t, filepath.Join(part, LogFile)); a != b {
			t.Fatalf("stopped at %d: logs differ:\n%s\n%s", stopAt, a, b)
		}
	}
}

// The budget stops a run inside a round after validating the steps since
// the last validation; a resumed run with a larger budget continues from
// there to the end.
func TestBudget(t *testing.T) {
	dir := t.TempDir()
	clock := time.Unix(0, 0)
	task := newToy(4)
	steps := 0
	res, err := train(t, dir, false, task, 3, func(c *Config) {
		c.Budget = 10 * time.Second
		c.Clock = func() time.Time { return clock }
		c.Hooks.Step = func(int, float64) {
			steps++
			clock = clock.Add(time.Second)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Budget || res.Steps != 10 || len(res.Log) != 2 || !res.Log[1].Partial || res.Log[1].Step != 10 || res.Done {
		t.Fatalf("budget stop: %+v", res)
	}
	res, err = train(t, dir, true, newToy(4), 3, func(c *Config) { c.Budget = time.Hour })
	if err != nil {
		t.Fatal(err)
	}
	if res.Budget || res.Steps != 21 || !res.Done || len(res.Log) != 4 {
		t.Fatalf("resumed: %+v", res)
	}
}

// Early stopping ends the run for good after Patience rounds without a
// better monitored value; a resume with more rounds does not restart it.
func TestEarlyStop(t *testing.T) {
	dir := t.TempDir()
	task := newToy(5)
	// Monitor a value that gets worse as w nears the target.
	edit := func(c *Config) {
		c.Metrics[1].Lower = true
		c.Monitor, c.Patience = 1, 2
	}
	res, err := train(t, dir, false, task, 20, edit)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Done || !res.Early || len(res.Log) >= 20 || !strings.HasPrefix(res.Stop, "early stop") {
		t.Fatalf("result %+v", res)
	}
	n := len(res.Log)
	res, err = train(t, dir, true, newToy(5), 30, edit)
	if err != nil || len(res.Log) != n {
		t.Fatalf("resumed an early-stopped run: %d validations (was %d), %v", len(res.Log), n, err)
	}
}

// A NaN loss stops the run with an error naming the round and step.
func TestNaNLoss(t *testing.T) {
	task := newToy(6)
	task.failAt = 9
	_, err := train(t, t.TempDir(), false, task, 3, nil)
	if err == nil || !strings.Contains(err.Error(), "epoch 2, step 2: loss is NaN") {
		t.Fatalf("error %v", err)
	}
}

// The schedules: step halving is exact, the plateau follows PyTorch's
// ReduceLROnPlateau (reduce when bad validations exceed the patience,
// relative threshold, a floor).
func TestSchedules(t *testing.T) {
	h := &StepHalving{LR: 3e-3, Every: 100}
	for step, want := range map[int]float64{0: 3e-3, 99: 3e-3, 100: 1.5e-3, 250: 7.5e-4} {
		if got := h.Rate(step); got != want {
			t.Errorf("halving at %d: %g, want %g", step, got, want)
		}
	}
	p := &Plateau{LR: 1, Factor: 0.5, Patience: 1, Min: 0.3, Lower: true}
	var got []float64
	for _, v := range []float64{5, 4, 4, 4, 3, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5} {
		p.Observe(v)
		got = append(got, p.LR)
	}
	want := []float64{1, 1, 1, 0.5, 0.5, 0.5, 0.3, 0.3, 0.3, 0.3, 0.3}
	if !slices.Equal(got, want) {
		t.Fatalf("plateau rates %v, want %v", got, want)
	}
	q := &Plateau{LR: 1, Factor: 0.1, Patience: 0, Threshold: 0.1}
	q.Observe(1)
	q.Observe(1.05) // not 10% better
	if q.LR != 0.1 {
		t.Fatalf("relative threshold: lr %g", q.LR)
	}
}

// The schedule's state is checkpointed: a run cancelled after the
// plateau lowered its rate resumes at the lowered rate.
func TestScheduleStateResumes(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	run, _ := Open(dir, false, false, nil)
	task := newToy(7)
	c := toyConfig(task, 10)
	sch := c.Schedule.(*Plateau)
	c.Hooks.Step = func(g int, _ float64) {
		if sch.LR < 0.1 {
			cancel()
		}
	}
	if _, err := run.Train(ctx, c); !errors.Is(err, ErrInterrupted) {
		t.Skipf("the plateau never lowered the rate: %v", err)
	}
	low := sch.LR
	run, err := Open(dir, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	c2 := toyConfig(newToy(7), 10)
	ctx2, cancel2 := context.WithCancel(context.Background())
	c2.Hooks.Step = func(int, float64) { cancel2() }
	run.Train(ctx2, c2)
	if got := c2.Schedule.(*Plateau).LR; got != low {
		t.Fatalf("resumed rate %g, want %g", got, low)
	}
}

// A checkpoint of the wrong optimiser type is refused.
func TestOptimizerTypeChecked(t *testing.T) {
	dir := t.TempDir()
	if _, err := train(t, dir, false, newToy(1), 1, nil); err != nil {
		t.Fatal(err)
	}
	run, err := Open(dir, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	task := newToy(1)
	c := toyConfig(task, 2)
	c.Optimizer = otherOpt{scnn.NewAdam(c.Params, 0.1, 0)}
	if _, err := run.Train(context.Background(), c); !errors.Is(err, scnn.ErrMismatch) {
		t.Fatalf("another optimiser type: %v", err)
	}
}

type otherOpt struct{ *scnn.Adam }

func (otherOpt) Type() string { return "sgd" }

// A legacy checkpoint is converted by the system's Legacy function; a
// loop without one refuses it.
func TestLegacy(t *testing.T) {
	dir := t.TempDir()
	w := &scnn.Param{Name: "w", Shape: []int{4}, Value: []float32{1, 2, 3, 4}, Trainable: true}
	arrays := []*scnn.Param{w,
		{Name: "adam.m/w", Shape: []int{4}, Value: make([]float32, 4)},
		{Name: "adam.v/w", Shape: []int{4}, Value: make([]float32, 4)},
		{Name: "adam.t", Shape: []int{1}, Value: []float32{12}}}
	var buf bytes.Buffer
	if err := scnn.WriteParams(&buf, []byte(`{"epoch": 3, "lr": 0.05}`), arrays); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, CheckpointFile), buf.Bytes(), 0o644)
	if _, err := Open(dir, true, false, nil); !errors.Is(err, scnn.ErrVersion) {
		t.Fatalf("without a legacy reader: %v", err)
	}
	legacy := func(raw json.RawMessage) (State, json.RawMessage, error) {
		var old struct {
			Epoch int     `json:"epoch"`
			LR    float64 `json:"lr"`
		}
		if err := json.Unmarshal(raw, &old); err != nil {
			return State{}, nil, err
		}
		sch, _ := json.Marshal(&Plateau{LR: old.LR, Factor: 0.5, Lower: true})
		return State{Round: old.Epoch, Steps: 12, Schedule: sch}, []byte(`{}`), nil
	}
	run, err := Open(dir, true, false, legacy)
	if err != nil {
		t.Fatal(err)
	}
	task := newToy(1)
	c := toyConfig(task, 3)
	opt := c.Optimizer.(*scnn.Adam)
	res, err := run.Train(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 12+7 || opt.T != 19 || len(res.Log) != 1 || res.Log[0].Round != 3 {
		t.Fatalf("resumed from a legacy checkpoint: %+v (adam t %d)", res.State, opt.T)
	}
	c2, err := checkpoint.Load(filepath.Join(dir, CheckpointFile))
	if err != nil || c2.Format != checkpoint.Format {
		t.Fatalf("rewritten checkpoint: format %v, %v", c2, err)
	}
}

// kill -9: a child process trains with a checkpoint before every step
// and is killed at a random moment; the run resumed from what is on disk
// ends bit-identical to an uninterrupted one.
func TestKill9ResumesBitIdentical(t *testing.T) {
	if dir := os.Getenv("LOOP_KILL_CHILD"); dir != "" {
		task := newToy(8)
		task.delay = 2 * time.Millisecond
		train(t, dir, false, task, 4, func(c *Config) { c.CheckpointEvery = time.Nanosecond })
		return
	}
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	full := newToy(8)
	if _, err := train(t, filepath.Join(dir, "full"), false, full, 4, nil); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "part")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9ResumesBitIdentical$")
	cmd.Env = append(os.Environ(), "LOOP_KILL_CHILD="+part)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	target := 3 + rand.IntN(20)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if st, err := Info(part, nil); err == nil && st.Steps >= target {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child never reached its step")
		}
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	st, err := Info(part, nil)
	if err != nil {
		t.Fatal(err)
	}
	resumed := newToy(8)
	if _, err := train(t, part, true, resumed, 4, nil); err != nil {
		t.Fatalf("resume after kill -9 at step %d: %v", st.Steps, err)
	}
	if !slices.Equal(resumed.w.Value, full.w.Value) {
		t.Fatalf("killed at step %d: %v, want %v", st.Steps, resumed.w.Value, full.w.Value)
	}
	if a, b := fileNoSeconds(t, filepath.Join(dir, "full", LogFile)), fileNoSeconds(t, filepath.Join(part, LogFile)); a != b {
		t.Fatalf("killed at step %d: logs differ:\n%s\n%s", st.Steps, a, b)
	}
	t.Logf("killed at step %d of 28", st.Steps)
}

// forgetful applies a layer that is not among the model's parameters.
type forgetful struct {
	*toyTask
	layer *scnn.Dense
}

func (f forgetful) Step(p *scnn.Pass, i, global int) (float64, error) {
	x := scnn.New(1, 2)
	y, err := f.layer.Apply(p, x)
	if err != nil {
		return 0, err
	}
	if err := p.Backward(y, scnn.New(1, 2)); err != nil {
		return 0, err
	}
	return f.toyTask.Step(p, i, global)
}

// A network that uses a parameter the model does not list (a layer left
// out of its parameter list) fails at the first step, naming it.
func TestForgottenParameter(t *testing.T) {
	d, err := scnn.NewDense("forgotten", 2, 2, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	task := forgetful{newToy(1), d}
	run, _ := Open(t.TempDir(), false, false, nil)
	c := toyConfig(task.toyTask, 2)
	c.Task = task
	if _, err := run.Train(context.Background(), c); err == nil || !strings.Contains(err.Error(), "forgotten.W") || !strings.Contains(err.Error(), "epoch 1, step 1") {
		t.Fatalf("a forgotten layer: %v", err)
	}
	// Listed, it trains.
	run, _ = Open(t.TempDir(), false, false, nil)
	c.Params = append(c.Params, d.Params()...)
	c.Optimizer = scnn.NewAdam(c.Params, 0.1, 0)
	if _, err := run.Train(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

// FuzzResume: a checkpoint whose loop state is any JSON is refused with
// an error or resumed, never a panic; a resumed run's state is sane.
func FuzzResume(f *testing.F) {
	f.Add([]byte(`{"round":2,"next_step":3,"steps":10,"log":[{"round":1,"step":7,"values":[1,2]}],"best_round":1}`))
	f.Add([]byte(`{"round":1,"log":[{"values":[1]}]}`))
	f.Add([]byte(`{"round":0}`))
	f.Add([]byte(`{"round":3,"next_step":99,"schedule":{"lr":-1}}`))
	f.Fuzz(func(t *testing.T, loopJSON []byte) {
		if !json.Valid(loopJSON) {
			return
		}
		dir := t.TempDir()
		task := newToy(1)
		task.steps = 2
		opt := scnn.NewAdam([]*scnn.Param{task.w}, 0.1, 0)
		if err := checkpoint.Save(filepath.Join(dir, CheckpointFile), json.RawMessage(loopJSON), map[string]int{}, []*scnn.Param{task.w}, opt); err != nil {
			t.Fatal(err)
		}
		run, err := Open(dir, true, false, nil)
		if err != nil {
			return
		}
		c := toyConfig(task, 3)
		res, err := run.Train(context.Background(), c)
		if err != nil {
			return
		}
		if res.Round < 1 || res.Steps < 0 || len(res.Log) > 0 && len(res.Log[len(res.Log)-1].Values) != len(c.Metrics) {
			t.Fatalf("resumed state %+v", res.State)
		}
	})
}

// A new run's first model is never left without the
// checkpoint of its run: a session that fails after the first
// validation (a hook panicked at a budget stop before any step) leaves
// both, and the run resumes with a larger budget.
func TestFirstModelHasCheckpoint(t *testing.T) {
	dir := t.TempDir()
	func() {
		defer func() { recover() }()
		train(t, dir, false, newToy(4), 2, func(c *Config) {
			c.Budget = time.Nanosecond
			c.Hooks.Validated = func(Entry) { panic("hook") }
		})
	}()
	task := newToy(4)
	if _, err := os.Stat(filepath.Join(dir, CheckpointFile)); err != nil {
		t.Fatalf("no checkpoint beside the first model: %v", err)
	}
	res, err := train(t, dir, true, task, 2, nil)
	if err != nil || !res.Done || res.Steps != 14 {
		t.Fatalf("resumed: %+v, %v", res, err)
	}
}

// Settings: a zero setting takes the checkpoint's; Keep refuses another
// value naming both, Change notes it; an unrecorded one is noted.
func TestSettings(t *testing.T) {
	var s Settings
	if v := Keep(&s, "--lr", 0.0, 0.002, true); v != 0.002 {
		t.Errorf("not given: %v", v)
	}
	if v := Change(&s, "--epochs", 0, 40, true); v != 40 {
		t.Errorf("not given: %v", v)
	}
	if s.Err() != nil || len(s.Notes()) != 0 {
		t.Fatalf("%v, %q", s.Err(), s.Notes())
	}
	Keep(&s, "--lr", 0.01, 0.002, true)
	Keep(&s, "--l2", 0.1, 0, false)
	Change(&s, "--patience", 9, 6, true)
	if v := Budget(&s, -1, time.Hour, true); v > 0 {
		t.Errorf("budget lifted: %v", v)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "--lr 0.01 differs from the checkpoint's 0.002") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("refusal: %v", err)
	}
	want := []string{"--l2 0.1: the checkpoint (an older one) does not record it; not checked",
		"--patience 9: the checkpoint's run had 6; the run goes on with 9",
		"--budget none: the checkpoint's run had 1h0m0s; the run goes on with none"}
	if !slices.Equal(s.Notes(), want) {
		t.Errorf("notes %q, want %q", s.Notes(), want)
	}
}

// A directory holding only a training log (its model and
// checkpoint removed) is refused as a run too, so that a new run does not
// overwrite the log without --force.
func TestOpenRefusesLogOnly(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, LogFile)
	if err := os.WriteFile(log, []byte("epoch\ttrain_loss\n1\t0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, false, false, nil); !errors.Is(err, ErrRunExists) || !strings.Contains(err.Error(), LogFile) {
		t.Fatalf("a new run beside a training log: %v, want ErrRunExists naming %s", err, LogFile)
	}
	if _, err := Open(dir, false, true, nil); err != nil {
		t.Fatalf("forced: %v", err)
	}
}
