package train

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/statekeys"
	"github.com/contactmap/contactmap/internal/strictjson"
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

// taskCheckpoint writes a checkpoint in a new directory whose task state
// is task, and returns the directory.
func taskCheckpoint(t *testing.T, task any) string {
	w := &scnn.Param{Name: "w", Shape: []int{2}, Value: make([]float32, 2), Grad: make([]float32, 2), Trainable: true}
	return statekeys.TempCheckpoint(t, loop.CheckpointFile, func(path string) error {
		return checkpoint.Save(path, &loop.State{Round: 1}, task, []*scnn.Param{w}, scnn.NewAdam([]*scnn.Param{w}, 0.1, 0))
	})
}

// Every key a task state has carried still reads (the loop refuses an
// unknown one): removing or renaming a field of taskState or settings
// would make the checkpoints that carry it unknown fields, and fails
// here.
func TestTaskStateKnownKeys(t *testing.T) {
	ts := fullTaskState()
	js, _ := statekeys.Full(t, "the task state", ts, taskKeysEver)
	statekeys.Full(t, "the settings", ts.Settings, settingsKeysEver)
	var back taskState
	if err := loop.ReadTask(taskCheckpoint(t, json.RawMessage(js)), modelkind.Protein, nil, &back); err != nil || !reflect.DeepEqual(back, ts) {
		t.Errorf("read back as %+v: %v", back, err)
	}
}

// A field this build does not know in the task state or its settings is
// refused naming the checkpoint and the field.
func TestTaskStateUnknownField(t *testing.T) {
	statekeys.RefusesUnknown(t, fullTaskState(), func(task map[string]any) (string, error) {
		dir := taskCheckpoint(t, task)
		return filepath.Join(dir, loop.CheckpointFile), loop.ReadTask(dir, modelkind.Protein, nil, new(taskState))
	}, statekeys.Field{Path: []string{"ema"}, Value: true}, statekeys.Field{Path: []string{"settings", "warmup_epochs"}, Value: 2})
}

// Every committed checkpoint of a protein run resumes: its task state
// reads into taskState and its schedule into the one Train uses
// (schedule), refusing any key they do not know.
func TestCommittedTaskStatesRead(t *testing.T) {
	var o Options
	o.defaults()
	dirs := []string{"testdata", filepath.Join("..", "..", "experiments")}
	statekeys.Committed(t, "protein", dirs, loop.CheckpointFile, func(path string) error {
		dir := filepath.Dir(path)
		if err := loop.ReadTask(dir, modelkind.Protein, legacy(o, 0), new(taskState)); err != nil {
			return err
		}
		st, err := Info(dir)
		if err != nil {
			return err
		}
		if err := strictjson.Decode(st.Schedule, schedule(o)); err != nil {
			return fmt.Errorf("%s: schedule state: %v", path, err)
		}
		return nil
	})
}
