package rec

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/strictjson"
	"github.com/contactmap/contactmap/internal/treefiles"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// taskKeysEver is every key a checkpoint's recommendation task state
// has carried, from the history of taskState (commit ba495a9 on, keys
// only added; the record's keys are recordKeysEver and configKeysEver)
// and every checkpoint committed (testdata/legacy-run, format 0, whose
// task state legacy writes): none has been dropped or renamed.
var taskKeysEver = []string{"record", "workers", "batch", "targets", "negatives", "epochs", "lr", "l2", "factor",
	"patience", "data_sha256", "order_rng", "dropout_rng"}

// fullTaskState is a task state with every field set, so that every key
// is written.
func fullTaskState(t *testing.T) taskState {
	_, r := tinyRecord(t)
	r.Data, r.Version = "data/ml-1m", "v1.2.3"
	return taskState{Record: r, Workers: 2, Batch: 32, T: 3, Negs: 3, Epochs: 20, LR: 1e-3, L2: 1e-6, Factor: 0.5,
		Patience: 2, DataSum: "ab12", OrderRNG: []byte{1, 2}, DropoutRNG: []byte{3, 4}}
}

// taskCheckpoint writes a checkpoint in a new directory whose task state
// is task, and returns the directory.
func taskCheckpoint(t *testing.T, task any) string {
	t.Helper()
	dir := t.TempDir()
	w := &scnn.Param{Name: "w", Shape: []int{2}, Value: make([]float32, 2), Grad: make([]float32, 2), Trainable: true}
	if err := checkpoint.Save(filepath.Join(dir, CheckpointFile), &loop.State{Round: 1}, task, []*scnn.Param{w},
		scnn.NewAdam([]*scnn.Param{w}, 0.1, 0)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Every key a task state has carried still reads (the loop refuses an
// unknown one): removing or renaming a field of taskState would make
// the checkpoints that carry it unknown fields, and fails here.
func TestTaskStateKnownKeys(t *testing.T) {
	ts := fullTaskState(t)
	v := reflect.ValueOf(ts)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("the full task state leaves %s unset", v.Type().Field(i).Name)
		}
	}
	js, err := json.Marshal(ts)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}), slices.Sorted(slices.Values(taskKeysEver)); !slices.Equal(got, want) {
		t.Fatalf("the task state holds the keys %v, want every key it has carried %v", got, want)
	}
	var back taskState
	if err := loop.ReadTask(taskCheckpoint(t, json.RawMessage(js)), modelkind.Rec, nil, &back); err != nil || !reflect.DeepEqual(back, ts) {
		t.Errorf("read back as %+v: %v", back, err)
	}
}

// A field this build does not know in the task state, at its top or in
// its record's configuration (read through Config.UnmarshalJSON, checked
// through KeyCheck), is refused naming the checkpoint and the field.
func TestTaskStateUnknownField(t *testing.T) {
	for _, c := range []struct {
		field  string
		change func(ts, cfg map[string]any)
	}{
		{"eval_every", func(ts, _ map[string]any) { ts["eval_every"] = 100 }},
		{"heads", func(_, cfg map[string]any) { cfg["heads"] = 4 }},
	} {
		js, _ := json.Marshal(fullTaskState(t))
		var m map[string]any
		if err := json.Unmarshal(js, &m); err != nil {
			t.Fatal(err)
		}
		c.change(m, m["record"].(map[string]any)["config"].(map[string]any))
		dir := taskCheckpoint(t, m)
		err := loop.ReadTask(dir, modelkind.Rec, nil, new(taskState))
		for _, want := range []string{filepath.Join(dir, CheckpointFile), `"` + c.field + `"`, "newer contactmap"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want it to say %s", c.field, err, want)
			}
		}
	}
}

// Every committed checkpoint of a recommendation run resumes: its task
// state reads into taskState and its schedule into the loop.Plateau
// Train uses, refusing any key they do not know.
func TestCommittedTaskStatesRead(t *testing.T) {
	n := 0
	_, err := treefiles.Each([]string{"testdata", filepath.Join("..", "experiments")}, func(name string) bool { return name == CheckpointFile }, func(path string) {
		dir := filepath.Dir(path)
		var ts taskState
		err := loop.ReadTask(dir, modelkind.Rec, legacy(nil), &ts)
		var wk *modelkind.WrongKindError
		switch {
		case errors.As(err, &wk):
			return // another system's run
		case err != nil:
			t.Errorf("%v", err)
			return
		}
		st, err := loop.Info(dir, legacy(nil))
		if err != nil {
			t.Errorf("%v", err)
			return
		}
		if err := strictjson.Decode(st.Schedule, new(loop.Plateau)); err != nil {
			t.Errorf("%s: schedule state: %v", path, err)
		}
		n++
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Skip("no recommendation checkpoint in the tree")
	}
	t.Logf("%d recommendation checkpoints' task states and schedules read", n)
}
