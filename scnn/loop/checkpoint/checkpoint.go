// Package checkpoint writes and reads training checkpoints: a model's
// parameters and its optimiser's state in one scnn parameter file
// (scnn.WriteParams) whose architecture record is JSON:
//
//	{"checkpoint_format": 2,
//	 "optimizer": {"type": "adam", "steps": 1200, "arrays": 40},
//	 "loop": {...}, "task": {...}}
//
// The arrays are the model's parameters, then the optimiser's
// (scnn.Optimizer.Moments), as many as the record's optimizer.arrays
// says. The optimiser's state is restored by its type, never by the
// arrays' names. "loop" is the training loop's state (package scnn/loop)
// and "task" the state of the system that trains (contact maps, RNA,
// recommendation).
//
// Checkpoints written before the shared training loop (format 0, no
// checkpoint_format) hold the system's state as the whole record and
// Adam's state under the names "adam.m/...", "adam.v/..." and "adam.t";
// Load reads them too (Checkpoint.Format 0, Task the whole record, the
// moments renamed as Adam names them now).
package checkpoint

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/scnn"
)

// Format is the checkpoint format Save writes.
const Format = 2

// maxSteps bounds an optimiser's step count read from a file.
const maxSteps = 1 << 40

type optRecord struct {
	Type   string `json:"type"`
	Steps  int    `json:"steps"`
	Arrays int    `json:"arrays"`
}

type record struct {
	Format    int             `json:"checkpoint_format"`
	Optimizer optRecord       `json:"optimizer"`
	Loop      json.RawMessage `json:"loop"`
	Task      json.RawMessage `json:"task"`
}

// Checkpoint is a checkpoint as read.
type Checkpoint struct {
	// Format is 2, or 0 for a checkpoint written before the shared
	// training loop (Loop is then nil and Task the whole record).
	Format int
	Loop   json.RawMessage
	Task   json.RawMessage
	// Params are the model's arrays.
	Params []scnn.Array
	// OptType, OptSteps and Moments are the optimiser's state.
	OptType  string
	OptSteps int
	Moments  []scnn.Array
}

// Save writes the loop's and the task's states (as JSON), the params and
// the optimiser's state to path atomically.
func Save(path string, loop, task any, params []*scnn.Param, opt scnn.Optimizer) error {
	l, err := json.Marshal(loop)
	if err != nil {
		return fmt.Errorf("checkpoint: loop state: %w", err)
	}
	t, err := json.Marshal(task)
	if err != nil {
		return fmt.Errorf("checkpoint: task state: %w", err)
	}
	moments := opt.Moments()
	rec, err := json.Marshal(record{Format: Format, Loop: l, Task: t,
		Optimizer: optRecord{Type: opt.Type(), Steps: opt.StepCount(), Arrays: len(moments)}})
	if err != nil {
		return err
	}
	all := append(append([]*scnn.Param(nil), params...), moments...)
	return fileio.WriteAtomic(path, func(w io.Writer) error { return scnn.WriteParams(w, rec, all) })
}

// Load reads a checkpoint. Errors name the file.
func Load(path string) (*Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadFrom(f, path)
}

