package scnn

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// A parameter file with a valid checksum but a NaN or infinite value is
// refused on reading, naming the array (it was read, and the model then
// predicted NaN everywhere).
func TestReadParamsRefusesNonFinite(t *testing.T) {
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		ps := []*Param{
			{Name: "ok", Shape: []int{2}, Value: []float32{1, 2}},
			{Name: "block1.k5.R", Shape: []int{3}, Value: []float32{0, v, 1}, Trainable: true},
		}
		var buf bytes.Buffer
		if err := WriteParams(&buf, []byte("{}"), ps); err != nil {
			t.Fatal(err)
		}
		_, _, err := ReadParams(&buf)
		if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), `"block1.k5.R" value 1`) {
			t.Errorf("value %v: %v, want ErrNonFinite naming block1.k5.R", v, err)
		}
	}
	// A damaged file says it is damaged, NaN or not.
	ps := []*Param{{Name: "w", Shape: []int{1}, Value: []float32{float32(math.NaN())}}}
	var buf bytes.Buffer
	if err := WriteParams(&buf, nil, ps); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	b[len(b)-1] ^= 1
	if _, _, err := ReadParams(bytes.NewReader(b)); !errors.Is(err, ErrChecksum) {
		t.Errorf("damaged file: %v, want ErrChecksum", err)
	}
}
