package train

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/strictjson"
	"github.com/contactmap/contactmap/internal/treefiles"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// taskKeysEver and settingsKeysEver are every key a checkpoint's protein
// task state and its settings have carried, from the history of
// taskState and settings (commit ba495a9 on, keys only added; the
// arch's keys are pipeline/model's formatTwoKeys) and every checkpoint
// committed (experiments/: 36 of format 2): none has been dropped or
// renamed.
var (
	taskKeysEver     = []string{"arch", "workers", "precision", "teacher", "label_weight", "settings"}
	settingsKeysEver = []string{"data_sha256", "train_split", "val_split", "max_train", "batch_size", "lr", "l2",
		"pos_weight", "plateau", "min_lr", "random_batches", "epochs", "patience", "budget_ns"}
)

// fullTaskState is a task state with every field set, its settings too,
// so that every key is written.
func fullTaskState() taskState {
	return taskState{Arch: model.DefaultArch(model.SCNN), Workers: 2, Precision: "bfloat16", Teacher: "ab12", LabelWeight: 0.5,
		Settings: &settings{DataSum: "cd34", TrainSplit: "train", ValSplit: "validation", MaxTrain: 100, BatchSize: 4, LR: 1e-3,
			L2: 1e-6, PosWeight: 5, Plateau: 2, MinLR: 1e-5, Random: true, MaxEpochs: 20, Patience: 6, Budget: time.Hour}}
}

// keysOf is the keys of a JSON object, sorted.
func keysOf(t *testing.T, js []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// allFieldsSet fails t unless every field of the struct v is set.
func allFieldsSet(t *testing.T, what string, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() {
			t.Errorf("%s: the full value leaves %s unset", what, rv.Type().Field(i).Name)
		}
	}
}

// taskCheckpoint writes a checkpoint in a new directory whose task state
// is task, and returns the directory.
func taskCheckpoint(t *testing.T, task any) string {
	t.Helper()
	dir := t.TempDir()
	w := &scnn.Param{Name: "w", Shape: []int{2}, Value: make([]float32, 2), Grad: make([]float32, 2), Trainable: true}
	if err := checkpoint.Save(filepath.Join(dir, loop.CheckpointFile), &loop.State{Round: 1}, task, []*scnn.Param{w},
		scnn.NewAdam([]*scnn.Param{w}, 0.1, 0)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Every key a task state has carried still reads (the loop refuses an
// unknown one): removing or renaming a field of taskState or settings
// would make the checkpoints that carry it unknown fields, and fails
// here.
func TestTaskStateKnownKeys(t *testing.T) {
	ts := fullTaskState()
	allFieldsSet(t, "taskState", ts)
	allFieldsSet(t, "settings", *ts.Settings)
	js, err := json.Marshal(ts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(t, js), slices.Sorted(slices.Values(taskKeysEver)); !slices.Equal(got, want) {
		t.Errorf("the task state holds the keys %v, want every key it has carried %v", got, want)
	}
	set, _ := json.Marshal(ts.Settings)
	if got, want := keysOf(t, set), slices.Sorted(slices.Values(settingsKeysEver)); !slices.Equal(got, want) {
		t.Errorf("the settings hold the keys %v, want every key they have carried %v", got, want)
	}
	var back taskState
	if err := loop.ReadTask(taskCheckpoint(t, json.RawMessage(js)), modelkind.Protein, nil, &back); err != nil || !reflect.DeepEqual(back, ts) {
		t.Errorf("read back as %+v: %v", back, err)
	}
}

// A field this build does not know in the task state or its settings is
// refused naming the checkpoint and the field.
func TestTaskStateUnknownField(t *testing.T) {
	for _, c := range []struct {
		field  string
		change func(ts, set map[string]any)
	}{
		{"ema", func(ts, _ map[string]any) { ts["ema"] = true }},
		{"warmup_epochs", func(_, set map[string]any) { set["warmup_epochs"] = 2 }},
	} {
		js, _ := json.Marshal(fullTaskState())
		var m map[string]any
		if err := json.Unmarshal(js, &m); err != nil {
			t.Fatal(err)
		}
		c.change(m, m["settings"].(map[string]any))
		dir := taskCheckpoint(t, m)
		err := loop.ReadTask(dir, modelkind.Protein, nil, new(taskState))
		for _, want := range []string{filepath.Join(dir, loop.CheckpointFile), `"` + c.field + `"`, "newer contactmap"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want it to say %s", c.field, err, want)
			}
		}
	}
}

// Every committed checkpoint of a protein run resumes: its task state
// reads into taskState and its schedule into the one Train uses
// (schedule), refusing any key they do not know.
func TestCommittedTaskStatesRead(t *testing.T) {
	var o Options
	o.defaults()
	n := 0
	dirs := []string{"testdata", filepath.Join("..", "..", "experiments")}
	_, err := treefiles.Each(dirs, func(name string) bool { return name == loop.CheckpointFile }, func(path string) {
		dir := filepath.Dir(path)
		var ts taskState
		err := loop.ReadTask(dir, modelkind.Protein, legacy(o, 0), &ts)
		var wk *modelkind.WrongKindError
		switch {
		case errors.As(err, &wk):
			return // another system's run
		case err != nil:
			t.Errorf("%v", err)
			return
		}
		st, err := Info(dir)
		if err != nil {
			t.Errorf("%v", err)
			return
		}
		if err := strictjson.Decode(st.Schedule, schedule(o)); err != nil {
			t.Errorf("%s: schedule state: %v", path, err)
		}
		n++
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Skip("no protein checkpoint in the tree")
	}
	t.Logf("%d protein checkpoints' task states and schedules read", n)
}
