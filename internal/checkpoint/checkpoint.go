// Package checkpoint writes and reads training checkpoints: a model's
// parameters and the optimiser's state in one scnn parameter file whose
// architecture record is the run's state as JSON. Every training loop of
// the project (contact maps, RNA, recommendation) uses it, so a killed
// run resumes from its last checkpoint the same way everywhere.
package checkpoint

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/scnn"
)

// Save writes state (as JSON), params and the optimiser's state to path
// atomically.
func Save(path string, state any, params []*scnn.Param, opt *scnn.Adam) error {
	rec, err := json.Marshal(state)
	if err != nil {
		return err
	}
	all := append(append([]*scnn.Param(nil), params...), opt.State()...)
	return fileio.WriteAtomic(path, func(w io.Writer) error { return scnn.WriteParams(w, rec, all) })
}

// Read reads a checkpoint's state into state and returns its arrays.
func Read(path string, state any) ([]scnn.Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rec, arrays, err := scnn.ReadParams(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := json.Unmarshal(rec, state); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return arrays, nil
}

// Restore assigns a checkpoint's arrays to params and the optimiser.
func Restore(arrays []scnn.Array, params []*scnn.Param, opt *scnn.Adam) error {
	var mine, adam []scnn.Array
	for _, a := range arrays {
		if strings.HasPrefix(a.Name, "adam.") {
			adam = append(adam, a)
		} else {
			mine = append(mine, a)
		}
	}
	if err := scnn.AssignParams(params, mine); err != nil {
		return err
	}
	return opt.SetState(adam)
}
