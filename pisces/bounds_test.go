package pisces

import (
	"errors"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/internal/fileio/fileiotest"
)

// TestBoundedInput: zeros and an endless line are refused after a
// bounded read, naming the file, the line and the bound.
func TestBoundedInput(t *testing.T) {
	zeros := &fileiotest.Endless{Fill: "\x00"}
	r := NewReader(zeros)
	r.Path = "zeros.txt"
	if _, err := r.ReadAll(); !errors.Is(err, fileio.ErrBinary) || err.Error() != "pisces: zeros.txt line 1: binary data, not a PISCES list" || zeros.N > 1<<16 {
		t.Errorf("zeros: %v after %d bytes", err, zeros.N)
	}
	long := &fileiotest.Endless{Prefix: strings.Join(header, " ") + "\n", Fill: "A"}
	r = NewReader(long)
	r.Path = "long.txt"
	if _, err := r.ReadAll(); !errors.Is(err, fileio.ErrTooLarge) || err.Error() != "pisces: long.txt line 2: line 2 longer than 1048576 bytes (the reader's bound)" || long.N > 2*MaxLine {
		t.Errorf("endless line: %v after %d bytes", err, long.N)
	}
}
