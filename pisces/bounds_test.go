package pisces

import (
	"errors"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/internal/fileio"
)

// endless gives prefix then endless bytes c, counting them.
type endless struct {
	prefix string
	c      byte
	read   int64
}

func (r *endless) Read(p []byte) (int, error) {
	n := copy(p, r.prefix)
	r.prefix = r.prefix[n:]
	for i := n; i < len(p); i++ {
		p[i] = r.c
	}
	r.read += int64(len(p))
	return len(p), nil
}

// TestBoundedInput: zeros and an endless line are refused after a
// bounded read, naming the file, the line and the bound.
func TestBoundedInput(t *testing.T) {
	zeros := &endless{c: 0}
	r := NewReader(zeros)
	r.Path = "zeros.txt"
	if _, err := r.ReadAll(); !errors.Is(err, fileio.ErrBinary) || err.Error() != "pisces: zeros.txt line 1: binary data, not a PISCES list" || zeros.read > 1<<16 {
		t.Errorf("zeros: %v after %d bytes", err, zeros.read)
	}
	long := &endless{prefix: strings.Join(header, " ") + "\n", c: 'A'}
	r = NewReader(long)
	r.Path = "long.txt"
	if _, err := r.ReadAll(); !errors.Is(err, fileio.ErrTooLarge) || err.Error() != "pisces: long.txt line 2: line 2 longer than 1048576 bytes (the reader's bound)" || long.read > 2*MaxLine {
		t.Errorf("endless line: %v after %d bytes", err, long.read)
	}
}
