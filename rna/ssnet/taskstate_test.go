package ssnet

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
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/loop"
	"github.com/contactmap/contactmap/scnn/loop/checkpoint"
)

// taskKeysEver and protocolKeysEver are every key a checkpoint's RNA
// task state and its protocol have carried, from the history of
// taskState and Protocol (commit ba495a9 on for the task state, keys
// only added; Protocol's since a8b463d, keys only added; the record is
// the model file's) and every checkpoint committed (experiments/: 88 of
// format 2; format 0's task states are legacy's): none has been dropped
// or renamed.
var (
	taskKeysEver     = []string{"record", "protocol", "workers", "precision", "train_sha256", "valid_sha256", "valid", "budget_ns"}
	protocolKeysEver = []string{"name", "crop", "steps", "batch", "lr_cnn", "lr_scnn", "l2", "pos_weight", "eval_every",
		"halve_every", "pair_crops", "buckets", "template", "min_identity", "template_drop", "energy", "ensemble",
		"ensemble_global", "ensemble_prior", "mutate", "mutate_rate", "mutate_max_len"}
)

// fullTaskState is a task state with every field set, its protocol's
// stored ones too, so that every key is written.
func fullTaskState() taskState {
	p := Default
	p.PairCrops, p.Buckets, p.Template, p.MinIdentity, p.TemplateDrop = true, true, true, 0.4, 0.25
	p.Energy, p.Ensemble, p.EnsembleGlobal, p.EnsemblePrior = true, true, 600, true
	p.Mutate, p.MutateRate, p.MutateMaxLen = 0.5, 0.1, 200
	return taskState{Record: Record{Format: RecordFormat, Kind: SCNN, Protocol: p.Name, Spec: p.Spec(SCNN), Seed: 1, Data: "train.dbn"},
		Protocol: p, Workers: 2, Precision: "bfloat16", TrainSum: "ab12", ValidSum: "cd34", Valid: "valid.dbn", Budget: time.Hour}
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

// allStoredFieldsSet fails t unless every field of the struct v that
// JSON stores is set.
func allStoredFieldsSet(t *testing.T, what string, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if f := rv.Type().Field(i); f.Tag.Get("json") != "-" && rv.Field(i).IsZero() {
			t.Errorf("%s: the full value leaves %s unset", what, f.Name)
		}
	}
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
// unknown one): removing or renaming a field of taskState or of the
// stored Protocol would make the checkpoints that carry it unknown
// fields, and fails here.
func TestTaskStateKnownKeys(t *testing.T) {
	ts := fullTaskState()
	allStoredFieldsSet(t, "taskState", ts)
	allStoredFieldsSet(t, "Protocol", ts.Protocol)
	js, err := json.Marshal(ts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(t, js), slices.Sorted(slices.Values(taskKeysEver)); !slices.Equal(got, want) {
		t.Errorf("the task state holds the keys %v, want every key it has carried %v", got, want)
	}
	p, _ := json.Marshal(ts.Protocol)
	if got, want := keysOf(t, p), slices.Sorted(slices.Values(protocolKeysEver)); !slices.Equal(got, want) {
		t.Errorf("the protocol holds the keys %v, want every key it has carried %v", got, want)
	}
	var back taskState
	if err := loop.ReadTask(taskCheckpoint(t, json.RawMessage(js)), modelkind.RNA, nil, &back); err != nil {
		t.Fatal(err)
	}
	want := ts
	want.Protocol = Protocol{}
	json.Unmarshal(p, &want.Protocol) // the protocol as stored: its widths are not
	if !reflect.DeepEqual(back, want) {
		t.Errorf("read back as %+v, want %+v", back, want)
	}
}

// A field this build does not know in the task state or its protocol is
// refused naming the checkpoint and the field.
func TestTaskStateUnknownField(t *testing.T) {
	for _, c := range []struct {
		field  string
		change func(ts, p map[string]any)
	}{
		{"ema", func(ts, _ map[string]any) { ts["ema"] = true }},
		{"warmup_steps", func(_, p map[string]any) { p["warmup_steps"] = 100 }},
	} {
		js, _ := json.Marshal(fullTaskState())
		var m map[string]any
		if err := json.Unmarshal(js, &m); err != nil {
			t.Fatal(err)
		}
		c.change(m, m["protocol"].(map[string]any))
		dir := taskCheckpoint(t, m)
		err := loop.ReadTask(dir, modelkind.RNA, nil, new(taskState))
		for _, want := range []string{filepath.Join(dir, CheckpointFile), `"` + c.field + `"`, "newer contactmap"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want it to say %s", c.field, err, want)
			}
		}
	}
}

// Every committed checkpoint of an RNA run resumes: its task state reads
// into taskState and its schedule into the loop.StepHalving Train uses,
// refusing any key they do not know.
func TestCommittedTaskStatesRead(t *testing.T) {
	n := 0
	dirs := []string{"testdata", filepath.Join("..", "..", "experiments")}
	_, err := treefiles.Each(dirs, func(name string) bool { return name == CheckpointFile }, func(path string) {
		dir := filepath.Dir(path)
		var ts taskState
		err := loop.ReadTask(dir, modelkind.RNA, legacy, &ts)
		var wk *modelkind.WrongKindError
		switch {
		case errors.As(err, &wk):
			return // another system's run
		case err != nil:
			t.Errorf("%v", err)
			return
		}
		st, err := loop.Info(dir, legacy)
		if err != nil {
			t.Errorf("%v", err)
			return
		}
		if len(st.Schedule) > 0 { // format 0: none (Train's own)
			if err := strictjson.Decode(st.Schedule, new(loop.StepHalving)); err != nil {
				t.Errorf("%s: schedule state: %v", path, err)
			}
		}
		n++
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Skip("no RNA checkpoint in the tree")
	}
	t.Logf("%d RNA checkpoints' task states and schedules read", n)
}
