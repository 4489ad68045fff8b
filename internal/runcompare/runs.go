package runcompare

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// RunState says what a run directory holds.
type RunState int

const (
	// NoRun: the directory holds no run (neither checkpoint nor model).
	NoRun RunState = iota
	// Training: the run has not ended; its model is not the final one.
	Training
	// Finished: the run has ended and its model was read.
	Finished
	// Unreadable: the run's checkpoint or model cannot be read
	// (RunDir.Err says why).
	Unreadable
)

// RunDir is one directory of a directory of runs, as read by its system.
type RunDir[T any] struct {
	Name  string // the directory's name, e.g. scnn-seed1
	Path  string // the directory
	State RunState
	Err   error // why an Unreadable run cannot be read
	Run   T     // what the system read of the run (for any state)
}

// ScanRuns reads the subdirectories of dir, in name order, each with
// read, which returns what it read of the run and its state, and for an
// Unreadable run the reason (a non-nil error makes the run Unreadable).
// Files beside the run directories are passed over. The error is the
// reading of dir itself.
func ScanRuns[T any](dir string, read func(path string) (T, RunState, error)) ([]RunDir[T], error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []RunDir[T]
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := RunDir[T]{Name: e.Name(), Path: filepath.Join(dir, e.Name())}
		d.Run, d.State, d.Err = read(d.Path)
		if d.Err != nil {
			d.State = Unreadable
		}
		out = append(out, d)
	}
	return out, nil
}

// OnlyItems returns the runs restricted to the items keep holds, in
// order, with every metric of each run.
func OnlyItems(runs []Run, keep map[string]bool) []Run {
	var out []Run
	for _, r := range runs {
		d := r
		d.Items, d.Scores = nil, map[string][]float64{}
		for i, item := range r.Items {
			if !keep[item] {
				continue
			}
			d.Items = append(d.Items, item)
			for m, v := range r.Scores {
				d.Scores[m] = append(d.Scores[m], v[i])
			}
		}
		out = append(out, d)
	}
	return out
}

// WriteFiles writes the comparison to OUT.json (indented) and OUT.md (the
// Markdown table, then extra), creating OUT's directory.
func (r *Result) WriteFiles(out, extra string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := fileio.WriteAtomic(out+".json", func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(r)
	}); err != nil {
		return err
	}
	return fileio.WriteAtomic(out+".md", func(w io.Writer) error {
		if err := r.Markdown(w); err != nil {
			return err
		}
		_, err := io.WriteString(w, extra)
		return err
	})
}

// BadRuns collects the runs a comparison cannot read (a checkpoint or
// model that does not load), each said on W as it is found: "PREFIX: run
// NAME cannot be read: ERR".
type BadRuns struct {
	W      io.Writer
	Prefix string // "contactmap rna compare"
	names  []string
}

// Add reports a run that cannot be read, naming it and the reason.
func (u *BadRuns) Add(name string, err error) {
	fmt.Fprintf(u.W, "%s: run %s cannot be read: %v\n", u.Prefix, name, err)
	u.names = append(u.names, name)
}

// Check fails when a run could not be read, unless skip (the command's
// --skip-bad): then a line on W names the runs left out, and the
// readable runs are compared.
func (u *BadRuns) Check(skip bool) error {
	if len(u.names) == 0 {
		return nil
	}
	if skip {
		fmt.Fprintf(u.W, "left out %d run(s) that cannot be read: %s\n", len(u.names), strings.Join(u.names, " "))
		return nil
	}
	return fmt.Errorf("%d run(s) cannot be read (%s; see above): fix or remove them, or give --skip-bad to compare the others", len(u.names), strings.Join(u.names, " "))
}
