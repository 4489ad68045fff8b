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
	"math"
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
// Errors name the file.
func Read(path string, state any) ([]scnn.Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrom(f, path, state)
}

// ReadFrom reads a checkpoint from r, as Read does; name labels errors.
func ReadFrom(r io.Reader, name string, state any) ([]scnn.Array, error) {
	rec, arrays, err := scnn.ReadParams(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := json.Unmarshal(rec, state); err != nil {
		return nil, fmt.Errorf("%s: checkpoint record: %w", name, err)
	}
	return arrays, nil
}

// Restore assigns a checkpoint's arrays to params and the optimiser. The
// optimiser's state must be one Adam can go on from: a step count that is
// a whole number from 0 to 2^24 and second moments that are not negative.
func Restore(arrays []scnn.Array, params []*scnn.Param, opt *scnn.Adam) error {
	var mine, adam []scnn.Array
	for _, a := range arrays {
		if strings.HasPrefix(a.Name, "adam.") {
			adam = append(adam, a)
		} else {
			mine = append(mine, a)
		}
	}
	for _, a := range adam {
		switch {
		case a.Name == "adam.t":
			if len(a.Values) != 1 || a.Values[0] < 0 || a.Values[0] > 1<<24 || a.Values[0] != float32(math.Trunc(float64(a.Values[0]))) {
				return fmt.Errorf("adam state: step count %v: %w", a.Values, scnn.ErrCorrupt)
			}
		case strings.HasPrefix(a.Name, "adam.v/"):
			for i, v := range a.Values {
				if v < 0 {
					return fmt.Errorf("adam state: %s value %d is %v, a second moment cannot be negative: %w", a.Name, i, v, scnn.ErrCorrupt)
				}
			}
		}
	}
	if err := scnn.AssignParams(params, mine); err != nil {
		return err
	}
	return opt.SetState(adam)
}
