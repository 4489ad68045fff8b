package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pairnet/memcheck"
	"github.com/contactmap/contactmap/pipeline/predict"
)

// predictFlags are the flags predict and rna predict share, each with one
// meaning in both (issue 57.7): the inputs (--ids), the outputs (--out,
// --format, --force), which inputs this process takes (--shard), how many
// at once (--workers), what is refused rather than warned of (--strict),
// and the models (--model, repeatable: the mean of their probabilities).
type predictFlags struct {
	Out     string
	Force   bool
	Workers int
	IDs     string
	Shard   string
	Strict  bool
	Format  string
	Models  multiFlag

	shard, shards int // parsed from Shard by check
}

// predictFlagHelp is what each command says of the shared flags where it
// differs: what an input is ("chains", "molecules"), the formats and
// models it knows, what --strict refuses and what --force lets through.
type predictFlagHelp struct {
	Unit, Format, Model, Strict, Force string
}

// register defines the shared flags on fs, with the command's defaults.
func (p *predictFlags) register(fs *flag.FlagSet, out, format string, h predictFlagHelp) {
	fs.StringVar(&p.Out, "out", out, "output directory; it also gets "+predict.SummaryName+".tsv, a row per input (name, length, status ok/skipped/failed, outputs, method); with --shard i/n, "+predict.SummaryName+".shard-i-of-n.tsv")
	fs.BoolVar(&p.Force, "force", false, h.Force)
	fs.IntVar(&p.Workers, "workers", 1, h.Unit+" predicted in parallel")
	fs.StringVar(&p.IDs, "ids", "", "file of inputs, one per line (blank lines and # comments skipped), after those on the command line")
	fs.StringVar(&p.Shard, "shard", "0/1", "process shard i of n of the "+h.Unit+" (0-based: those whose index in the run is i modulo n; every shard names the outputs alike)")
	fs.BoolVar(&p.Strict, "strict", false, h.Strict)
	fs.StringVar(&p.Format, "format", format, h.Format)
	fs.Var(&p.Models, "model", h.Model)
}

// check refuses shared flags out of range (a usage error): --workers
// below 1, a bad --shard, an --out that is a file or under one.
func (p *predictFlags) check(fs *flag.FlagSet) error {
	if err := checkRanges(fs, map[string]string{"workers": atLeast1}); err != nil {
		return err
	}
	var err error
	if p.shard, p.shards, err = parseShard(p.Shard); err != nil {
		return usageError("%v", err)
	}
	return checkOutDir(p.Out)
}

// inputs are the positional inputs, then those of --ids.
func (p *predictFlags) inputs(pos []string) ([]string, error) {
	if p.IDs == "" {
		return pos, nil
	}
	f, err := os.Open(p.IDs)
	if err != nil {
		return nil, fmt.Errorf("--ids: %w", err)
	}
	defer f.Close()
	data, err := fileio.ReadText(f, stdinListBytes, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("--ids %s: %w", p.IDs, err)
	}
	more, err := readIDs(strings.NewReader(string(data)))
	if err != nil {
		return nil, fmt.Errorf("--ids %s: %w", p.IDs, err)
	}
	return append(pos, more...), nil
}

// summaryFile is the path of the run's summary in dir: summary.tsv, or
// summary.shard-i-of-n.tsv for a shard.
func summaryFile(dir string, shard, shards int) string {
	name := predict.SummaryName
	if shards > 1 {
		name += fmt.Sprintf(".shard-%d-of-%d", shard, shards)
	}
	return filepath.Join(dir, name+".tsv")
}

// Statuses of a summary row.
const (
	statusOK      = "ok"
	statusSkipped = "skipped" // refused before any work: outputs exist, too large, --strict
	statusFailed  = "failed"
)

// skipError marks an input refused before any work, not for being wrong:
// its outputs exist, or --strict refuses what it would only warn of.
type skipError struct{ error }

func (e skipError) Unwrap() error { return e.error }

// statusOf is a summary row's status for an input's error.
func statusOf(err error) string {
	var se skipError
	var tl *memcheck.TooLargeError
	switch {
	case err == nil:
		return statusOK
	case errors.As(err, &se), errors.As(err, &tl):
		return statusSkipped
	}
	return statusFailed
}

// summaryRow is one input of a run, as summary.tsv lists it.
type summaryRow struct {
	Name    string
	Length  int // 0: unknown (the input was not read)
	Outputs []string
	Method  string
	Energy  string // rna predict: the structure's free energy, kcal/mol; "" for none
	Err     error
}

// writeSummary writes the rows to path (atomically): a header, then one
// tab-separated row per input: name, length, status, outputs
// (comma-separated file names), method, energy where energy is true, and
// the error.
//
// A summary already at path is merged, not lost: its rows of inputs this
// run does not list stay, in their order, and so does a row "ok" of an
// input this run only skipped (its outputs are still that row's); the
// other rows of this run replace those of the same name, and new names
// follow. A summary with other columns (another command's) is replaced.
func writeSummary(path string, rows []summaryRow, energy bool) error {
	clean := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	head := "name\tlength\tstatus\toutputs\tmethod"
	if energy {
		head += "\tenergy"
	}
	head += "\terror"
	line := func(r summaryRow) string {
		files := make([]string, len(r.Outputs))
		for i, f := range r.Outputs {
			files[i] = filepath.Base(f)
		}
		l := "-"
		if r.Length > 0 {
			l = strconv.Itoa(r.Length)
		}
		f := []string{clean(r.Name), l, statusOf(r.Err), strings.Join(files, ","), clean(r.Method)}
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
		return len(old) > 2 && old[2] == statusOK && strings.Split(r.Line, "\t")[2] == statusSkipped
	}
	return fileio.WriteMergedTable(path, head, rs, keepOK)
}

// saveSummary writes the run's summary; a summary that cannot be
// written is a warning on errw, not a failure of the inputs.
func saveSummary(errw io.Writer, path string, rows []summaryRow, energy bool) {
	if len(rows) == 0 {
		return
	}
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = writeSummary(path, rows, energy)
	}
	if err != nil {
		fmt.Fprintf(errw, "warning: summary not written: %v\n", err)
	}
}

// failure is an input that failed or was skipped, for the failure list.
type failure struct {
	Name string // "" for an error that names its input itself
	Err  error
}

// listFailures prints the failures to errw, each once: "failed:" and a
// line per input, "  NAME: error" (or the error alone where it names
// the input already); total is the number of inputs of the run. It
// returns the command's error, "N of M inputs failed"; nil when none did.
func listFailures(errw io.Writer, failed []failure, total int) error {
	if len(failed) == 0 {
		return nil
	}
	fmt.Fprintln(errw, "failed:")
	for _, f := range failed {
		msg := flagHint(f.Err).Error()
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

// thousands writes n with commas between groups of three digits (2,741).
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
