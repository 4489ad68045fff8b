package statekeys

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
)

// recorder is a testing.TB that keeps what its Errorf, Skipf and Logf
// calls say (the rest is the real test's).
type recorder struct {
	testing.TB
	errs, logs []string
	skipped    bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Skipf(format string, a ...any) {
	r.skipped = true
	r.logs = append(r.logs, fmt.Sprintf(format, a...))
}
func (r *recorder) Logf(format string, a ...any) { r.logs = append(r.logs, fmt.Sprintf(format, a...)) }

type full struct {
	A int    `json:"a"`
	B string `json:"b"`
	C []int  `json:"-"`
}

// The key checks: KeysOf lists an object's keys, Marshal reports other
// keys than the ones ever carried, Full also the stored fields left
// unset (not the unstored).
func TestKeys(t *testing.T) {
	if got := KeysOf(t, []byte(`{"b":1,"a":{"c":2}}`)); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("KeysOf: %v", got)
	}
	r := &recorder{TB: t}
	if js, ok := Marshal(r, "full", full{A: 1}, []string{"b", "a"}); !ok || string(js) != `{"a":1,"b":""}` || len(r.errs) != 0 {
		t.Errorf("Marshal: %s, %v, %v", js, ok, r.errs)
	}
	if _, ok := Marshal(r, "full", full{}, []string{"a", "b", "gone"}); ok || len(r.errs) != 1 || !strings.Contains(r.errs[0], "gone") {
		t.Errorf("Marshal with a key dropped: %v, %v", ok, r.errs)
	}
	r.errs = nil
	Full(r, "full", full{A: 1, B: "x"}, []string{"a", "b"})
	Full(r, "full", &full{A: 1, B: "x"}, []string{"a", "b"})
	if len(r.errs) != 0 {
		t.Errorf("Full of full values: %v", r.errs)
	}
	if _, ok := Full(r, "full", &full{A: 1}, []string{"a", "b"}); !ok || len(r.errs) != 1 || !strings.Contains(r.errs[0], "leaves B unset") {
		t.Errorf("Full with B unset: %v, %v", ok, r.errs)
	}
}

// With adds a field through objects and arrays; Refused passes an error
// that names the checkpoint, the field and a newer build, and reports
// one that does not; RefusesUnknown reads the state with each field
// added.
func TestWithAndRefused(t *testing.T) {
	v := map[string]any{"x": 1, "log": []any{map[string]any{"y": 2}}}
	m := With(t, v, Field{Path: []string{"log", "0", "z"}, Value: 3})
	want := map[string]any{"x": 1.0, "log": []any{map[string]any{"y": 2.0, "z": 3}}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("With: %v, want %v", m, want)
	}
	if v["log"].([]any)[0].(map[string]any)["z"] != nil {
		t.Error("With changed its argument")
	}
	if k := (Field{Path: []string{"log", "0", "z"}}).Key(); k != "z" {
		t.Errorf("Key: %s", k)
	}
	r := &recorder{TB: t}
	Refused(r, "z", errors.New(`dir/checkpoint.scnn: unknown field "z": written by a newer contactmap?`), "dir/checkpoint.scnn", "z")
	if len(r.errs) != 0 {
		t.Errorf("Refused of a refusal: %v", r.errs)
	}
	Refused(r, "z", nil, "dir/checkpoint.scnn", "z")
	Refused(r, "z", errors.New(`unknown field "z"`), "dir/checkpoint.scnn", "z")
	if len(r.errs) != 3 {
		t.Errorf("Refused of no error and of an error naming neither the checkpoint nor a newer build: %v", r.errs)
	}
	r.errs = nil
	var added []string
	RefusesUnknown(r, v, func(state map[string]any) (string, error) {
		if _, ok := state["w"]; ok {
			added = append(added, "w")
			return "ckpt", nil // read: reported
		}
		added = append(added, "z")
		return "ckpt", errors.New(`ckpt: unknown field "z" (a newer contactmap's?)`)
	}, Field{Path: []string{"log", "0", "z"}, Value: 3}, Field{Path: []string{"w"}, Value: 4})
	if !slices.Equal(added, []string{"z", "w"}) || len(r.errs) != 1 || !strings.Contains(r.errs[0], `"w" read`) {
		t.Errorf("RefusesUnknown: read with %v, errors %v", added, r.errs)
	}
}

// TempCheckpoint writes the checkpoint into a new directory. Committed
// reads every checkpoint below the directories that exist, passing over
// another system's and the ones read skips, reporting the rest's errors;
// it skips the test when it checks none.
func TestCommitted(t *testing.T) {
	var dirs []string
	for _, s := range []string{"a", "b", "other", "old", "bad"} {
		dirs = append(dirs, TempCheckpoint(t, "ckpt", func(path string) error { return os.WriteFile(path, []byte(s), 0o644) }))
	}
	dirs = append(dirs, TempCheckpoint(t, "notes", func(path string) error { return os.WriteFile(path, nil, 0o644) }),
		filepath.Join(t.TempDir(), "missing"))
	var seen []string
	r := &recorder{TB: t}
	Committed(r, "toy", dirs, "ckpt", func(path string) error {
		b, err := os.ReadFile(path)
		seen = append(seen, string(b))
		switch string(b) {
		case "other":
			return fmt.Errorf("reading: %w", &modelkind.WrongKindError{})
		case "old":
			return Skip
		case "bad":
			return errors.New("bad checkpoint")
		}
		return err
	})
	if !slices.Equal(seen, []string{"a", "b", "other", "old", "bad"}) {
		t.Errorf("read %v", seen)
	}
	if !slices.Equal(r.errs, []string{"bad checkpoint"}) || r.skipped || !slices.Equal(r.logs, []string{"3 toy checkpoints checked"}) {
		t.Errorf("errors %v, logs %v, skipped %v", r.errs, r.logs, r.skipped)
	}
	r = &recorder{TB: t}
	Committed(r, "", dirs, "none", func(string) error { return nil })
	if !r.skipped || !slices.Equal(r.logs, []string{"no checkpoint in the tree"}) {
		t.Errorf("no checkpoint: logs %v, skipped %v", r.logs, r.skipped)
	}
}
