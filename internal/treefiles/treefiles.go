// Package treefiles walks the files committed in the repository's tree
// that a loader must keep reading (the shipped models, the experiments'
// runs and checkpoints), for the tests that pin a file format: every
// file a past build wrote still loads.
package treefiles

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/contactmap/contactmap/internal/modelkind"
)

// Each calls f on every regular file named so that match reports true,
// below each of dirs; a directory that does not exist is skipped. It
// returns how many files f was called on.
func Each(dirs []string, match func(name string) bool, f func(path string)) (int, error) {
	n := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !match(d.Name()) {
				return err
			}
			f(path)
			n++
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
	}
	return n, nil
}

// Models calls load on every model file (.scnn) below dirs but the
// checkpoints (named checkpoint), and returns how many loaded. A file of
// another kind of model (load returns a *modelkind.WrongKindError) is
// another loader's and not counted; any other error is reported on t.
func Models(t testing.TB, dirs []string, checkpoint string, load func(path string) error) int {
	t.Helper()
	loaded := 0
	isModel := func(name string) bool { return filepath.Ext(name) == ".scnn" && name != checkpoint }
	_, err := Each(dirs, isModel, func(path string) {
		err := load(path)
		var wk *modelkind.WrongKindError
		switch {
		case errors.As(err, &wk):
		case err != nil:
			t.Errorf("%v", err)
		default:
			loaded++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}
