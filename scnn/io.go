package scnn

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
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
func ReadParams(r io.Reader) (arch []byte, arrays []Array, err error) {
	h := crc32.NewIEEE()
	br := bufio.NewReader(r)
	tr := io.TeeReader(br, h)
	var buf [8]byte
	read := func(b []byte, what string) error {
		if _, err := io.ReadFull(tr, b); err != nil {
			return fmt.Errorf("scnn: reading %s: %w: %w", what, ErrCorrupt, err)
		}
		return nil
	}
	u32 := func(what string) (uint32, error) {
		if err := read(buf[:4], what); err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint32(buf[:4]), nil
	}
	if err := read(buf[:8], "magic"); err != nil {
		return nil, nil, fmt.Errorf("scnn: %w", ErrFormat)
	}
	if !bytes.Equal(buf[:8], []byte(paramsMagic)) {
		return nil, nil, fmt.Errorf("scnn: magic %q: %w", buf[:8], ErrFormat)
	}
	ver, err := u32("version")
	if err != nil {
		return nil, nil, err
	}
	if ver != ParamsVersion {
		return nil, nil, fmt.Errorf("scnn: version %d (this build reads %d): %w", ver, ParamsVersion, ErrVersion)
	}
	na, err := u32("architecture length")
	if err != nil {
		return nil, nil, err
	}
	if na > maxArchLen {
		return nil, nil, fmt.Errorf("scnn: architecture record of %d bytes: %w", na, ErrCorrupt)
	}
	arch = make([]byte, na)
	if err := read(arch, "architecture record"); err != nil {
		return nil, nil, err
	}
	count, err := u32("array count")
	if err != nil {
		return nil, nil, err
	}
	for k := uint32(0); k < count; k++ {
		if err := read(buf[:2], "name length"); err != nil {
			return nil, nil, err
		}
		name := make([]byte, binary.LittleEndian.Uint16(buf[:2]))
		if err := read(name, "name"); err != nil {
			return nil, nil, err
		}
		if err := read(buf[:2], "flags and rank"); err != nil {
			return nil, nil, err
		}
		if buf[0]&^3 != 0 {
			return nil, nil, fmt.Errorf("scnn: array %q: unknown flags %#x: %w", name, buf[0], ErrCorrupt)
		}
		a := Array{Name: string(name), Trainable: buf[0]&1 != 0, Decay: buf[0]&2 != 0}
		rank := int(buf[1])
		if rank < 1 || rank > maxRank {
			return nil, nil, fmt.Errorf("scnn: array %q: rank %d: %w", a.Name, rank, ErrCorrupt)
		}
		n := 1
		for d := 0; d < rank; d++ {
			v, err := u32("dimension")
			if err != nil {
				return nil, nil, err
			}
			if v == 0 || uint64(n)*uint64(v) > maxArrayLen {
				return nil, nil, fmt.Errorf("scnn: array %q: bad dimension %d: %w", a.Name, v, ErrCorrupt)
			}
			n *= int(v)
			a.Shape = append(a.Shape, int(v))
		}
		// Read values in chunks so a corrupt size fails at EOF before a
		// huge allocation.
		for len(a.Values) < n {
			chunk := make([]byte, 4*min(n-len(a.Values), 1<<16))
			if err := read(chunk, "values of "+a.Name); err != nil {
				return nil, nil, err
			}
			for i := 0; i < len(chunk); i += 4 {
				a.Values = append(a.Values, math.Float32frombits(binary.LittleEndian.Uint32(chunk[i:])))
			}
		}
		arrays = append(arrays, a)
	}
	sum := h.Sum32()
	if _, err := io.ReadFull(br, buf[:4]); err != nil {
		return nil, nil, fmt.Errorf("scnn: reading checksum: %w: %w", ErrCorrupt, err)
	}
	if got := binary.LittleEndian.Uint32(buf[:4]); got != sum {
		return nil, nil, fmt.Errorf("scnn: stored %08x, computed %08x: %w", got, sum, ErrChecksum)
	}
	// Checked after the checksum, so that a damaged file says so.
	for _, a := range arrays {
		for i, v := range a.Values {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, nil, fmt.Errorf("scnn: array %q value %d of %d is %v: %w", a.Name, i, len(a.Values), v, ErrNonFinite)
			}
		}
	}
	return arch, arrays, nil
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
