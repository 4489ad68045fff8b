// Package freecontact runs Debian's freecontact (Kaján et al. 2014, "FreeContact:
// fast and free software for protein contact prediction from residue
// co-evolution", BMC Bioinformatics 15:85), the reference implementation of
// EVfold's mean-field DCA and of PSICOV that the experiments and the bench
// compare plmDCA with, and reads its output.
//
// freecontact reads a plain alignment on standard input, one aligned
// sequence per line, the query first, and writes one line per pair of
// columns, 1-based:
//
//	evfold: i a_i j a_j MI-score DI-score        (6 fields)
//	psicov: i a_i j a_j 0 score                   (6 fields)
//	        i j 0 8 score                         (5 fields, older versions)
//
// The last field is the pair's score; higher means more likely in contact.
package freecontact

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/contactmap/contactmap/experiments/internal/resultfile"
)

// Profiles are the parameter profiles (--parprof) the project runs by
// default: "evfold" (EVfold's mean-field DCA) and "psicov" (PSICOV as
// published: a graphical lasso whose regularisation is searched for a
// precision-matrix density of 0.03, a fit per step of the search). Known
// lists those and "psicov-sd", freecontact's "sensible default" PSICOV:
// one graphical-lasso fit at rho = 0.001 without the density search, many
// times faster.
var (
	Profiles = []string{"evfold", "psicov"}
	Known    = []string{"evfold", "psicov", "psicov-sd"}
)

// ErrNotInstalled is returned when no freecontact program is on the PATH.
var ErrNotInstalled = errors.New("freecontact: not installed (Debian: apt-get install freecontact)")

// ErrNotCached is returned (wrapped) by Stored where the cache holds no
// finished run.
var ErrNotCached = errors.New("freecontact: no finished run in the cache")

// ErrTimeLimit is returned (wrapped) when a run is stopped at its time
// limit, or a cached run was, under a limit at least as long.
var ErrTimeLimit = errors.New("freecontact: stopped at its time limit")

// Parse reads freecontact's output for an alignment of l columns into an
// l x l row-major score map, symmetric, 0 for pairs it does not list.
func Parse(out []byte, l int) ([]float64, error) {
	s := make([]float64, l*l)
	sc := bufio.NewScanner(bytes.NewReader(out))
	line, pairs := 0, 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		var jf int
		switch len(f) {
		case 0:
			continue
		case 6:
			jf = 2
		case 5:
			jf = 1
		default:
			return nil, fmt.Errorf("freecontact: output line %d: %d fields, want 5 or 6: %q", line, len(f), sc.Text())
		}
		i, e1 := strconv.Atoi(f[0])
		j, e2 := strconv.Atoi(f[jf])
		v, e3 := strconv.ParseFloat(f[len(f)-1], 64)
		if err := errors.Join(e1, e2, e3); err != nil {
			return nil, fmt.Errorf("freecontact: output line %d: %w", line, err)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("freecontact: output line %d: score %q is not a finite number", line, f[len(f)-1])
		}
		if i < 1 || j < 1 || i > l || j > l || i == j {
			return nil, fmt.Errorf("freecontact: output line %d: pair (%d, %d) outside 1..%d or on the diagonal", line, i, j, l)
		}
		s[(i-1)*l+j-1], s[(j-1)*l+i-1] = v, v
		pairs++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("freecontact: output: %w", err)
	}
	if pairs == 0 {
		return nil, errors.New("freecontact: no pairs in its output")
	}
	return s, nil
}

// Run runs freecontact --parprof profile --threads threads on the
// alignment rows (the query first, all of one length) and returns its
// scores (Parse) and its wall time.
func Run(rows []string, profile string, threads int) ([]float64, time.Duration, error) {
	out, d, err := run(rows, profile, threads, 0)
	if err != nil {
		return nil, 0, err
	}
	s, err := Parse(out, len(rows[0]))
	return s, d, err
}

