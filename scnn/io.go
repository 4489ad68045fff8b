package scnn

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
)

// Parameter file format, version 1. All integers are little-endian.
//
//	offset  size   field
//	0       8      magic "SCNNPRM\x00"
//	8       4      uint32 format version (1)
//	12      4      uint32 A, length of the architecture record
//	16      A      architecture record: bytes owned by the caller (the
//	               training pipeline writes JSON naming the model's layers
//	               and sizes), so a model file records its architecture
//	16+A    4      uint32 N, number of arrays
//	then N arrays, each:
//	        2      uint16 n, length of the name
//	        n      name, UTF-8 (e.g. "block1.k5.R", "bn3.running_var")
//	        1      uint8 flags: bit 0 trainable, bit 1 L2 decay
//	        1      uint8 rank r (1..8)
//	        4r     uint32 dimensions, each >= 1
//	        4V     float32 values (IEEE 754), V = product of dimensions,
//	               row-major
//	end     4      uint32 CRC-32 (IEEE) of every preceding byte
//
// A reader rejects a wrong magic, an unknown version, a truncated file, a
// checksum mismatch and a NaN or infinite value (with the array's name).
const (
	paramsMagic   = "SCNNPRM\x00"
	ParamsVersion = 1
	maxRank       = 8
	maxArrayLen   = 1 << 28 // values per array, a bound against corrupt headers
	maxArchLen    = 1 << 20
)

// Sentinel errors of ReadParams and AssignParams, wrapped with context.
var (
	ErrFormat    = errors.New("not an scnn parameter file")
	ErrVersion   = errors.New("unsupported parameter file version")
	ErrChecksum  = errors.New("parameter file checksum mismatch")
	ErrCorrupt   = errors.New("corrupt parameter file")
	ErrMismatch  = errors.New("parameters do not match the model")
	ErrNonFinite = errors.New("non-finite parameter value")
)

// Array is one named array read from a parameter file.
type Array struct {
	Name      string
	Trainable bool
	Decay     bool
	Shape     []int
	Values    []float32
}

