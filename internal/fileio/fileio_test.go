package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// compressed returns data as a gzip and a zstd stream.
func compressed(data []byte) (gz, zs []byte) {
	var g, z bytes.Buffer
	gw := gzip.NewWriter(&g)
	gw.Write(data)
	gw.Close()
	zw, _ := zstd.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	return g.Bytes(), z.Bytes()
}

func TestNewReaderDetectsCompression(t *testing.T) {
	want := []byte("HEADER    test\nATOM ...\n")
	gz, zs := compressed(want)
	for name, in := range map[string][]byte{"plain": want, "gzip": gz, "zstd": zs} {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := WriteAtomic(p, func(w io.Writer) error { _, err := io.WriteString(w, "old"); return err }); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	// A failing writer leaves the old file and no temporary file.
	boom := errors.New("boom")
	err := WriteAtomic(p, func(w io.Writer) error { io.WriteString(w, "partial new content"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("file is %q after a failed write", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries left in the directory", len(ents))
	}
}

// A gzip or zstd file cut short says it is truncated.
func TestTruncatedCompressedInput(t *testing.T) {
	want := bytes.Repeat([]byte("ATOM      1  N   MET A   1      27.340  24.430   2.614  1.00  9.67           N\n"), 200)
	gz, zs := compressed(want)
	for name, in := range map[string][]byte{"gzip": gz, "zstd": zs} {
		for _, cut := range []int{len(in) / 2, len(in) - 3, 5} {
			r, err := NewReader(bytes.NewReader(in[:cut]))
			if err == nil {
				_, err = io.ReadAll(r)
			}
			if !errors.Is(err, ErrTruncated) {
				t.Errorf("%s cut at %d of %d: %v, want ErrTruncated", name, cut, len(in), err)
			}
		}
	}
}

// RemoveStaleTemps removes what a killed WriteAtomic left, and nothing else.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{".1ABC_A.feat.zst.tmp123", ".1ABC_A.feat.zst.tmp9", "1ABC_A.feat.zst", ".1ABC_B.feat.zst.tmp1", "x.tmp1"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	if err := RemoveStaleTemps(dir, "1ABC_A.feat.zst"); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	hidden, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 3 || len(hidden) != 1 || filepath.Base(hidden[0]) != ".1ABC_B.feat.zst.tmp1" {
		t.Errorf("left %v %v", left, hidden)
	}
}

// RemoveLiveTemps removes the temporary file of a WriteAtomic still
// writing, and the write then fails rather than renaming a part.
func TestRemoveLiveTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- WriteAtomic(path, func(w io.Writer) error {
			io.WriteString(w, "part")
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("%d files while writing, want the temporary one", len(entries))
	}
	RemoveLiveTemps()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left after RemoveLiveTemps: %v", entries)
	}
	close(release)
	if err := <-done; err == nil {
		t.Error("the write of a removed temporary file succeeded")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a part was renamed into place: %v", err)
	}
}

func TestCheckDirPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{dir, ""},
		{filepath.Join(dir, "new", "sub"), ""},
		{file, file + ": not a directory"},
		{filepath.Join(file, "sub"), filepath.Join(file, "sub") + ": " + file + " is a file, not a directory"},
	} {
		err := CheckDirPath(c.path)
		if got := fmt.Sprint(err); c.want == "" && err != nil || c.want != "" && got != c.want {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
}
