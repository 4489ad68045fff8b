package ssnet

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
	taskKeysEver     = []string{"record", "protocol", "workers", "precision", "train_sha256", "valid_sha256", "valid", "budget_ns", "clusters_sha256"}
	protocolKeysEver = []string{"name", "crop", "steps", "batch", "lr_cnn", "lr_scnn", "l2", "pos_weight", "eval_every",
		"halve_every", "pair_crops", "buckets", "template", "min_identity", "template_drop", "energy", "ensemble",
		"ensemble_global", "ensemble_prior", "mutate", "mutate_rate", "mutate_max_len", "hybrid", "max_len", "ensemble_temps", "cluster_weights", "pool_files"}
)

// fullTaskState is a task state with every field set, its protocol's
// stored ones too, so that every key is written.
func fullTaskState() taskState {
	p := Default
	p.PairCrops, p.Buckets, p.Template, p.MinIdentity, p.TemplateDrop = true, true, true, 0.4, 0.25
	p.Energy, p.Ensemble, p.EnsembleGlobal, p.EnsemblePrior = true, true, 600, true
	p.Mutate, p.MutateRate, p.MutateMaxLen = 0.5, 0.1, 200
	p.Hybrid, p.MaxLen = true, 300
	p.EnsembleTemps = []float64{25}
	p.ClusterWeights, p.PoolFiles = true, true
	return taskState{Record: Record{Format: RecordFormat, Kind: SCNN, Protocol: p.Name, Spec: p.Spec(SCNN), Seed: 1, Data: "train.dbn"},
		Protocol: p, Workers: 2, Precision: "bfloat16", TrainSum: "ab12", ValidSum: "cd34", Valid: "valid.dbn", Budget: time.Hour, ClustersSum: "ef56"}
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
// unknown one): removing or renaming a field of taskState or of the
// stored Protocol would make the checkpoints that carry it unknown
// fields, and fails here.
func TestTaskStateKnownKeys(t *testing.T) {
	ts := fullTaskState()
	js, _ := statekeys.Full(t, "the task state", ts, taskKeysEver)
	p, _ := statekeys.Full(t, "the protocol", ts.Protocol, protocolKeysEver)
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
	statekeys.RefusesUnknown(t, fullTaskState(), func(task map[string]any) (string, error) {
		dir := taskCheckpoint(t, task)
		return filepath.Join(dir, CheckpointFile), loop.ReadTask(dir, modelkind.RNA, nil, new(taskState))
	}, statekeys.Field{Path: []string{"ema"}, Value: true}, statekeys.Field{Path: []string{"protocol", "warmup_steps"}, Value: 100})
}

// Every committed checkpoint of an RNA run resumes: its task state reads
// into taskState and its schedule into the loop.StepHalving Train uses,
// refusing any key they do not know.
func TestCommittedTaskStatesRead(t *testing.T) {
	dirs := []string{"testdata", filepath.Join("..", "..", "experiments")}
	statekeys.Committed(t, "RNA", dirs, CheckpointFile, func(path string) error {
		dir := filepath.Dir(path)
		if err := loop.ReadTask(dir, modelkind.RNA, legacy, new(taskState)); err != nil {
			return err
		}
		st, err := loop.Info(dir, legacy)
		if err != nil {
			return err
		}
		if len(st.Schedule) > 0 { // format 0: none (Train's own)
			if err := strictjson.Decode(st.Schedule, new(loop.StepHalving)); err != nil {
				return fmt.Errorf("%s: schedule state: %v", path, err)
			}
		}
		return nil
	})
}
