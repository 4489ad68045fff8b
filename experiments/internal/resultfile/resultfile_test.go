package resultfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.md")
	if err := Write(path, func(w io.Writer) error { _, err := fmt.Fprint(w, "one"); return err }); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("render failed")
	if err := Write(path, func(w io.Writer) error { fmt.Fprint(w, "half"); return bad }); !errors.Is(err, bad) {
		t.Fatalf("err = %v, want the render's", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "one" {
		t.Errorf("after a failed render the file holds %q, want the previous %q", b, "one")
	}
}