// WriteParams writes arch and params in the format above.
func WriteParams(w io.Writer, arch []byte, params []*Param) error {
	if len(arch) > maxArchLen {
		return fmt.Errorf("scnn: architecture record of %d bytes exceeds %d", len(arch), maxArchLen)
	}
	h := crc32.NewIEEE()
	bw := bufio.NewWriter(io.MultiWriter(w, h))
	var buf [8]byte
	u32 := func(v uint32) { binary.LittleEndian.PutUint32(buf[:4], v); bw.Write(buf[:4]) }
	bw.WriteString(paramsMagic)
	u32(ParamsVersion)
	u32(uint32(len(arch)))
	bw.Write(arch)
	u32(uint32(len(params)))
	for _, p := range params {
		if len(p.Name) > math.MaxUint16 || len(p.Shape) < 1 || len(p.Shape) > maxRank {
			return fmt.Errorf("scnn: cannot write param %q with shape %v", p.Name, p.Shape)
		}
		binary.LittleEndian.PutUint16(buf[:2], uint16(len(p.Name)))
		bw.Write(buf[:2])
		bw.WriteString(p.Name)
		var flags byte
		if p.Trainable {
			flags |= 1
		}
		if p.Decay {
			flags |= 2
		}
		bw.WriteByte(flags)
		bw.WriteByte(byte(len(p.Shape)))
		n := 1
		for _, d := range p.Shape {
			u32(uint32(d))
			n *= d
		}
		if n != len(p.Value) {
			return fmt.Errorf("scnn: param %q: %d values for shape %v", p.Name, len(p.Value), p.Shape)
		}
		for _, v := range p.Value {
			u32(math.Float32bits(v))
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(buf[:4], h.Sum32())
	_, err := w.Write(buf[:4])
	return err
}

// ReadParams reads a parameter file: its architecture record and arrays.
//
// Where the size of what r holds is known (a *bytes.Reader,
// *bytes.Buffer, *strings.Reader or *io.LimitedReader, or a file, an
// *os.File or another fs.File of a regular file that seeks), every length
// the file declares (the record's, the array count, each name and each
// array's values) is checked against the bytes left before anything is
// allocated for it, and a corrupt length is refused naming what declared
// it. Otherwise an array's values are allocated as they are read, so that
// a corrupt length fails at the end of the input, having allocated about
// what the input held.
func ReadParams(r io.Reader) (arch []byte, arrays []Array, err error) {
	return ReadParamsExpect(r, nil)
}

// ReadParamsExpect reads a parameter file as ReadParams does, checking
// its arrays against the model its architecture record describes before
// allocating them: expect (nil: none) is called with the record as soon
// as it is read and returns the params of that model, their names and
// shapes in any order (the layers' ParamShapes), or an error, which
// ReadParamsExpect returns as it is. Each array's header is then checked
// against them before its values are read: an array the model has no
// param of, one of another shape (the error names the array, its shape in
// the file and in the model) and one read twice are refused, and so, at
// the end, is a param of the model the file lacks (ErrMismatch). So a
// small file whose record describes a large model fails having allocated
// about the file's size, never the model's.
//
// A damaged file says so: after any of these errors the rest of the file
// is read through, without keeping it, to its checksum, and a checksum
// that does not match is reported (ErrChecksum) instead.
func ReadParamsExpect(r io.Reader, expect func(arch []byte) ([]ParamShape, error)) (arch []byte, arrays []Array, err error) {
	p := &paramReader{br: bufio.NewReader(r), h: crc32.NewIEEE()}
	p.left, p.known = sizeLeft(r)
	if err := p.read(p.buf[:8], "magic"); err != nil {
		return nil, nil, fmt.Errorf("scnn: %w", ErrFormat)
	}
	if !bytes.Equal(p.buf[:8], []byte(paramsMagic)) {
		return nil, nil, fmt.Errorf("scnn: magic %q: %w", p.buf[:8], ErrFormat)
	}
	ver, err := p.u32("version")
	if err != nil {
		return nil, nil, err
	}
	if ver != ParamsVersion {
		return nil, nil, fmt.Errorf("scnn: version %d (this build reads %d): %w", ver, ParamsVersion, ErrVersion)
	}
	na, err := p.u32("architecture length")
	if err != nil {
		return nil, nil, err
	}
	if na > maxArchLen {
		return nil, nil, fmt.Errorf("scnn: architecture record of %d bytes: %w", na, ErrCorrupt)
	}
	if err := p.need(int64(na)+4, "an architecture record of %d bytes and the array count", na); err != nil {
		return nil, nil, err
	}
	arch = make([]byte, na)
	if err := p.read(arch, "architecture record"); err != nil {
		return nil, nil, err
	}
	// failed is the first error found in a file read on to its checksum;
	// want and seen check the arrays against expect's shapes.
	var (
		failed error
		shapes []ParamShape
		want   map[string][]int
		seen   map[string]bool
	)
	if expect != nil {
		if shapes, failed = expect(arch); failed == nil {
			want = make(map[string][]int, len(shapes))
			for _, s := range shapes {
				want[s.Name] = s.Shape
			}
			seen = make(map[string]bool, len(shapes))
		}
	}
	// stop returns failed, if any, in place of an error that ends the
	// reading before the checksum (which then cannot say more).
	stop := func(err error) ([]byte, []Array, error) {
		if failed != nil {
			return nil, nil, failed
		}
		return nil, nil, err
	}
	count, err := p.u32("array count")
	if err != nil {
		return stop(err)
	}
	// An array takes at least 12 bytes: an empty name, flags, rank 1,
	// one dimension, one value.
	if err := p.need(12*int64(count), "%d arrays", count); err != nil {
		return stop(err)
	}
	for k := uint32(0); k < count; k++ {
		a, n, err := p.header()
		if err != nil {
			return stop(err)
		}
		if failed == nil && want != nil {
			switch shape, ok := want[a.Name]; {
			case !ok:
				failed = fmt.Errorf("scnn: array %q (shape %v) is not a param of the model the record describes: %w", a.Name, a.Shape, ErrMismatch)
			case seen[a.Name]:
				failed = fmt.Errorf("scnn: array %q appears twice: %w", a.Name, ErrMismatch)
			case !slices.Equal(shape, a.Shape):
				failed = fmt.Errorf("scnn: array %q: file shape %v, model shape %v: %w", a.Name, a.Shape, shape, ErrMismatch)
			}
			seen[a.Name] = true
		}
		if err := p.need(4*int64(n), "array %q of shape %v: %d values", a.Name, a.Shape, n); err != nil {
			return stop(err)
		}
		if failed != nil {
			if err := p.skip(4 * int64(n)); err != nil {
				return stop(err)
			}
			continue
		}
		if a.Values, err = p.values(n, a.Name); err != nil {
			return nil, nil, err
		}
		arrays = append(arrays, a)
	}
	sum := p.h.Sum32()
	if _, err := io.ReadFull(p.br, p.buf[:4]); err != nil {
		return stop(fmt.Errorf("scnn: reading checksum: %w: %w", ErrCorrupt, err))
	}
	if got := binary.LittleEndian.Uint32(p.buf[:4]); got != sum {
		return nil, nil, fmt.Errorf("scnn: stored %08x, computed %08x: %w", got, sum, ErrChecksum)
	}
	if failed != nil {
		return nil, nil, failed
	}
	// Checked after the checksum, so that a damaged file says so.
	for _, a := range arrays {
		for i, v := range a.Values {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, nil, fmt.Errorf("scnn: array %q value %d of %d is %v: %w", a.Name, i, len(a.Values), v, ErrNonFinite)
			}
		}
	}
	for _, s := range shapes {
		if !seen[s.Name] {
			return nil, nil, fmt.Errorf("scnn: param %q (shape %v) of the model the record describes is missing: %w", s.Name, s.Shape, ErrMismatch)
		}
	}
	return arch, arrays, nil
}

// paramReader reads a parameter file through its checksum, counting down
// the bytes left where the input's size is known.
type paramReader struct {
	br      *bufio.Reader
	h       hash.Hash32
	left    int64 // bytes left in the input, if known
	known   bool
	buf     [8]byte
	scratch []byte // reused for values read and skipped
}

// sizeLeft returns the bytes left in r, if it can tell without reading.
func sizeLeft(r io.Reader) (int64, bool) {
	switch v := r.(type) {
	case *bytes.Reader:
		return int64(v.Len()), true
	case *bytes.Buffer:
		return int64(v.Len()), true
	case *strings.Reader:
		return int64(v.Len()), true
	case *io.LimitedReader:
		return max(v.N, 0), true // at most; the reader under it may hold less
	case interface {
		Stat() (fs.FileInfo, error)
		io.Seeker
	}:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0, false
		}
		off, err := v.Seek(0, io.SeekCurrent)
		if err != nil || off < 0 || off > fi.Size() {
			return 0, false
		}
		return fi.Size() - off, true
	}
	return 0, false
}

