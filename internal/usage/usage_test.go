package usage

import (
	"errors"
	"io"
	"testing"
)

func TestErrorf(t *testing.T) {
	err := Errorf("--out %s: %w", "x", io.EOF)
	if err.Error() != "usage: --out x: EOF" || !errors.Is(err, Err) || !errors.Is(err, io.EOF) {
		t.Errorf("%v", err)
	}
}
