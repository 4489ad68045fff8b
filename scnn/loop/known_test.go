package loop

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/statekeys"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// stateKeysEver and entryKeysEver are every key a checkpoint's loop
// state and its log entries have carried, from the history of State and
// Entry (commit ba495a9 on, keys only added) and every checkpoint ever
// committed (format 2: the loop state; format 0 has none, its record
// being the system's): none has been dropped or renamed.
var (
	stateKeysEver = []string{"round", "next_step", "steps", "loss_sum", "loss_n", "best", "best_round", "best_step",
		"rounds_since_best", "round_best", "round_best_set", "log", "seconds", "done", "stop", "early_stop", "schedule"}
	entryKeysEver = []string{"round", "step", "partial", "train_loss", "values", "lr", "seconds"}
)

// fullState is a loop state with every field set, so that every key is
// written.
func fullState() State {
	return State{Round: 3, Next: 2, Steps: 16, LossSum: 1.5, LossN: 2, Best: 0.25, BestRound: 2, BestStep: 14, Bad: 1,
		RoundBest: 0.25, RoundBestSet: true, Seconds: 9, Done: true, Stop: "stopped early", Early: true,
		Schedule: json.RawMessage(`{"lr":0.1}`),
		Log:      []Entry{{Round: 2, Step: 14, Partial: true, TrainLoss: 0.5, Values: []float64{0.25, -0.25}, LR: 0.1, Seconds: 4}}}
}

// Every key a loop state has carried still reads: removing or renaming
// a field of State or Entry would make the checkpoints that carry it
// unknown fields, and fails here.
func TestStateKnownKeys(t *testing.T) {
	st := fullState()
	js, ok := statekeys.Marshal(t, "the state", st, stateKeysEver)
	if !ok {
		t.FailNow()
	}
	if _, ok := statekeys.Marshal(t, "the entry", st.Log[0], entryKeysEver); !ok {
		t.FailNow()
	}
	var back State
	if err := decodeState(js, &back); err != nil {
		t.Fatalf("a state of every key: %v", err)
	}
	if back.Stop != st.Stop || !back.Early || len(back.Log) != 1 || !back.Log[0].Partial {
		t.Errorf("read back as %+v", back)
	}
}

// A loop-state field this build does not know (a newer build's), in the
// state or in a log entry, is refused on resume and by Info, naming the
// checkpoint and the field, not dropped.
func TestStateUnknownField(t *testing.T) {
	for _, f := range []statekeys.Field{
		{Path: []string{"warmup_rounds"}, Value: 2},
		{Path: []string{"log", "0", "ema"}, Value: true},
	} {
		dir := t.TempDir()
		st := State{Round: 2, Steps: 7, Best: 1, BestRound: 1, BestStep: 7, RoundBest: 1, RoundBestSet: true,
			Log: []Entry{{Round: 1, Step: 7, TrainLoss: 1, Values: []float64{1, -1}, LR: 0.1}}}
		m := statekeys.With(t, st, f)
		w := &scnn.Param{Name: "w", Shape: []int{4}, Value: make([]float32, 4), Grad: make([]float32, 4), Trainable: true}
		path := filepath.Join(dir, CheckpointFile)
		if err := checkpoint.Save(path, m, map[string]uint64{"seed": 1}, []*scnn.Param{w}, scnn.NewAdam([]*scnn.Param{w}, 0.1, 0)); err != nil {
			t.Fatal(err)
		}
		_, errOpen := Open(dir, true, false, nil)
		_, errInfo := Info(dir, nil)
		for what, err := range map[string]error{"Open": errOpen, "Info": errInfo} {
			statekeys.Refused(t, f.Key()+": "+what, err, path, f.Key())
		}
	}
}

// Every checkpoint in the tree (the experiments' runs, the systems'
// testdata) of this package's format has a loop state that reads;
// format 0 ones are their systems' Legacy functions' to convert.
func TestCommittedCheckpointsRead(t *testing.T) {
	root := filepath.Join("..", "..")
	var dirs []string
	for _, dir := range []string{"experiments", "rec", "pipeline", "rna"} {
		dirs = append(dirs, filepath.Join(root, dir))
	}
	statekeys.Committed(t, "", dirs, CheckpointFile, func(path string) error {
		c, err := checkpoint.Load(path)
		if err != nil {
			return err
		}
		if c.Format == 0 {
			return statekeys.Skip
		}
		var st State
		if err := decodeState(c.Loop, &st); err != nil {
			t.Errorf("%s: loop state: %v", path, err)
		}
		if len(st.Schedule) > 0 {
			if k, ok := checkpoint.RunKind(c.Task); !ok || systemSchedule[k] == nil {
				t.Errorf("%s: a run of no known system (%v)", path, k)
			} else if err := decodeStrict(st.Schedule, systemSchedule[k]()); err != nil {
				t.Errorf("%s: schedule state (%v): %v", path, k, err)
			}
		}
		return nil
	})
}

// systemSchedule is the schedule each system trains with (pipeline/train
// and rec: Plateau; rna/ssnet: StepHalving), into which a committed
// checkpoint's schedule state must read. The systems' own tests read
// their task states and schedules the same way.
var systemSchedule = map[modelkind.Kind]func() Schedule{
	modelkind.Protein: func() Schedule { return new(Plateau) },
	modelkind.RNA:     func() Schedule { return new(StepHalving) },
	modelkind.Rec:     func() Schedule { return new(Plateau) },
}