func (p *paramReader) read(b []byte, what string) error {
	if _, err := io.ReadFull(p.br, b); err != nil {
		return fmt.Errorf("scnn: reading %s: %w: %w", what, ErrCorrupt, err)
	}
	p.h.Write(b)
	p.left = max(p.left-int64(len(b)), 0)
	return nil
}

func (p *paramReader) u32(what string) (uint32, error) {
	if err := p.read(p.buf[:4], what); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(p.buf[:4]), nil
}

// need refuses, where the input's size is known, n bytes and the
// checksum after them that the input does not hold; format and args say
// what declared them.
func (p *paramReader) need(n int64, format string, args ...any) error {
	if p.known && n+4 > p.left {
		return fmt.Errorf("scnn: %s (%d bytes) and the checksum, but %d bytes are left in the file: %w",
			fmt.Sprintf(format, args...), n, p.left, ErrCorrupt)
	}
	return nil
}

// header reads an array's name, flags and shape; n is its value count.
func (p *paramReader) header() (a Array, n int, err error) {
	if err := p.read(p.buf[:2], "name length"); err != nil {
		return a, 0, err
	}
	nl := binary.LittleEndian.Uint16(p.buf[:2])
	if err := p.need(int64(nl)+10, "an array name of %d bytes", nl); err != nil {
		return a, 0, err
	}
	name := make([]byte, nl)
	if err := p.read(name, "name"); err != nil {
		return a, 0, err
	}
	if err := p.read(p.buf[:2], "flags and rank"); err != nil {
		return a, 0, err
	}
	if p.buf[0]&^3 != 0 {
		return a, 0, fmt.Errorf("scnn: array %q: unknown flags %#x: %w", name, p.buf[0], ErrCorrupt)
	}
	a = Array{Name: string(name), Trainable: p.buf[0]&1 != 0, Decay: p.buf[0]&2 != 0}
	rank := int(p.buf[1])
	if rank < 1 || rank > maxRank {
		return a, 0, fmt.Errorf("scnn: array %q: rank %d: %w", a.Name, rank, ErrCorrupt)
	}
	n = 1
	a.Shape = make([]int, 0, rank)
	for d := 0; d < rank; d++ {
		v, err := p.u32("dimension")
		if err != nil {
			return a, 0, err
		}
		if v == 0 || uint64(n)*uint64(v) > maxArrayLen {
			return a, 0, fmt.Errorf("scnn: array %q: bad dimension %d: %w", a.Name, v, ErrCorrupt)
		}
		n *= int(v)
		a.Shape = append(a.Shape, int(v))
	}
	return a, n, nil
}

