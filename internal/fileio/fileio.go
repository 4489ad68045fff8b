// Package fileio opens plain, gzip- or zstd-compressed input by content and
// writes outputs atomically (temp file + rename).
package fileio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// ErrTruncated reports compressed input that ends before its end marker
// (a partial download or copy).
var ErrTruncated = errors.New("truncated: the compressed data ends early")

// truncation turns a decompressor's io.ErrUnexpectedEOF into ErrTruncated.
type truncation struct {
	io.ReadCloser
	format string
}

func (t truncation) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("%s: %w", t.format, ErrTruncated)
	}
	return n, err
}

// NewReader returns a reader of r's content, decompressing gzip or zstd
// when the stream starts with their magic numbers. Compressed input that
// ends early gives an error wrapping ErrTruncated.
func NewReader(r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		z, err := gzip.NewReader(br)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = fmt.Errorf("gzip: %w", ErrTruncated)
			}
			return nil, err
		}
		return truncation{z, "gzip"}, nil
	case bytes.HasPrefix(head, zstdMagic):
		d, err := zstd.NewReader(br)
		if err != nil {
			return nil, err
		}
		return truncation{d.IOReadCloser(), "zstd"}, nil
	}
	return io.NopCloser(br), nil
}

// RemoveStaleTemps removes the temporary files that WriteAtomic leaves in
// dir when its process is killed (.NAME.tmpNNN) for the given file names,
// reading the directory once. Call it only where no other process is
// writing those files at the same time.
func RemoveStaleTemps(dir string, names ...string) error {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		base, ok := TempOf(e.Name())
		if !ok || !want[base] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// TempOf returns NAME for a WriteAtomic temporary file name .NAME.tmpNNN.
func TempOf(file string) (string, bool) {
	rest, ok := strings.CutPrefix(file, ".")
	k := strings.LastIndex(rest, ".tmp")
	if !ok || k < 0 {
		return "", false
	}
	digits := rest[k+len(".tmp"):]
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return rest[:k], digits != ""
}

type fileReader struct {
	io.ReadCloser
	f *os.File
}

func (r fileReader) Close() error {
	err := r.ReadCloser.Close()
	if e := r.f.Close(); err == nil {
		err = e
	}
	return err
}

// Open opens a file for reading, decompressing it if needed.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fileReader{r, f}, nil
}

// live holds the temporary files WriteAtomic is writing.
var live sync.Map

// RemoveLiveTemps removes the temporary files WriteAtomic calls of this
// process are writing: the cleanup of a process that must exit at once
// (a forced stop after SIGINT), so that no part of a file is left.
func RemoveLiveTemps() {
	live.Range(func(k, _ any) bool {
		os.Remove(k.(string))
		return true
	})
}

// WriteAtomic writes path by calling write on a temporary file in the same
// directory, syncing it and renaming it over path: readers see the old
// file or the complete new one, never a part.
func WriteAtomic(path string, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	live.Store(tmp.Name(), true)
	defer live.Delete(tmp.Name())
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	// CreateTemp makes the file 0600; outputs are meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// CheckWritable creates dir if needed and checks that a file can be
// created in it, so that a run fails before its work, not after.
func CheckWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".write-check*")
	if err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// CheckDirPath reports whether dir can be a directory: nil when it is
// one, or when it does not exist and no file lies in its path; else an
// error naming dir, and the file in the way where that is above dir
// ("out/sub: out is a file, not a directory").
func CheckDirPath(dir string) error {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil {
			if st.IsDir() {
				return nil
			}
			if d == filepath.Clean(dir) {
				return fmt.Errorf("%s: not a directory", dir)
			}
			return fmt.Errorf("%s: %s is a file, not a directory", dir, d)
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}
