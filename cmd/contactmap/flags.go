package main

import (
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Ranges of numeric flags for checkRanges.
const (
	anyValue = ""     // any finite number
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
// a flag name to positive, atLeast1, nonNeg, fraction or anyValue. NaN
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
			return usageError("--%s %s: want at most %d (4 per CPU, at least 256; see -h)", n, f.Value.String(), workersCap)
		}
		if !ok {
			what := "a finite number"
			if want != anyValue {
				what = "a number " + want
				if want == fraction {
					what = "a number from 0 to 1"
				}
			}
			return usageError("--%s %s: want %s (see -h)", n, f.Value.String(), what)
		}
	}
	return nil
}

// badRuns collects the runs a comparison cannot read.
type badRuns []string

// add reports a run that cannot be read, naming it and the reason.
func (b *badRuns) add(cmd, run string, err error) {
	fmt.Fprintf(stderr, "contactmap %s: run %s cannot be read: %v\n", cmd, run, err)
	*b = append(*b, run)
}

// check fails when a run could not be read, unless skip: then the
// readable runs are compared.
func (b badRuns) check(skip bool) error {
	if len(b) == 0 {
		return nil
	}
	if skip {
		fmt.Fprintf(stderr, "left out %d run(s) that cannot be read: %s\n", len(b), strings.Join(b, " "))
		return nil
	}
	return fmt.Errorf("%d run(s) cannot be read (%s; see above): fix or remove them, or give --skip-bad to compare the others", len(b), strings.Join(b, " "))
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// skipped lists the inputs that failed, at the end of a run, and returns
// the command's error; nil when none failed.
func skipped(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "%d input(s) failed, skipped:\n", len(errs))
	for _, e := range errs {
		fmt.Fprintf(stderr, "  %v\n", e)
	}
	return fmt.Errorf("%d input(s) failed (listed above)", len(errs))
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

// count is "1 chain", "2 chains": n and the noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
