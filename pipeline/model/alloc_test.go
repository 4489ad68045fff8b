package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/scnn"
	"github.com/contactmap/contactmap/scnn/scnntest"
)

// A model file whose record describes a large network but which holds
// the tiny model's arrays, or none, or the large network's headers
// without their values, is refused having allocated about its own size:
// a 262-byte file whose record asks for a 33M-parameter network (within
// the bounds) allocated 266 MB, the network's parameters and gradients,
// before its arrays were found not to match. The error names the file and
// the array, with its shape in the file and in the record's network.
func TestReadModelChecksShapesBeforeAllocating(t *testing.T) {
	const limit = 1 << 20
	tiny, err := NewModel(tinyArch(), 1)
	if err != nil {
		t.Fatal(err)
	}
	record := func(a Arch) []byte {
		a.Format = Format
		if err := a.Check(); err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(a)
		return js
	}
	file := func(rec []byte, params []*scnn.Param) []byte {
		var buf bytes.Buffer
		if err := scnn.WriteParams(&buf, rec, params); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	// huge: 33M parameters; wide: 17M, with the tiny model's names up to
	// its first block.
	huge, wide := tinyArch(), tinyArch()
	huge.Blocks, huge.Width, huge.Head, huge.HeadWidth = [][]int{{13}}, 600, []int{13, 1}, 600
	wide.Width, wide.Head, wide.HeadWidth = 4096, []int{1, 1}, 4096
	// A tiny model file with its first block's width declared 4096 (the
	// record unchanged): the bytes mutated, the checksum made valid.
	mutated := file(record(tiny.Arch), tiny.Params())
	at := bytes.Index(mutated, []byte("block1.k1.R")) + len("block1.k1.R") + 2 + 8 // flags, rank, two dimensions
	binary.LittleEndian.PutUint32(mutated[at:], 4096)
	binary.LittleEndian.PutUint32(mutated[len(mutated)-4:], crc32.ChecksumIEEE(mutated[:len(mutated)-4]))
	// The largest array of the huge network, declared and not there.
	var largest scnn.ParamShape
	for _, s := range huge.Spec().ParamShapes() {
		if s.Len() > largest.Len() {
			largest = s
		}
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"huge, no arrays", file(record(huge), nil), `param "pair.S" (shape [1 2 4]) of the model the record describes is missing`},
		{"huge, tiny arrays", file(record(huge), tiny.Params()), `array "block1.k1.R" (shape [1 5 1]) is not a param of the model`},
		{"wide, tiny arrays", file(record(wide), tiny.Params()), `array "block1.k1.R": file shape [1 5 1], model shape [1 5 4096]`},
		{"huge, headers only", scnntest.HeadersOnly(record(huge), []scnn.ParamShape{largest}), `array "head1.k13.R" of shape [91 605 600]: 33033000 values (132132000 bytes) and the checksum, but 4 bytes are left in the file`},
		{"mutated dimension", mutated, `array "block1.k1.R": file shape [1 5 4096], model shape [1 5 1]`},
	} {
		for _, sized := range []bool{true, false} {
			var r io.Reader = bytes.NewReader(c.data)
			if !sized {
				r = struct{ io.Reader }{r} // a reader of unknown size
			}
			var err error
			n := scnntest.AllocDuring(func() { _, err = ReadModel(r, "runs/x/model.scnn") })
			switch {
			case err == nil:
				t.Errorf("%s: loaded", c.name)
			case !strings.Contains(err.Error(), "runs/x/model.scnn"):
				t.Errorf("%s: %v does not name the file", c.name, err)
			case sized || !strings.Contains(c.name, "headers only"):
				if !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: %v, want %q", c.name, err, c.want)
				}
			case !errors.Is(err, scnn.ErrCorrupt): // values missing at the end of the input
				t.Errorf("%s, size unknown: %v, want ErrCorrupt", c.name, err)
			}
			t.Logf("%s (size known %v): %d-byte file, %d bytes allocated: %v", c.name, sized, len(c.data), n, err)
			if n > limit {
				t.Errorf("%s (size known %v): a %d-byte file allocated %d bytes before it was refused (at most %d)", c.name, sized, len(c.data), n, limit)
			}
		}
	}
	// The tiny model's file still loads, both ways.
	for _, r := range []io.Reader{bytes.NewReader(file(record(tiny.Arch), tiny.Params())), struct{ io.Reader }{bytes.NewReader(file(record(tiny.Arch), tiny.Params()))}} {
		if _, err := ReadModel(r, "tiny.scnn"); err != nil {
			t.Fatal(err)
		}
	}
}