// chunkValues is the most values read at once.
const chunkValues = 1 << 16

func (p *paramReader) chunk(n int) []byte {
	if cap(p.scratch) < 4*n {
		p.scratch = make([]byte, 4*n)
	}
	return p.scratch[:4*n]
}

// values reads n float32 values of the array name, in chunks. Where the
// input's size is not known the values are appended as they are read, so
// that a corrupt length fails at the end of the input before a huge
// allocation; where it is (need has checked n), they are allocated at once.
func (p *paramReader) values(n int, name string) ([]float32, error) {
	var vals []float32
	if p.known {
		vals = make([]float32, 0, n)
	}
	what := "values of " + name
	for len(vals) < n {
		c := p.chunk(min(n-len(vals), chunkValues))
		if err := p.read(c, what); err != nil {
			return nil, err
		}
		for i := 0; i < len(c); i += 4 {
			vals = append(vals, math.Float32frombits(binary.LittleEndian.Uint32(c[i:])))
		}
	}
	return vals, nil
}

// skip reads n bytes (a multiple of 4, values) through the checksum
// without keeping them.
func (p *paramReader) skip(n int64) error {
	for n > 0 {
		c := p.chunk(int(min(n/4, chunkValues)))
		if err := p.read(c, "values"); err != nil {
			return err
		}
		n -= int64(len(c))
	}
	return nil
}

// AssignParams copies arrays into params by name. Every param must be
// present with the same shape; extra arrays are an error too.
func AssignParams(params []*Param, arrays []Array) error {
	byName := make(map[string]*Array, len(arrays))
	for i := range arrays {
		byName[arrays[i].Name] = &arrays[i]
	}
	if len(byName) != len(arrays) {
		return fmt.Errorf("scnn: duplicate array names: %w", ErrMismatch)
	}
	for _, p := range params {
		a, ok := byName[p.Name]
		if !ok {
			return fmt.Errorf("scnn: param %q missing: %w", p.Name, ErrMismatch)
		}
		if len(a.Shape) != len(p.Shape) || len(a.Values) != len(p.Value) {
			return fmt.Errorf("scnn: param %q: file shape %v, model shape %v: %w", p.Name, a.Shape, p.Shape, ErrMismatch)
		}
		for i := range a.Shape {
			if a.Shape[i] != p.Shape[i] {
				return fmt.Errorf("scnn: param %q: file shape %v, model shape %v: %w", p.Name, a.Shape, p.Shape, ErrMismatch)
			}
		}
		copy(p.Value, a.Values)
		delete(byName, p.Name)
	}
	for name := range byName {
		return fmt.Errorf("scnn: array %q is not a param of the model: %w", name, ErrMismatch)
	}
	return nil
}
