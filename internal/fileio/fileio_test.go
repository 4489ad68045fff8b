package fileio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func TestNewReaderDetectsCompression(t *testing.T) {
	want := []byte("HEADER    test\nATOM ...\n")
	var gz, zs bytes.Buffer
	g := gzip.NewWriter(&gz)
	g.Write(want)
	g.Close()
	z, _ := zstd.NewWriter(&zs)
	z.Write(want)
	z.Close()
	for name, in := range map[string][]byte{"plain": want, "gzip": gz.Bytes(), "zstd": zs.Bytes()} {
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