// run runs freecontact and returns its output and wall time; a limit
// above 0 kills it at that wall time (ErrTimeLimit) and lifts
// freecontact's own time limit on the PSICOV mode's estimation above it.
// Without a limit, freecontact's default (1800 s) holds.
func run(rows []string, profile string, threads int, limit time.Duration) ([]byte, time.Duration, error) {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, 0, errors.New("freecontact: an empty alignment")
	}
	bin, err := exec.LookPath("freecontact")
	if err != nil {
		return nil, 0, ErrNotInstalled
	}
	ctx := context.Background()
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	args := []string{"--parprof", profile, "--threads", strconv.Itoa(threads)}
	if limit > 0 {
		// freecontact stops its inverse covariance estimation (the PSICOV
		// mode's graphical lasso) after --icme-timeout seconds, 1800 by
		// default, and fails; under a limit of ours, that limit governs.
		args = append(args, "--icme-timeout", strconv.Itoa(int(math.Ceil(limit.Seconds()))+60))
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 5 * time.Second // after the kill, stop waiting for its output pipes
	cmd.Stdin = strings.NewReader(strings.Join(rows, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil {
		// Stopped at the limit: the deadline passed and the process was
		// killed, not one that failed on its own just before it.
		if ctx.Err() == context.DeadlineExceeded && cmd.ProcessState != nil && !cmd.ProcessState.Exited() {
			return nil, d, fmt.Errorf("freecontact --parprof %s: %w (%s)", profile, ErrTimeLimit, limit)
		}
		return nil, 0, fmt.Errorf("freecontact --parprof %s: %w: %s", profile, err, strings.TrimSpace(stderr.String()))
	}
	return out, d, nil
}

// Cached is Run with its output kept in dir as <key>.<profile>.out (and the
// wall time of the run that wrote it in .seconds): a later call with the
// same key reads the file and runs nothing. key names the alignment; the
// caller keeps keys unique.
//
// A limit above 0 bounds the run's wall time. A run stopped there leaves
// <key>.<profile>.timeout holding the limit in seconds (to the
// millisecond), and later calls with a limit no longer than that return
// ErrTimeLimit at once; a longer limit, or none (0), runs it again.
func Cached(dir, key string, rows []string, profile string, threads int, limit time.Duration) ([]float64, time.Duration, error) {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, 0, errors.New("freecontact: an empty alignment")
	}
	s, d, err := Stored(dir, key, len(rows[0]), profile)
	if err == nil || !errors.Is(err, ErrNotCached) && !errors.Is(err, ErrTimeLimit) {
		return s, d, err
	}
	outPath := filepath.Join(dir, key+"."+profile+".out")
	limitPath := filepath.Join(dir, key+"."+profile+".timeout")
	if b, err := os.ReadFile(limitPath); err == nil && limit > 0 {
		secs, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil {
			return nil, 0, fmt.Errorf("freecontact: %s: %w", limitPath, err)
		}
		// Kept to the millisecond (3 decimals), compared so.
		was := time.Duration(math.Round(secs*1000)) * time.Millisecond
		if limit.Round(time.Millisecond) <= was {
			return nil, 0, fmt.Errorf("freecontact --parprof %s: %w (%s, in an earlier run: %s)", profile, ErrTimeLimit, was, limitPath)
		}
	}
	out, d, err := run(rows, profile, threads, limit)
	if err != nil {
		if errors.Is(err, ErrTimeLimit) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, 0, err
			}
			if werr := os.WriteFile(limitPath, []byte(strconv.FormatFloat(limit.Seconds(), 'f', 3, 64)+"\n"), 0o644); werr != nil {
				return nil, 0, errors.Join(err, werr)
			}
		}
		return nil, 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	// .seconds marks a finished run: written last, each file whole.
	if err := os.Remove(outPath + ".seconds"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, 0, err
	}
	write := func(path string, b []byte) error {
		return resultfile.Write(path, func(w io.Writer) error {
			_, err := w.Write(b)
			return err
		})
	}
	if err := write(outPath, out); err != nil {
		return nil, 0, err
	}
	if err := write(outPath+".seconds", []byte(strconv.FormatFloat(d.Seconds(), 'f', 3, 64)+"\n")); err != nil {
		return nil, 0, err
	}
	if err := os.Remove(limitPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, 0, err
	}
	if s, err = Parse(out, len(rows[0])); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", outPath, err)
	}
	return s, d, nil
}

// Stored reads what Cached keeps for key and profile (an alignment of l
// columns) and runs nothing: the scores and the wall time of the run that
// wrote them; ErrTimeLimit (wrapped) where the last run was stopped at its
// limit; ErrNotCached where there is neither.
func Stored(dir, key string, l int, profile string) ([]float64, time.Duration, error) {
	outPath := filepath.Join(dir, key+"."+profile+".out")
	out, err1 := os.ReadFile(outPath)
	t, err2 := os.ReadFile(outPath + ".seconds")
	if err1 != nil || err2 != nil {
		if b, err := os.ReadFile(filepath.Join(dir, key+"."+profile+".timeout")); err == nil {
			return nil, 0, fmt.Errorf("freecontact --parprof %s: %w (%s s, in an earlier run)", profile, ErrTimeLimit, strings.TrimSpace(string(b)))
		}
		return nil, 0, fmt.Errorf("%s: %w", outPath, ErrNotCached)
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(string(t)), 64)
	if err != nil {
		return nil, 0, fmt.Errorf("freecontact: %s.seconds: %w", outPath, err)
	}
	s, err := Parse(out, l)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", outPath, err)
	}
	return s, time.Duration(secs * float64(time.Second)), nil
}
