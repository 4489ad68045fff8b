package rec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/scnntest"
)

// ParamShapes lists exactly the parameters NewModel builds, for both
// kinds and one to three blocks.
func TestParamShapesAreNewModels(t *testing.T) {
	for _, kind := range []scnn.Kind{CosRec, SCosRec} {
		for _, blocks := range [][]int{{2}, {3, 2}, {2, 4, 3}} {
			cfg := Config{Kind: kind, Users: 3, Items: 5, L: 7, D: 2, Blocks: blocks, FC: 3, Dropout: 0.5}
			m, err := NewModel(cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := cfg.ParamShapes(), scnn.ShapesOf(m.Params()); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %v:\nParamShapes %v\nNewModel's  %v", kind, blocks, got, want)
			}
		}
	}
}

// A recommendation model file whose record describes a large network (64M
// parameters, within the bounds) but which holds the tiny model's arrays,
// or none, or the large network's largest header without its values, is
// refused having allocated about its own size (a 229-byte file allocated
// 521 MB), naming the file and the array with both shapes.
func TestReadModelChecksShapesBeforeAllocating(t *testing.T) {
	const limit = 1 << 20
	tiny, rec := tinyRecord(t)
	big := rec
	big.Config.L, big.Config.D, big.Config.Blocks, big.Config.FC = 5, 1024, []int{2048, 2048}, 4096
	if err := big.Config.Check(); err != nil {
		t.Fatal(err)
	}
	huge, _ := json.Marshal(big)
	var largest scnn.ParamShape
	for _, s := range big.Config.ParamShapes() {
		if s.Len() > largest.Len() {
			largest = s
		}
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"no arrays", recordFile(t, big, nil), `param "user.W" (shape [2 1024]) of the model the record describes is missing`},
		{"tiny arrays", recordFile(t, big, tiny.Params()), `array "user.W": file shape [2 2], model shape [2 1024]`},
		{"headers only", scnntest.HeadersOnly(huge, []scnn.ParamShape{largest}), `array "block1.spconv3.R" of shape [6 2048 2048]: 25165824 values (100663296 bytes) and the checksum, but 4 bytes are left in the file`},
	} {
		for _, sized := range []bool{true, false} {
			var r io.Reader = bytes.NewReader(c.data)
			if !sized {
				r = struct{ io.Reader }{r} // a reader of unknown size
			}
			var err error
			n := scnntest.AllocDuring(func() { _, _, err = ReadModel(r, "runs/rec/model.scnn") })
			t.Logf("%s (size known %v): %d-byte file, %d bytes allocated: %v", c.name, sized, len(c.data), n, err)
			switch {
			case err == nil:
				t.Errorf("%s: loaded", c.name)
			case !strings.Contains(err.Error(), "runs/rec/model.scnn"):
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
	if _, _, err := ReadModel(bytes.NewReader(recordFile(t, rec, tiny.Params())), "tiny.scnn"); err != nil {
		t.Fatal(err)
	}
}
