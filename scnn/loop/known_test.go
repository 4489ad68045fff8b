package loop

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/treefiles"

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

// Every key a loop state has carried still reads: removing or renaming
// a field of State or Entry would make the checkpoints that carry it
// unknown fields, and fails here.
func TestStateKnownKeys(t *testing.T) {
	st := fullState()
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(t, js), slices.Sorted(slices.Values(stateKeysEver)); !slices.Equal(got, want) {
		t.Fatalf("the state holds the keys %v, want every loop key %v", got, want)
	}
	entry, _ := json.Marshal(st.Log[0])
	if got, want := keysOf(t, entry), slices.Sorted(slices.Values(entryKeysEver)); !slices.Equal(got, want) {
		t.Fatalf("the entry holds the keys %v, want every entry key %v", got, want)
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
	for _, c := range []struct {
		field  string
		change func(st map[string]any, entry map[string]any)
	}{
		{"warmup_rounds", func(st, _ map[string]any) { st["warmup_rounds"] = 2 }},
		{"ema", func(_, e map[string]any) { e["ema"] = true }},
	} {
		dir := t.TempDir()
		st := State{Round: 2, Steps: 7, Best: 1, BestRound: 1, BestStep: 7, RoundBest: 1, RoundBestSet: true,
			Log: []Entry{{Round: 1, Step: 7, TrainLoss: 1, Values: []float64{1, -1}, LR: 0.1}}}
		js, _ := json.Marshal(st)
		var m map[string]any
		json.Unmarshal(js, &m)
		c.change(m, m["log"].([]any)[0].(map[string]any))
		w := &scnn.Param{Name: "w", Shape: []int{4}, Value: make([]float32, 4), Grad: make([]float32, 4), Trainable: true}
		path := filepath.Join(dir, CheckpointFile)
		if err := checkpoint.Save(path, m, map[string]uint64{"seed": 1}, []*scnn.Param{w}, scnn.NewAdam([]*scnn.Param{w}, 0.1, 0)); err != nil {
			t.Fatal(err)
		}
		_, errOpen := Open(dir, true, false, nil)
		_, errInfo := Info(dir, nil)
		for what, err := range map[string]error{"Open": errOpen, "Info": errInfo} {
			if err == nil {
				t.Errorf("%s: %s: the unknown field read", c.field, what)
				continue
			}
			for _, want := range []string{path, `"` + c.field + `"`, "newer contactmap"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %s: %v, want it to say %s", c.field, what, err, want)
				}
			}
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
	n := 0
	_, err := treefiles.Each(dirs, func(name string) bool { return name == CheckpointFile }, func(path string) {
		c, err := checkpoint.Load(path)
		if err != nil {
			t.Errorf("%v", err)
			return
		}
		if c.Format == 0 {
			return
		}
		var st State
		if err := decodeState(c.Loop, &st); err != nil {
			t.Errorf("%s: loop state: %v", path, err)
		}
		n++
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Skip("no checkpoint in the tree")
	}
	t.Logf("%d checkpoints' loop states read", n)
}
