package scnn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
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

// allocDuring is the bytes f allocates (TotalAlloc, which a collection
// does not lower).
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// headersOnly is a parameter file whose arrays declare shapes but hold
// no values, with a valid checksum: what a corrupt or hostile file
// declaring huge arrays looks like.
func headersOnly(record []byte, shapes []ParamShape) []byte {
	b := []byte(paramsMagic)
	b = binary.LittleEndian.AppendUint32(b, ParamsVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(record)))
	b = append(b, record...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(shapes)))
	for _, s := range shapes {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(s.Name)))
		b = append(b, s.Name...)
		b = append(b, 1, byte(len(s.Shape)))
		for _, d := range s.Shape {
			b = binary.LittleEndian.AppendUint32(b, uint32(d))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// readers gives data through each kind of reader ReadParams tells the
// size of, and through one it cannot (opaque).
func readers(t *testing.T, data []byte) map[string]func() io.Reader {
	path := filepath.Join(t.TempDir(), "p.scnn")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var files []*os.File
	t.Cleanup(func() {
		for _, f := range files {
			f.Close()
		}
	})
	return map[string]func() io.Reader{
		"bytes.Reader":   func() io.Reader { return bytes.NewReader(data) },
		"bytes.Buffer":   func() io.Reader { return bytes.NewBuffer(data) },
		"strings.Reader": func() io.Reader { return strings.NewReader(string(data)) },
		"LimitedReader":  func() io.Reader { return io.LimitReader(bytes.NewReader(data), int64(len(data))) },
		"os.File": func() io.Reader {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
			return f
		},
		"opaque": func() io.Reader { return struct{ io.Reader }{bytes.NewReader(data)} },
	}
}

// A file whose arrays declare more values than it holds is refused
// having allocated about its size: where the reader's size is known,
// before anything is allocated for the values, naming the array, its
// shape and the bytes left; otherwise at its end. An array count and a
// record length beyond the file are refused the same way.
func TestReadParamsHugeDeclaredShapes(t *testing.T) {
	const limit = 1 << 20
	huge := []ParamShape{{"block1.k5.R", []int{15, 4096, 1024}}, {"block1.k5.b", []int{1024}}} // 63M values, 252 MB
	data := headersOnly([]byte(`{"kind":"scnn"}`), huge)
	for what, r := range readers(t, data) {
		for _, expect := range []func([]byte) ([]ParamShape, error){nil, func([]byte) ([]ParamShape, error) { return huge, nil }} {
			var err error
			n := allocDuring(func() { _, _, err = ReadParamsExpect(r(), expect) })
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "block1.k5.R") {
				t.Errorf("%s: %v, want ErrCorrupt naming block1.k5.R", what, err)
			}
			if what != "opaque" && !strings.Contains(err.Error(), `"block1.k5.R" of shape [15 4096 1024]: 62914560 values (251658240 bytes) and the checksum, but 23 bytes are left in the file`) {
				t.Errorf("%s: %v, want the shape and the bytes left", what, err)
			}
			if n > limit {
				t.Errorf("%s: a %d-byte file allocated %d bytes before it was refused (at most %d)", what, len(data), n, limit)
			}
		}
	}
	// An array count and a record length beyond the file.
	good := headersOnly([]byte("{}"), []ParamShape{{"w", []int{1}}})
	count := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(count[18:], 0xffffffff)
	arch := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(arch[12:], 1<<20)
	for _, c := range []struct {
		data []byte
		want string
	}{{count, "4294967295 arrays"}, {arch, "an architecture record of 1048576 bytes"}} {
		var err error
		n := allocDuring(func() { _, _, err = ReadParams(bytes.NewReader(c.data)) })
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "left in the file") {
			t.Errorf("%v, want ErrCorrupt saying %q", err, c.want)
		}
		if n > limit {
			t.Errorf("%q: allocated %d bytes", c.want, n)
		}
	}
}

