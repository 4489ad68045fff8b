package rec

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/statekeys"
	"github.com/contactmap/contactmap/internal/strictjson"
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
	w := &scnn.Param{Name: "w", Shape: []int{2}, Value: make([]float32, 2), Grad: make([]float32, 2), Trainable: true}
	return statekeys.TempCheckpoint(t, CheckpointFile, func(path string) error {
		return checkpoint.Save(path, &loop.State{Round: 1}, task, []*scnn.Param{w}, scnn.NewAdam([]*scnn.Param{w}, 0.1, 0))
	})
}

// Every key a task state has carried still reads (the loop refuses an
// unknown one): removing or renaming a field of taskState would make
// the checkpoints that carry it unknown fields, and fails here.
func TestTaskStateKnownKeys(t *testing.T) {
	ts := fullTaskState(t)
	js, ok := statekeys.Full(t, "the task state", ts, taskKeysEver)
	if !ok {
		t.FailNow()
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
	statekeys.RefusesUnknown(t, fullTaskState(t), func(task map[string]any) (string, error) {
		dir := taskCheckpoint(t, task)
		return filepath.Join(dir, CheckpointFile), loop.ReadTask(dir, modelkind.Rec, nil, new(taskState))
	}, statekeys.Field{Path: []string{"eval_every"}, Value: 100}, statekeys.Field{Path: []string{"record", "config", "heads"}, Value: 4})
}

// Every committed checkpoint of a recommendation run resumes: its task
// state reads into taskState and its schedule into the loop.Plateau
// Train uses, refusing any key they do not know.
func TestCommittedTaskStatesRead(t *testing.T) {
	dirs := []string{"testdata", filepath.Join("..", "experiments")}
	statekeys.Committed(t, "recommendation", dirs, CheckpointFile, func(path string) error {
		dir := filepath.Dir(path)
		if err := loop.ReadTask(dir, modelkind.Rec, legacy(nil), new(taskState)); err != nil {
			return err
		}
		st, err := loop.Info(dir, legacy(nil))
		if err != nil {
			return err
		}
		if err := strictjson.Decode(st.Schedule, new(loop.Plateau)); err != nil {
			return fmt.Errorf("%s: schedule state: %v", path, err)
		}
		return nil
	})
}
