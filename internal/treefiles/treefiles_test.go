package treefiles

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
)

// Each finds the matching files below the directories that exist, and
// Models counts the files that load, not the other kinds' nor the
// checkpoints.
func TestEachAndModels(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/m.scnn", "a/b/n.scnn", "a/b/checkpoint.scnn", "a/other.scnn", "a/notes.txt"} {
		path := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	n, err := Each([]string{filepath.Join(dir, "a"), filepath.Join(dir, "missing")}, func(name string) bool { return filepath.Ext(name) == ".scnn" },
		func(path string) { seen = append(seen, filepath.Base(path)) })
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if n != 4 || !slices.Equal(seen, []string{"checkpoint.scnn", "m.scnn", "n.scnn", "other.scnn"}) {
		t.Errorf("Each: %d files %v", n, seen)
	}
	var tried []string
	loaded := Models(t, []string{dir}, "checkpoint.scnn", func(path string) error {
		tried = append(tried, filepath.Base(path))
		if filepath.Base(path) == "other.scnn" {
			return &modelkind.WrongKindError{}
		}
		return nil
	})
	slices.Sort(tried)
	if loaded != 2 || !slices.Equal(tried, []string{"m.scnn", "n.scnn", "other.scnn"}) {
		t.Errorf("Models: %d loaded of %v", loaded, tried)
	}
}