// Every kind of reader reads a file the same.
func TestReadParamsEveryReader(t *testing.T) {
	ps := []*Param{
		{Name: "w", Shape: []int{2, 3}, Value: []float32{1, 2, 3, 4, 5, 6}, Trainable: true, Decay: true},
		{Name: "b", Shape: []int{3}, Value: make([]float32, 3), Trainable: true},
		{Name: "big", Shape: []int{3, chunkValues}, Value: make([]float32, 3*chunkValues)}, // read in chunks
	}
	for i := range ps[2].Value {
		ps[2].Value[i] = float32(i)
	}
	var buf bytes.Buffer
	if err := WriteParams(&buf, []byte("{}"), ps); err != nil {
		t.Fatal(err)
	}
	want := ShapesOf(ps)
	for what, r := range readers(t, buf.Bytes()) {
		arch, arrays, err := ReadParamsExpect(r(), func([]byte) ([]ParamShape, error) { return want, nil })
		if err != nil || string(arch) != "{}" || len(arrays) != len(ps) {
			t.Fatalf("%s: %v", what, err)
		}
		for i, a := range arrays {
			p := ps[i]
			if a.Name != p.Name || !reflect.DeepEqual(a.Shape, p.Shape) || !slices.Equal(a.Values, p.Value) || a.Trainable != p.Trainable || a.Decay != p.Decay {
				t.Errorf("%s: array %d read as %s %v", what, i, a.Name, a.Shape)
			}
		}
	}
}

// ReadParamsExpect checks each array against the model the record
// describes before reading its values, naming it and both shapes; a
// record error is returned as it is; a damaged file says so first.
func TestReadParamsExpect(t *testing.T) {
	ps := []*Param{
		{Name: "w", Shape: []int{2, 3}, Value: []float32{1, 2, 3, 4, 5, 6}},
		{Name: "b", Shape: []int{3}, Value: []float32{1, 2, 3}},
	}
	file := func(ps ...*Param) []byte {
		var buf bytes.Buffer
		if err := WriteParams(&buf, []byte("{}"), ps); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	model := func(shapes ...ParamShape) func([]byte) ([]ParamShape, error) {
		return func([]byte) ([]ParamShape, error) { return shapes, nil }
	}
	w, b := ParamShape{"w", []int{2, 3}}, ParamShape{"b", []int{3}}
	recErr := errors.New("record: kind \"rnn\"")
	for _, c := range []struct {
		name   string
		data   []byte
		expect func([]byte) ([]ParamShape, error)
		want   string // "" loads
	}{
		{"same", file(ps...), model(w, b), ""},
		{"any order", file(ps...), model(b, w), ""},
		{"wider", file(ps...), model(ParamShape{"w", []int{2, 1 << 24}}, b), `array "w": file shape [2 3], model shape [2 16777216]`},
		{"rank", file(ps...), model(ParamShape{"w", []int{6}}, b), `array "w": file shape [2 3], model shape [6]`},
		{"extra", file(ps...), model(w), `array "b" (shape [3]) is not a param of the model`},
		{"missing", file(ps[0]), model(w, b), `param "b" (shape [3]) of the model the record describes is missing`},
		{"twice", file(ps[0], ps[0]), model(w), `array "w" appears twice`},
		{"record", file(ps...), func([]byte) ([]ParamShape, error) { return nil, recErr }, recErr.Error()},
	} {
		_, arrays, err := ReadParamsExpect(bytes.NewReader(c.data), c.expect)
		switch {
		case c.want == "" && (err != nil || len(arrays) != 2):
			t.Errorf("%s: %v", c.name, err)
		case c.want == "":
		case c.name == "record" && err != recErr:
			t.Errorf("%s: %v, want expect's error as it is", c.name, err)
		case c.name != "record" && (!errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want ErrMismatch saying %s", c.name, err, c.want)
		}
		if c.want == "" {
			continue
		}
		// The same file damaged (a value's byte, before the checksum)
		// reports the damage, not what the damage may have caused.
		bad := append([]byte(nil), c.data...)
		bad[len(bad)-5] ^= 0x40
		if _, _, err := ReadParamsExpect(bytes.NewReader(bad), c.expect); !errors.Is(err, ErrChecksum) {
			t.Errorf("%s, damaged: %v, want ErrChecksum", c.name, err)
		}
	}
}
