package runsummary

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
)

// Name is the base name of a run's summary in its output directory
// (summary.tsv; ShardFile), which no input's outputs take.
const Name = "summary"

// Statuses of a row.
const (
	OK      = "ok"
	Skipped = "skipped" // refused before any work: outputs exist, too large, a strict refusal
	Failed  = "failed"
)

// Skip marks an input refused before any work, not for being wrong: its
// outputs exist, or a strict run refuses what it would only warn of. It
// reads as Err.
type Skip struct{ Err error }

func (s Skip) Error() string { return s.Err.Error() }
func (s Skip) Unwrap() error { return s.Err }

// StatusOf is the status of an input's error: OK for none, Skipped for a
// Skip, Failed otherwise.
func StatusOf(err error) string {
	var s Skip
	switch {
	case err == nil:
		return OK
	case errors.As(err, &s):
		return Skipped
	}
	return Failed
}

// Row is one input of a run, as summary.tsv lists it.
type Row struct {
	Name    string
	Length  int // 0: unknown (the input was not read)
	Outputs []string
	Method  string
	Energy  string // rna predict: the structure's free energy, kcal/mol; "" for none
	Status  string // "": StatusOf(Err)
	Err     error
}

func (r Row) status() string {
	if r.Status != "" {
		return r.Status
	}
	return StatusOf(r.Err)
}

// ShardFile is the path of a run's table name (summary, manifest) in
// dir: NAME.tsv, or NAME.shard-i-of-n.tsv for shard i of n > 1.
func ShardFile(dir, name string, shard, shards int) string {
	if shards > 1 {
		name += fmt.Sprintf(".shard-%d-of-%d", shard, shards)
	}
	return filepath.Join(dir, name+".tsv")
}

// ParseShard reads a run's shard "i/n" (the commands' --shard): shard i
// of n, 0 <= i < n; anything else is an error naming --shard.
func ParseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 0 <= i < n", s)
	}
	return i, n, nil
}

// Write writes the rows to path (atomically): a header, then one
// tab-separated row per input: name, length, status, outputs
// (comma-separated file names), method, energy where energy is true, and
// the error.
//
// A summary already at path is merged, not lost: its rows of inputs this
// run does not list stay, in their order, and so does a row "ok" of an
// input this run only skipped (its outputs are still that row's); the
// other rows of this run replace those of the same name, and new names
// follow. A summary with other columns (another command's) is replaced.
func Write(path string, rows []Row, energy bool) error {
	clean := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	head := "name\tlength\tstatus\toutputs\tmethod"
	if energy {
		head += "\tenergy"
	}
	head += "\terror"
	line := func(r Row) string {
		files := make([]string, len(r.Outputs))
		for i, f := range r.Outputs {
			files[i] = filepath.Base(f)
		}
		l := "-"
		if r.Length > 0 {
			l = strconv.Itoa(r.Length)
		}
		f := []string{clean(r.Name), l, r.status(), strings.Join(files, ","), clean(r.Method)}
		if energy {
			f = append(f, r.Energy)
		}
		msg := ""
		if r.Err != nil {
			msg = clean(r.Err.Error())
		}
		return strings.Join(append(f, msg), "\t")
	}
	rs := make([]fileio.TableRow, len(rows))
	for i, r := range rows {
		rs[i] = fileio.TableRow{Key: clean(r.Name), Line: line(r)}
	}
	// A row "ok" of an input this run only skipped stays: its outputs are
	// still that row's.
	keepOK := func(old []string, r fileio.TableRow) bool {
		return len(old) > 2 && old[2] == OK && strings.Split(r.Line, "\t")[2] == Skipped
	}
	return fileio.WriteMergedTable(path, head, rs, keepOK)
}

// Save writes the run's summary (Write), its directory made where
// absent; a summary that cannot be written is a warning on errw, not a
// failure of the inputs. No rows, no summary.
func Save(errw io.Writer, path string, rows []Row, energy bool) {
	if len(rows) == 0 {
		return
	}
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = Write(path, rows, energy)
	}
	if err != nil {
		fmt.Fprintf(errw, "warning: summary not written: %v\n", err)
	}
}

// Failure is an input that failed or was skipped, for the failure list.
type Failure struct {
	Name string // "" for an error that names its input itself
	Err  error
}

// ListFailures prints the failures to errw, each once: "failed:" and a
// line per input, "  NAME: error" (or the error alone where it names
// the input already); total is the number of inputs of the run. It
// returns the command's error, "N of M inputs failed"; nil when none did.
func ListFailures(errw io.Writer, failed []Failure, total int) error {
	if len(failed) == 0 {
		return nil
	}
	fmt.Fprintln(errw, "failed:")
	for _, f := range failed {
		msg := f.Err.Error()
		name := f.Name
		// The error names its input already (a sequence given as an
		// argument by its first letters).
		if name == "" || namesInput(msg, name) || len(name) > 12 && strings.Contains(msg, name[:12]+"...") {
			fmt.Fprintf(errw, "  %s\n", msg)
			continue
		}
		fmt.Fprintf(errw, "  %s: %s\n", name, msg)
	}
	return fmt.Errorf("%d of %d inputs failed", len(failed), total)
}

// namesInput reports whether msg names the input: name as a word of
// it, not inside another ("amb" in "ambiguity").
func namesInput(msg, name string) bool {
	if name == "" {
		return false
	}
	word := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	for i := 0; ; {
		k := strings.Index(msg[i:], name)
		if k < 0 {
			return false
		}
		k += i
		if end := k + len(name); (k == 0 || !word(msg[k-1])) && (end == len(msg) || !word(msg[end])) {
			return true
		}
		i = k + 1
	}
}
