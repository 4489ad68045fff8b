package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/usage"
)

// Ranges of numeric flags for checkRanges.
const (
	positive = "> 0"  // a rate or distance that must be there
	atLeast1 = ">= 1" // a count of at least one
	nonNeg   = ">= 0" // 0 meaning "the default" or "none"
	fraction = "0..1" // a proportion
)

// workersCap bounds every --workers flag (and --plm-threads): goroutines
// beyond a few per CPU add no speed, and an absurd count (2^63-1) would
// start goroutines until the runtime aborts. 256 leaves room for a
// training run from a large machine, whose workers a resumed run keeps.
var workersCap = max(256, 4*runtime.NumCPU())

// workerFlags are the flags that checkRanges also bounds by workersCap.
var workerFlags = map[string]bool{"workers": true, "plm-threads": true, "threads": true}

// helpText is what a command's -h prints before its flags: the usage
// line, what it does and its inputs, and one example.
type helpText struct {
	Usage   string // "contactmap rna predict [flags] INPUT..."
	About   string // what it does; its inputs and outputs
	Example string // one command line
}

// newFlags returns a command's flag set whose -h prints h, then the flags.
func newFlags(name string, h helpText) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s\n\n%s\n\nExample:\n  %s\n\nFlags (also --version; exit status 0 success, 1 a failed input or run, 2 a usage error):\n",
			h.Usage, strings.TrimSpace(h.About), h.Example)
		fs.PrintDefaults()
	}
	return fs
}

// checkRanges refuses numeric flags set outside their range: ranges maps
// a flag name to positive, atLeast1, nonNeg or fraction. NaN
// and infinities are refused for every numeric flag named. The error is a
// usage error naming the flag and its value.
func checkRanges(fs *flag.FlagSet, ranges map[string]string) error {
	for _, n := range slices.Sorted(maps.Keys(ranges)) {
		f := fs.Lookup(n)
		if f == nil {
			panic("checkRanges: no flag " + n)
		}
		var v float64
		switch x := f.Value.(flag.Getter).Get().(type) {
		case int:
			v = float64(x)
		case int64:
			v = float64(x)
		case uint:
			v = float64(x)
		case uint64:
			v = float64(x)
		case float64:
			v = x
		case time.Duration:
			v = float64(x)
		default:
			panic(fmt.Sprintf("checkRanges: flag %s is not numeric (%T)", n, x))
		}
		want := ranges[n]
		ok := !math.IsNaN(v) && !math.IsInf(v, 0)
		switch want {
		case positive:
			ok = ok && v > 0
		case atLeast1:
			ok = ok && v >= 1
		case nonNeg:
			ok = ok && v >= 0
		case fraction:
			ok = ok && v >= 0 && v <= 1
		}
		if ok && workerFlags[n] && v > float64(workersCap) {
			return usage.Errorf("--%s %s: want at most %d (4 per CPU, at least 256; see -h)", n, f.Value.String(), workersCap)
		}
		if !ok {
			what := "a number " + want
			if want == fraction {
				what = "a number from 0 to 1"
			}
			return usage.Errorf("--%s %s: want %s (see -h)", n, f.Value.String(), what)
		}
	}
	return nil
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// refuseOverwrite refuses to replace existing outputs (a report's OUT.md
// and OUT.json, a set directory's files) unless force: checked before
// any work, as predict and train do. The error names the first file
// found and --force.
func refuseOverwrite(force bool, paths ...string) error {
	for _, p := range paths {
		if !force && exists(p) {
			return fmt.Errorf("%s exists: --force overwrites it, or give another --out", p)
		}
	}
	return nil
}

// reportFiles are the files of a report written to out: OUT.md, OUT.json.
func reportFiles(out string) []string { return []string{out + ".md", out + ".json"} }

// checkOutDir refuses an output directory that names an existing file
// other than a directory, or lies under one (--out FILE/sub): a usage
// error naming --out and the file in the way (fileio.CheckDirPath).
func checkOutDir(dir string) error {
	if err := fileio.CheckDirPath(dir); err != nil {
		return usage.Errorf("--out %v", err)
	}
	return nil
}

// parseFlags parses args with flags anywhere among the positional
// arguments ("contactmap predict 1ENH_A --out x"); "--" ends the flags. A
// lone "-" (standard input) is positional. The help message goes to
// standard output, and flag errors become usage errors.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil, flag.ErrHelp
		}
		if a == "-version" || a == "--version" {
			fmt.Fprintln(stdout, version())
			return nil, flag.ErrHelp
		}
	}
	fs.SetOutput(io.Discard) // the error comes back in the returned one
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usage.Errorf("%v (see -h)", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// noPositional refuses positional arguments for commands that take none.
func noPositional(cmd string, pos []string) error {
	if len(pos) > 0 {
		return usage.Errorf("unexpected argument %q (%s takes flags only; see -h)", pos[0], cmd)
	}
	return nil
}

// parseNoArgs parses the flags of a command that takes no positional
// arguments (parseFlags, noPositional).
func parseNoArgs(fs *flag.FlagSet, cmd string, args []string) error {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	return noPositional(cmd, pos)
}

// parseTrainFlags parses a training command's flags (no positional
// arguments), refuses --resume with --force, and checks the numeric
// flags' ranges (checkRanges), then the counts' limits (checkLimits).
func parseTrainFlags(fs *flag.FlagSet, cmd string, args []string, resume, force *bool, ranges map[string]string, limits map[string][2]int) error {
	if err := parseNoArgs(fs, cmd, args); err != nil {
		return err
	}
	if *resume && *force {
		return usage.Errorf("--resume and --force exclude each other")
	}
	if err := checkRanges(fs, ranges); err != nil {
		return err
	}
	return checkLimits(fs, limits)
}

// checkLimits refuses integer flags outside [lo, hi] (limits maps a flag
// name to {lo, hi}): a usage error naming the flag and the range.
func checkLimits(fs *flag.FlagSet, limits map[string][2]int) error {
	for _, n := range slices.Sorted(maps.Keys(limits)) {
		f := fs.Lookup(n)
		v, ok := f.Value.(flag.Getter).Get().(int)
		if !ok {
			panic(fmt.Sprintf("checkLimits: flag %s is not an int", n))
		}
		if r := limits[n]; v < r[0] || v > r[1] {
			return usage.Errorf("--%s %d: want a number from %d to %d (see -h)", n, v, r[0], r[1])
		}
	}
	return nil
}

// unsetOnResume runs, for each flag not given on the command line, its
// function, which sets the option to "not given" (the checkpoint's value
// on --resume).
func unsetOnResume(fs *flag.FlagSet, unset map[string]func()) {
	for name, f := range unset {
		if !flagGiven(fs, name) {
			f()
		}
	}
}

// orString is s, or def where s is empty (a value the checkpoint does not
// record).
func orString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// flagGiven reports whether the flag was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// multiFlag is a repeatable string flag: each use adds a value.
type multiFlag []string

func (m *multiFlag) String() string     { return fmt.Sprint(*m) }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }
