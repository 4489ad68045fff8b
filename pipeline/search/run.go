package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/outset"
	"github.com/contactmap/contactmap/internal/runsummary"
)

// Config is a run of searches.
type Config struct {
	Out     string // output directory
	Format  string // one of Formats; "" is a3m
	Force   bool   // redo queries whose alignment exists
	Workers int    // queries searched at once; 0 is 1
	Filter  Filter
	// Threads for the Neff computation; 0 is GOMAXPROCS.
	Threads int
}

// Job is one query of a run.
type Job struct {
	Name string // base name of its outputs in Config.Out (unique in the run)
	ID   string // the query's name, as the input gives it
	Arg  string // the input it came from
	Seq  string
	Err  error // an input that gives no query: listed as failed
}

// Statuses of a Result.
const (
	StatusOK      = "ok"
	StatusSkipped = "skipped" // its alignment exists (Config.Force redoes it)
	StatusFailed  = "failed"
)

// Result is what became of a Job.
type Result struct {
	Job
	Status  string
	File    string  // the alignment (ok, skipped)
	Log     string  // the tool's output (ok, failed after the tool ran)
	L       int     // the query's length
	Depth   int     // rows of the alignment, the query's included (ok)
	NeffL   float64 // Neff at 80% identity over L (ok)
	Seconds float64 // wall time of the search, filter and output
	Err     error
}

// Path is the alignment file of a job in cfg.
func (cfg Config) Path(name string) string {
	f := cfg.Format
	if f == "" {
		f = "a3m"
	}
	return filepath.Join(cfg.Out, name+"."+f)
}

// Run searches every job with s, cfg.Workers at once, and writes each
// alignment (NAME.FORMAT) and the tool's output (NAME.log) to cfg.Out;
// onDone (may be nil) is called after each job, from one goroutine at a
// time. A job whose alignment exists is skipped unless cfg.Force. One
// job's failure does not stop the others; a cancelled ctx does: the jobs
// not finished come back with ctx's error.
func Run(ctx context.Context, s *Searcher, cfg Config, jobs []Job, onDone func(Result)) []Result {
	if cfg.Format == "" {
		cfg.Format = "a3m"
	}
	workers := max(cfg.Workers, 1)
	results := make([]Result, len(jobs))
	var mu sync.Mutex
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r := runOne(ctx, s, cfg, j)
			mu.Lock()
			results[i] = r
			if onDone != nil {
				onDone(r)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return results
}

func runOne(ctx context.Context, s *Searcher, cfg Config, j Job) Result {
	r := Result{Job: j, L: len(strings.TrimSpace(j.Seq)), Status: StatusFailed}
	if j.Err != nil {
		r.Err = j.Err
		return r
	}
	if err := ctx.Err(); err != nil {
		r.Err = err
		return r
	}
	path := cfg.Path(j.Name)
	if _, err := os.Stat(path); err == nil && !cfg.Force {
		r.Status, r.File = StatusSkipped, path
		return r
	}
	start := time.Now()
	var log bytes.Buffer
	fmt.Fprintf(&log, "# contactmap msa: %s (%s) against %s with %s, %s, %s\n", j.ID, j.Arg, s.opt.DB, s.version, s.Settings(), cfg.Filter)
	a, err := s.Search(ctx, Query{Name: j.ID, Seq: j.Seq}, &log)
	if err == nil {
		a = a.Apply(cfg.Filter)
		r.Depth, r.NeffL = a.N(), a.NeffPerL(cfg.Threads)
		err = outset.Write(ctx, []outset.File{{Path: path, Write: func(w io.Writer) error { return a.Write(w, cfg.Format) }}})
	}
	r.Seconds = time.Since(start).Seconds()
	if errors.Is(err, ErrQuery) {
		r.Err = err
		return r
	}
	if ctx.Err() != nil {
		r.Err = ctx.Err()
		return r
	}
	logPath := filepath.Join(cfg.Out, j.Name+".log")
	if lerr := fileio.WriteAtomic(logPath, func(w io.Writer) error { _, err := w.Write(log.Bytes()); return err }); lerr == nil {
		r.Log = logPath
	} else if err == nil {
		err = fmt.Errorf("log not written: %w", lerr)
	}
	if err != nil {
		if r.Log != "" {
			err = fmt.Errorf("%w (the tool's output: %s)", err, r.Log)
		}
		r.Err = err
		return r
	}
	r.Status, r.File = StatusOK, path
	return r
}

// Shard is the jobs of shard i of n: those whose index is i modulo n.
func Shard(jobs []Job, i, n int) []Job {
	var mine []Job
	for k, j := range jobs {
		if k%max(n, 1) == i {
			mine = append(mine, j)
		}
	}
	return mine
}

// Finished drops the results of the jobs an interrupt stopped
// (context.Canceled): they are not failures, and get no manifest row.
func Finished(results []Result) []Result {
	var kept []Result
	for _, r := range results {
		if !errors.Is(r.Err, context.Canceled) {
			kept = append(kept, r)
		}
	}
	return kept
}

// Report prints the results of a run: a line on errw for each query
// skipped (its alignment exists), and to w a table of those searched
// (query, length, depth, Neff/L, seconds, file; none when none was). It
// returns the failed queries, for the failure list
// (runsummary.ListFailures).
func Report(w, errw io.Writer, results []Result) (failed []runsummary.Failure) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	rows := 0
	for _, r := range results {
		switch r.Status {
		case StatusFailed:
			failed = append(failed, runsummary.Failure{Name: r.ID, Err: r.Err})
			continue
		case StatusSkipped:
			fmt.Fprintf(errw, "%s: %s exists: skipped (--force redoes it)\n", r.ID, r.File)
			continue
		}
		if rows == 0 {
			fmt.Fprintln(tw, "query\tlength\tdepth\tNeff/L\tseconds\tfile")
		}
		rows++
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.1f\t%s\n", r.ID, r.L, r.Depth, r.NeffL, r.Seconds, r.File)
	}
	tw.Flush()
	return failed
}

// ManifestFile is the path of a run's manifest in dir: manifest.tsv, or
// manifest.shard-i-of-n.tsv for shard i of n > 1.
func ManifestFile(dir string, shard, shards int) string {
	return runsummary.ShardFile(dir, ManifestName, shard, shards)
}

// ManifestName is the base name of a run's manifest in the output
// directory (manifest.tsv), which no query's outputs take.
const ManifestName = "manifest"

// ManifestHeader is the first line of manifest.tsv: a row per query.
const ManifestHeader = "query\tlength\tdepth\tneff_per_l\tstatus\ttool\tversion\tdatabase\tseconds\tsettings\tfile\terror"

// WriteManifest writes the results' rows to path (atomically), merged
// with a manifest already there: its rows of queries this run does not
// list stay, in their order, and so does the row of a query this run
// only skipped; the others are replaced, and new queries follow.
func WriteManifest(path string, s *Searcher, cfg Config, results []Result) error {
	clean := func(v string) string { return strings.Join(strings.Fields(v), " ") }
	line := func(r Result) string {
		depth, neff, secs := "-", "-", "-"
		if r.Status == StatusOK {
			depth, neff = strconv.Itoa(r.Depth), strconv.FormatFloat(r.NeffL, 'f', 3, 64)
		}
		if r.Seconds > 0 {
			secs = strconv.FormatFloat(r.Seconds, 'f', 1, 64)
		}
		l := "-"
		if r.L > 0 {
			l = strconv.Itoa(r.L)
		}
		file, msg := "-", ""
		if r.File != "" {
			file = filepath.Base(r.File)
		}
		if r.Err != nil {
			msg = clean(r.Err.Error())
		}
		db, _ := filepath.Abs(s.opt.DB)
		f := []string{clean(r.Name), l, depth, neff, r.Status, string(s.opt.Tool), clean(s.version), clean(db), secs, clean(s.Settings() + " " + cfg.Filter.String()), file, msg}
		return strings.Join(f, "\t")
	}
	rs := make([]fileio.TableRow, len(results))
	for i, r := range results {
		rs[i] = fileio.TableRow{Key: clean(r.Name), Line: line(r)}
	}
	// A query this run skipped (its alignment exists) keeps its row.
	skipped := map[string]bool{}
	for _, r := range results {
		if r.Status == StatusSkipped {
			skipped[clean(r.Name)] = true
		}
	}
	return fileio.WriteMergedTable(path, ManifestHeader, rs, func(_ []string, r fileio.TableRow) bool { return skipped[r.Key] })
}
