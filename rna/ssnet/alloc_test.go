package ssnet

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/scnntest"
)

// An RNA model file whose record describes a large network (50M
// parameters, within the bounds) but which holds the tiny network's
// arrays, or none, or the large network's largest header without its
// values, is refused having allocated about its own size (a 358-byte file
// allocated 403 MB), naming the file and the array with both shapes.
func TestReadModelChecksShapesBeforeAllocating(t *testing.T) {
	const limit = 1 << 20
	tiny := tinyModel(t)
	rec := tiny.Record
	rec.Spec.Pair.Width = 4096
	rec.Spec.Blocks = []pairnet.Block{pairnet.Uniform(4096, 1), pairnet.Uniform(4096, 1), pairnet.Uniform(4096, 1)}
	if err := rec.Spec.Check(); err != nil {
		t.Fatal(err)
	}
	huge, _ := json.Marshal(rec)
	var largest scnn.ParamShape
	for _, s := range rec.Spec.ParamShapes() {
		if s.Len() > largest.Len() {
			largest = s
		}
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"no arrays", modelFile(t, huge, nil), `param "pair.S" (shape [1 5 4096]) of the model the record describes is missing`},
		{"tiny arrays", modelFile(t, huge, tiny.Net.Params()), `array "pair.S": file shape [1 5 2], model shape [1 5 4096]`},
		{"headers only", scnntest.HeadersOnly(huge, []scnn.ParamShape{largest}), `array "block1.k1.R" of shape [1 4096 4096]: 16777216 values (67108864 bytes) and the checksum, but 4 bytes are left in the file`},
	} {
		for _, sized := range []bool{true, false} {
			var r io.Reader = bytes.NewReader(c.data)
			if !sized {
				r = struct{ io.Reader }{r} // a reader of unknown size
			}
			var err error
			n := scnntest.AllocDuring(func() { _, err = ReadModel(r, "runs/rna/m.scnn") })
			t.Logf("%s (size known %v): %d-byte file, %d bytes allocated: %v", c.name, sized, len(c.data), n, err)
			switch {
			case err == nil:
				t.Errorf("%s: loaded", c.name)
			case !strings.Contains(err.Error(), "runs/rna/m.scnn"):
				t.Errorf("%s: %v does not name the file", c.name, err)
			case sized || c.name != "headers only":
				if !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: %v, want %q", c.name, err, c.want)
				}
			case !errors.Is(err, scnn.ErrCorrupt): // values missing at the end of the input
				t.Errorf("%s, size unknown: %v, want ErrCorrupt", c.name, err)
			}
			if n > limit {
				t.Errorf("%s (size known %v): a %d-byte file allocated %d bytes before it was refused (at most %d)", c.name, sized, len(c.data), n, limit)
			}
		}
	}
	js, _ := json.Marshal(tiny.Record)
	if _, err := ReadModel(bytes.NewReader(modelFile(t, js, tiny.Net.Params())), "tiny.scnn"); err != nil {
		t.Fatal(err)
	}
}
