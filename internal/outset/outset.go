// Package outset writes the output files of one item (a chain's RR,
// .npy and PNG; a molecule's BPSEQ, CT, dot-bracket, PNG and SVG) as a
// set: every file first to a temporary file beside it, then, once all are
// written, all renamed into place, so that an interrupt, a full disk or a
// failed writer leaves the old set whole and a reader never sees a
// mixture of old and new files. The temporary files are named for the
// process that writes them (.NAME.tmp-HOST-PID-N), so that cleaning up
// after killed runs (RemoveStale) never removes those of a run still
// writing into the same directory.
package outset

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contactmap/contactmap/internal/fileio"
)

// File is one file of a set: Write writes its content.
type File struct {
	Path  string
	Write func(w io.Writer) error
}

// Test hooks: the rename of the set's files, and this process's host and
// PID as temporary names carry them.
var (
	rename = os.Rename
	pid    = os.Getpid()
	host   = hostTag()
)

// hostTag is the host name as temporary names carry it: letters and
// digits, at most 12.
func hostTag() string {
	h, _ := os.Hostname()
	var b strings.Builder
	for _, c := range h {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			if b.Len() == 12 {
				break
			}
		}
	}
	if b.Len() == 0 {
		return "host"
	}
	return b.String()
}

// Kinds of the files this package leaves beside an output while it
// writes: the new content, and a link to the old one kept until the set is
// in place.
const (
	kindTemp   = "tmp"
	kindBackup = "old"
)

var counter atomic.Uint64

// wroteDirs are the directories Write has written to in this process.
var wroteDirs sync.Map