// LoadFrom reads a checkpoint from r, as Load does; name labels errors.
func LoadFrom(r io.Reader, name string) (*Checkpoint, error) {
	raw, arrays, err := scnn.ReadParams(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var probe struct {
		Format *int `json:"checkpoint_format"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("%s: checkpoint record: %w", name, err)
	}
	if probe.Format == nil {
		return legacy(raw, arrays, name)
	}
	var rec record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("%s: checkpoint record: %w", name, err)
	}
	switch {
	case rec.Format != Format:
		return nil, fmt.Errorf("%s: checkpoint format %d (this build reads 0 and %d): %w", name, rec.Format, Format, scnn.ErrVersion)
	case rec.Optimizer.Arrays < 0 || rec.Optimizer.Arrays > len(arrays):
		return nil, fmt.Errorf("%s: %d optimiser arrays in a file of %d: %w", name, rec.Optimizer.Arrays, len(arrays), scnn.ErrCorrupt)
	case rec.Optimizer.Steps < 0 || rec.Optimizer.Steps > maxSteps:
		return nil, fmt.Errorf("%s: optimiser step count %d: %w", name, rec.Optimizer.Steps, scnn.ErrCorrupt)
	}
	n := len(arrays) - rec.Optimizer.Arrays
	return &Checkpoint{Format: rec.Format, Loop: rec.Loop, Task: rec.Task, Params: arrays[:n],
		OptType: rec.Optimizer.Type, OptSteps: rec.Optimizer.Steps, Moments: arrays[n:]}, nil
}

// legacy reads a format-0 checkpoint: Adam's state under "adam." names.
func legacy(raw []byte, arrays []scnn.Array, name string) (*Checkpoint, error) {
	c := &Checkpoint{Task: raw, OptType: "adam"}
	steps := -1
	for _, a := range arrays {
		switch {
		case a.Name == "adam.t":
			if len(a.Values) != 1 || a.Values[0] < 0 || a.Values[0] > 1<<24 || a.Values[0] != float32(math.Trunc(float64(a.Values[0]))) {
				return nil, fmt.Errorf("%s: adam state: step count %v: %w", name, a.Values, scnn.ErrCorrupt)
			}
			steps = int(a.Values[0])
		case strings.HasPrefix(a.Name, "adam."):
			a.Name = strings.TrimPrefix(a.Name, "adam.") // "adam.m/<param>": Adam's "m/<param>"
			c.Moments = append(c.Moments, a)
		default:
			c.Params = append(c.Params, a)
		}
	}
	if steps < 0 {
		return nil, fmt.Errorf("%s: no optimiser step count (adam.t): %w", name, scnn.ErrCorrupt)
	}
	c.OptSteps = steps
	return c, nil
}

// Restore assigns the checkpoint's arrays to params and its state to opt,
// which must be of the checkpoint's optimiser type.
func (c *Checkpoint) Restore(params []*scnn.Param, opt scnn.Optimizer) error {
	if c.OptType != opt.Type() {
		return fmt.Errorf("the checkpoint holds the state of optimiser %q, the run uses %q: %w", c.OptType, opt.Type(), scnn.ErrMismatch)
	}
	if err := scnn.AssignParams(params, c.Params); err != nil {
		return err
	}
	return opt.Restore(c.OptSteps, c.Moments)
}

// RunKind says which system's run a checkpoint's task state (or a
// format-0 record) is of: the kind of the model record it holds (a
// protein run's "arch", an RNA or recommendation run's "record";
// modelkind.Detect). ok is false when no model record is recognised.
func RunKind(task json.RawMessage) (k modelkind.Kind, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(task, &top) != nil {
		return modelkind.Unknown, false
	}
	for _, key := range []string{"arch", "record"} {
		if k, ok := modelkind.Detect(top[key]); ok {
			return k, true
		}
	}
	return modelkind.Unknown, false
}

// NotAModel is the error of a checkpoint file read as a model file of
// kind want (record is the file's record): it names the file, the kind
// of run the checkpoint is of, and the model file to give instead. It is
// nil when record is not a checkpoint's.
func NotAModel(name string, record []byte, want modelkind.Kind) error {
	var probe struct {
		Format *int            `json:"checkpoint_format"`
		Task   json.RawMessage `json:"task"`
	}
	if json.Unmarshal(record, &probe) != nil || probe.Format == nil {
		return nil
	}
	of := "a training run"
	if k, ok := RunKind(probe.Task); ok {
		of = "the training run of " + article(k)
	}
	return fmt.Errorf("%s is a checkpoint of %s, not %s file: give the run's model file (model.scnn beside it)", name, of, article(want))
}

// article is k's name with its article ("an RNA secondary-structure
// model").
func article(k modelkind.Kind) string {
	if k == modelkind.RNA || k == modelkind.Unknown {
		return "an " + k.String()
	}
	return "a " + k.String()
}
