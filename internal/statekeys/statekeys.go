// Package statekeys holds the checks shared by the tests that pin the
// JSON states a checkpoint carries (scnn/loop's loop and schedule
// states, and the task states of pipeline/train, rna/ssnet and rec):
// that a value with every field set writes exactly the keys the state
// has ever carried, that a field this build does not know is refused,
// naming the checkpoint and the field, and that every checkpoint
// committed in the tree still reads. Only tests import it.
package statekeys

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/internal/treefiles"
)

// KeysOf is the keys of the JSON object js, sorted; it fails t if js is
// not an object.
func KeysOf(t testing.TB, js []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

// allSet reports on t, naming the struct what, every field of the
// struct v (or of the struct v points to) that JSON stores (not tagged
// `json:"-"`) and v leaves unset.
func allSet(t testing.TB, what string, v any) {
	t.Helper()
	rv := reflect.Indirect(reflect.ValueOf(v))
	for i := range rv.NumField() {
		if f := rv.Type().Field(i); f.Tag.Get("json") != "-" && rv.Field(i).IsZero() {
			t.Errorf("%s: the full value leaves %s unset", what, f.Name)
		}
	}
}

// Marshal is v's JSON, reporting on t unless it is an object of exactly
// the keys keysEver (in any order), every key the state what has ever
// carried; ok says whether it is. It fails t if v does not marshal.
func Marshal(t testing.TB, what string, v any, keysEver []string) (js []byte, ok bool) {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, want := KeysOf(t, js), slices.Sorted(slices.Values(keysEver))
	if !slices.Equal(got, want) {
		t.Errorf("%s holds the keys %v, want every key it has carried %v", what, got, want)
		return js, false
	}
	return js, true
}

// Full is Marshal's, for a value v said to be full: it also reports on t
// every field of the struct v (or of the struct v points to) that JSON
// stores (not tagged `json:"-"`) and v leaves unset, since a full value
// must write every key.
func Full(t testing.TB, what string, v any, keysEver []string) (js []byte, ok bool) {
	t.Helper()
	allSet(t, what, v)
	return Marshal(t, what, v, keysEver)
}

// TempCheckpoint is a new directory of t's in which save has written
// the checkpoint file (save is given its path); it fails t if save
// fails.
func TempCheckpoint(t testing.TB, file string, save func(path string) error) (dir string) {
	t.Helper()
	dir = t.TempDir()
	if err := save(filepath.Join(dir, file)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A Field is a field a newer build might write into a state: Path leads
// from the top of the state's JSON object through the objects (by key)
// and arrays (by index, in decimal) inside it to the field, whose key is
// Path's last element; Value is what the field holds.
type Field struct {
	Path  []string
	Value any
}

// Key is the field's key, the last element of its path.
func (f Field) Key() string { return f.Path[len(f.Path)-1] }

// With is v's JSON object, decoded into maps and slices, with the field
// f added. It fails t if the path does not lead to an object.
func With(t testing.TB, v any, f Field) map[string]any {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	var at any = m
	for _, p := range f.Path[:len(f.Path)-1] {
		switch node := at.(type) {
		case map[string]any:
			at = node[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(node) {
				t.Fatalf("%v: no element %s in an array of %d", f.Path, p, len(node))
			}
			at = node[i]
		default:
			t.Fatalf("%v: %s is in no object or array", f.Path, p)
		}
	}
	obj, ok := at.(map[string]any)
	if !ok {
		t.Fatalf("%v: the path leads to no object", f.Path)
	}
	obj[f.Key()] = f.Value
	return m
}

// Refused reports on t, naming what was read, unless err refuses the
// unknown field key of the checkpoint at path: it must name the
// checkpoint, the field (quoted) and a newer contactmap as the likely
// writer.
func Refused(t testing.TB, what string, err error, path, key string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: the unknown field %q read", what, key)
		return
	}
	for _, want := range []string{path, `"` + key + `"`, "newer contactmap"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want it to say %s", what, err, want)
		}
	}
}

// RefusesUnknown checks that each of fields, added to the JSON object
// of the state v, is refused as Refused says: read writes the state it
// is given into a checkpoint and reads it back, returning the
// checkpoint's path and the error reading it.
func RefusesUnknown(t testing.TB, v any, read func(state map[string]any) (path string, err error), fields ...Field) {
	t.Helper()
	for _, f := range fields {
		path, err := read(With(t, v, f))
		Refused(t, f.Key(), err, path, f.Key())
	}
}

// Skip, returned by a Committed read function, passes the checkpoint
// over: not counted and no error.
var Skip = errors.New("statekeys: checkpoint passed over")

// Committed calls read on every checkpoint (every file named file) below
// each of dirs, a directory that does not exist being skipped, and
// reports on t any error read returns but two: a *modelkind.WrongKindError
// (the checkpoint is another system's run) and Skip, which pass the
// checkpoint over. It skips t if it checked no checkpoint, saying "no
// <what> checkpoint in the tree", and otherwise logs how many it
// checked; what names the system ("protein"), or is "" for every
// checkpoint.
func Committed(t testing.TB, what string, dirs []string, file string, read func(path string) error) {
	t.Helper()
	n := 0
	_, err := treefiles.Each(dirs, func(name string) bool { return name == file }, func(path string) {
		err := read(path)
		var wk *modelkind.WrongKindError
		switch {
		case errors.Is(err, Skip), errors.As(err, &wk):
			return
		case err != nil:
			t.Errorf("%v", err)
		}
		n++
	})
	if err != nil {
		t.Fatal(err)
	}
	noun := "checkpoint"
	if what != "" {
		noun = what + " " + noun
	}
	if n == 0 {
		t.Skipf("no %s in the tree", noun)
		return
	}
	t.Logf("%d %ss checked", n, noun)
}