// The keys every schedule state has carried, from the history of
// Constant, StepHalving and Plateau (commit ba495a9 on, unchanged since)
// and every checkpoint committed (protein runs' Plateau, RNA runs'
// StepHalving): none has been dropped or renamed.
var (
	constantKeysEver    = []string{"lr"}
	stepHalvingKeysEver = []string{"lr", "every"}
	plateauKeysEver     = []string{"lr", "factor", "patience", "min_lr", "threshold", "lower", "best", "seen", "bad"}
)

// Every key a schedule state has carried still reads: removing or
// renaming a field of a schedule would make the checkpoints that carry
// it unknown fields, and fails here.
func TestScheduleKnownKeys(t *testing.T) {
	for _, c := range []struct {
		name string
		full Schedule
		keys []string
	}{
		{"Constant", &Constant{LR: 0.1}, constantKeysEver},
		{"StepHalving", &StepHalving{LR: 0.1, Every: 1000}, stepHalvingKeysEver},
		{"Plateau", &Plateau{LR: 0.1, Factor: 0.5, Patience: 2, Min: 1e-5, Threshold: 1e-4, Lower: true, Best: 0.25, Seen: true, Bad: 1}, plateauKeysEver},
	} {
		js, _ := statekeys.Full(t, c.name, c.full, c.keys)
		back := reflect.New(reflect.TypeOf(c.full).Elem()).Interface()
		if err := decodeStrict(js, back); err != nil || !reflect.DeepEqual(back, c.full) {
			t.Errorf("%s read back as %+v: %v", c.name, back, err)
		}
	}
}

// A field this build does not know (a newer build's) in the task state
// or the schedule state is refused, naming the checkpoint and the
// field, not dropped: by Run.TaskState and ReadTask, and by Train
// before its first step.
func TestTaskAndScheduleUnknownField(t *testing.T) {
	type task struct {
		Seed uint64 `json:"seed"`
	}
	sch := `{"lr":0.1,"factor":0.5,"patience":0,"min_lr":0.001,"threshold":0,"lower":true,"best":0,"seen":false,"bad":0}`
	for _, c := range []struct {
		field, task, schedule string
		inTask                bool // the field is the task state's, else the schedule's
	}{
		{"ema", `{"seed":1,"ema":true}`, sch, true},
		{"warmup", `{"seed":1}`, strings.Replace(sch, `"bad":0`, `"bad":0,"warmup":100`, 1), false},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, CheckpointFile)
		st := State{Round: 2, Steps: 7, Best: 1, BestRound: 1, BestStep: 7, RoundBest: 1, RoundBestSet: true,
			Log:      []Entry{{Round: 1, Step: 7, TrainLoss: 1, Values: []float64{1, -1}, LR: 0.1}},
			Schedule: json.RawMessage(c.schedule)}
		toy := newToy(1)
		if err := checkpoint.Save(path, &st, json.RawMessage(c.task), []*scnn.Param{toy.w}, scnn.NewAdam([]*scnn.Param{toy.w}, 0.1, 0)); err != nil {
			t.Fatal(err)
		}
		run, err := Open(dir, true, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		var v, w task
		errs := map[string]error{"TaskState": run.TaskState(&v), "ReadTask": ReadTask(dir, modelkind.Unknown, nil, &w)}
		if !c.inTask {
			for what, err := range errs {
				if err != nil {
					t.Errorf("%s: %s: %v", c.field, what, err)
				}
			}
			if v.Seed != 1 || w.Seed != 1 {
				t.Errorf("%s: task states %+v, %+v", c.field, v, w)
			}
			_, err := run.Train(context.Background(), toyConfig(toy, 3))
			errs = map[string]error{"Train": err}
			if toy.w.Value[0] != 0 && err != nil {
				t.Errorf("%s: Train refused the schedule after a step", c.field)
			}
		}
		for what, err := range errs {
			statekeys.Refused(t, c.field+": "+what, err, path, c.field)
		}
	}
}

// lenientInner reads through its own UnmarshalJSON, which a strict
// decoder does not look into; keyedTask says how to check its keys
// (KeyChecked), plainTask does not.
type lenientInner struct{ A int }

func (l *lenientInner) UnmarshalJSON(b []byte) error {
	var s struct {
		A int `json:"a"`
	}
	err := json.Unmarshal(b, &s)
	l.A = s.A
	return err
}

type keyedTask struct {
	Inner lenientInner `json:"inner"`
}

func (*keyedTask) KeyCheck() any {
	return new(struct {
		Inner struct {
			A int `json:"a"`
		} `json:"inner"`
	})
}

type plainTask struct {
	Inner lenientInner `json:"inner"`
}

// A state whose value has its own UnmarshalJSON is checked through its
// KeyCheck value, inside that value too.
func TestDecodeStrictKeyCheck(t *testing.T) {
	raw := json.RawMessage(`{"inner":{"a":2,"b":3}}`)
	var k keyedTask
	if err := decodeStrict(raw, &k); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("KeyChecked: %v, want the field b refused", err)
	}
	var p plainTask
	if err := decodeStrict(raw, &p); err != nil || p.Inner.A != 2 {
		t.Errorf("without KeyCheck: %+v, %v (the inner value is its own to check)", p, err)
	}
	if err := decodeStrict(json.RawMessage(`{"inner":{"a":2}}`), &k); err != nil || k.Inner.A != 2 {
		t.Errorf("known keys: %+v, %v", k, err)
	}
}