// RemoveOwnTemps removes this process's temporary files (not the links to
// old files that a set being renamed keeps) from every directory Write
// has written to: the cleanup of a process that must exit at once (a
// forced stop after SIGINT) and leave no part of an output behind.
func RemoveOwnTemps() {
	wroteDirs.Range(func(k, _ any) bool {
		dir := k.(string)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return true
		}
		for _, e := range entries {
			p, ok := parseOwn(e.Name())
			if ok && p.pid == pid && p.host == host && strings.Contains(e.Name(), "."+kindTemp+"-") {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
		return true
	})
}

// ownName returns the name of a file of this process's beside path:
// .NAME.KIND-HOST-PID-N.
func ownName(path, kind string) string {
	n := counter.Add(1)
	return filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%s-%s-%d-%d", filepath.Base(path), kind, host, pid, n))
}

// parsed is what a name of ownName's says.
type parsed struct {
	name string // the output's base name
	host string
	pid  int
}

// parseOwn reads a name of ownName's; ok is false for any other name.
func parseOwn(file string) (parsed, bool) {
	rest, ok := strings.CutPrefix(file, ".")
	if !ok {
		return parsed{}, false
	}
	// From the end: -N, -PID, -HOST, then .KIND.
	f := strings.Split(rest, "-")
	if len(f) < 4 {
		return parsed{}, false
	}
	n := len(f)
	if !digits(f[n-1]) || !digits(f[n-2]) {
		return parsed{}, false
	}
	p, err := strconv.Atoi(f[n-2])
	if err != nil || p <= 0 {
		return parsed{}, false
	}
	head := strings.Join(f[:n-3], "-") // NAME.KIND
	k := strings.LastIndexByte(head, '.')
	if k <= 0 {
		return parsed{}, false
	}
	if kind := head[k+1:]; kind != kindTemp && kind != kindBackup {
		return parsed{}, false
	}
	return parsed{name: head[:k], host: f[n-3], pid: p}, f[n-3] != ""
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ctxWriter fails writes once ctx is done, so that an interrupt stops a
// long output between two buffered blocks.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// writeTemp writes f to a new temporary file of this process's beside
// f.Path, synced and readable by all (0644), and returns its path; on
// failure it removes it.
func writeTemp(ctx context.Context, f File) (string, error) {
	name := ownName(f.Path, kindTemp)
	tmp, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		tmp.Close()
		os.Remove(name)
		return "", err
	}
	bw := bufio.NewWriterSize(ctxWriter{ctx, tmp}, 1<<16)
	if err := f.Write(bw); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	// Outputs are meant to be shared, whatever the umask.
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// Write writes files as a set. Each is written to a temporary file beside
// its path (through a writer that fails once ctx is done), synced; only
// when all are written are they renamed into place, under an exclusive
// lock on their directories, so that two processes replacing the same set
// do not interleave their renames. Should a rename fail, the files renamed
// before it get their old content back (kept as hard links until the set
// is in place) or are removed where there was none. On any failure or
// cancellation the temporary files are removed and the old files are
// left as they were; the error names the file.
func Write(ctx context.Context, files []File) error {
	for _, f := range files {
		wroteDirs.Store(filepath.Dir(f.Path), true)
	}
	temps := make([]string, 0, len(files))
	removeAll := func(names []string) {
		for _, n := range names {
			if n != "" {
				os.Remove(n)
			}
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			removeAll(temps)
			return fmt.Errorf("%s: not written: %w", f.Path, err)
		}
		name, err := writeTemp(ctx, f)
		if err != nil {
			removeAll(temps)
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		temps = append(temps, name)
	}
	var dirs []string
	for _, f := range files {
		dirs = append(dirs, filepath.Dir(f.Path))
	}
	slices.Sort(dirs)
	unlock := lockDirs(slices.Compact(dirs))
	defer unlock()
	// The old files, kept as links until the new set is in place.
	backups := make([]string, len(files))
	for i, f := range files {
		if _, err := os.Lstat(f.Path); err != nil {
			continue // none: a failed set removes the new one
		}
		b := ownName(f.Path, kindBackup)
		if err := os.Link(f.Path, b); err != nil {
			// No hard links here: a failed rename cannot restore it.
			backups[i] = "-"
			continue
		}
		backups[i] = b
	}
	for i, f := range files {
		if err := rename(temps[i], f.Path); err != nil {
			err = fmt.Errorf("%s: %w", f.Path, err)
			var lost []string
			for j := i - 1; j >= 0; j-- {
				switch p := files[j].Path; backups[j] {
				case "":
					if e := os.Remove(p); e != nil && !errors.Is(e, os.ErrNotExist) {
						lost = append(lost, p)
					}
				case "-":
					lost = append(lost, p)
				default:
					if e := os.Rename(backups[j], p); e != nil {
						lost = append(lost, p)
					} else {
						backups[j] = ""
					}
				}
			}
			removeAll(temps[i:])
			removeAll(dropMarks(backups))
			if len(lost) > 0 {
				slices.Reverse(lost)
				return fmt.Errorf("%w; %s now hold(s) the new content, the rest of the set the old", err, strings.Join(lost, ", "))
			}
			return fmt.Errorf("%w; the old files were restored", err)
		}
	}
	removeAll(dropMarks(backups))
	for _, d := range slices.Compact(dirs) {
		syncDir(d)
	}
	return nil
}

// dropMarks returns the backups that are files (not "" or "-").
func dropMarks(backups []string) []string {
	var out []string
	for _, b := range backups {
		if b != "" && b != "-" {
			out = append(out, b)
		}
	}
	return out
}

// syncDir makes the renames in dir durable where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// LegacyAge is how old a temporary file without an owner
// (.NAME.tmpNNN, written by fileio.WriteAtomic, or one of another host's)
// must be, unmodified, before RemoveStale removes it: a writer keeps its
// file's modification time fresh.
const LegacyAge = 24 * time.Hour

// RemoveStale removes, in dir, the files this package leaves while it
// writes whose process is gone: those named for this host and a process
// that no longer runs, and those of another host unmodified for
// LegacyAge. With names, only those of the outputs named (base names),
// and also fileio.WriteAtomic's temporary files of those outputs
// (.NAME.tmpNNN), which name no process, when unmodified for LegacyAge;
// with none, every such file of this package's. A file of a live process
// (this one included) is never removed, so that runs writing into the
// same directory at the same time do not remove each other's files.
func RemoveStale(dir string, names ...string) error {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	now := time.Now()
	old := func(e os.DirEntry) bool {
		info, err := e.Info()
		return err == nil && now.Sub(info.ModTime()) > LegacyAge
	}
	for _, e := range entries {
		var stale bool
		if p, ok := parseOwn(e.Name()); ok {
			if len(names) > 0 && !want[p.name] {
				continue
			}
			if p.host == host {
				stale = !alive(p.pid)
			} else {
				stale = old(e)
			}
		} else if base, ok := fileio.TempOf(e.Name()); ok && want[base] {
			stale = old(e)
		}
		if !stale {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// SafeName turns an item's name (a chain's ID, a molecule's name) into
// the base name of its outputs: letters, digits and ".-_+" kept, anything
// else (path separators, spaces, control bytes) replaced by '_'; no
// leading '.', so ".." and hidden names cannot occur; an empty name
// becomes "unnamed"; at most 200 bytes. The protein and RNA outputs share
// the rule.
func SafeName(id string) string {
	b := []byte(id)
	if len(b) > 200 {
		b = b[:200]
	}
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '+' || c == '.'
		if !ok || c == '.' && i == 0 {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "unnamed"
	}
	return string(b)
}
