package features

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/contactmap/contactmap/internal/fileio"
	"github.com/contactmap/contactmap/pdb"
)

// Feature file, version 1: a zstd stream whose content is, little-endian,
//
//	offset  size     field
//	0       8        magic "CMAPFEAT"
//	8       4        uint32 version (1)
//	12      4        uint32 flags: bit 0 features from an MSA, bit 1 secondary
//	                 structure from a prediction, bit 2 labels present, bit 3
//	                 co-evolution channel from plmDCA (with bit 0 only)
//	16      2        uint16 n; then n bytes: chain ID, e.g. "1ENH_A"
//	        4        uint32 L, chain length (SEQRES)
//	        L        sequence, one-letter codes
//	        2        uint16 n1, 1D channels (25)
//	        2        uint16 n2, 2D channels (3)
//	        4*L*n1   float32 1D features, row-major L x n1
//	        4*P*n2   float32 2D features of the pairs i <= j, row by row
//	                 (P = L(L+1)/2), n2 values per pair
//	        (if labels)
//	        1        uint8 contact definition: 0 C-alpha, 1 C-beta
//	        4        float32 distance cutoff, Å
//	        P        uint8 per pair i <= j: 1 contact, 0 not
//	        P        uint8 per pair i <= j: 1 if both residues have the atoms
//	end     4        uint32 CRC-32 (IEEE) of all preceding content bytes
const (
	fileMagic   = "CMAPFEAT"
	FileVersion = 1
	N1D         = 25
	N2D         = 3
	flagMSA     = 1
	flagSS      = 2
	flagLabels  = 4
	flagPlm     = 8
	maxLength   = 1 << 14
)

// Sentinel errors of Read.
var (
	ErrFormat   = errors.New("not a contactmap feature file")
	ErrVersion  = errors.New("unsupported feature file version")
	ErrCorrupt  = errors.New("corrupt feature file")
	ErrChecksum = errors.New("feature file checksum mismatch")
)

// Chain is the content of one feature file.
type Chain struct {
	ID     string
	Seq    string
	HasMSA bool // profile and co-evolution from an MSA
	HasSS  bool // secondary structure from a prediction, not EstimateSS
	// HasPlm: the co-evolution channel holds plmDCA's scores (package
	// potts) instead of mean-field DCA's; with HasMSA only.
	HasPlm bool
	OneD   []float32 // L x N1D
	TwoD   []float32 // packed pairs i <= j, N2D each

	// Labels are the chain's true contacts (nil for a chain without a
	// structure). The file stores the cutoff as float32.
	Labels *pdb.Contacts
}

// L is the chain length.
func (c *Chain) L() int { return len(c.Seq) }

// Mode is the set of inputs features are computed from besides the
// sequence: an MSA (profile and co-evolution), how the co-evolution
// channel was computed, and a secondary-structure prediction. A model
// trained on one mode must not be used on another.
type Mode struct {
	MSA bool // profile and co-evolution from an MSA
	SS  bool // secondary structure from a prediction, not EstimateSS
	Plm bool // co-evolution by plmDCA, not mean-field DCA (with MSA only)
}

// The modes' names.
var (
	SeqMode      = Mode{}
	SSMode       = Mode{SS: true}
	MSAMode      = Mode{MSA: true}
	MSASSMode    = Mode{MSA: true, SS: true}
	MSAPlmMode   = Mode{MSA: true, Plm: true}
	MSAPlmSSMode = Mode{MSA: true, SS: true, Plm: true}
	modes        = []Mode{SeqMode, SSMode, MSAMode, MSASSMode, MSAPlmMode, MSAPlmSSMode}
)

// String names the mode: "seq", "ss", "msa", "msa+ss", "msa+plm" or
// "msa+plm+ss".
func (m Mode) String() string {
	s := "seq"
	switch {
	case m.MSA && m.Plm:
		s = "msa+plm"
	case m.MSA:
		s = "msa"
	case m.Plm:
		return "invalid(plm without msa)"
	case m.SS:
		return "ss"
	}
	if m.SS {
		s += "+ss"
	}
	return s
}

// ParseMode reads a name written by String.
func ParseMode(s string) (Mode, error) {
	var names []string
	for _, m := range modes {
		if m.String() == s {
			return m, nil
		}
		names = append(names, m.String())
	}
	return Mode{}, fmt.Errorf("features: unknown feature mode %q (%s)", s, strings.Join(names, ", "))
}

// MarshalText writes the mode's name (in JSON, manifests).
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a name written by MarshalText.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Mode is the mode of c's features.
func (c *Chain) Mode() Mode { return Mode{MSA: c.HasMSA, SS: c.HasSS, Plm: c.HasPlm} }

// Write writes c compressed.
func Write(w io.Writer, c *Chain) error {
	l := c.L()
	p := l * (l + 1) / 2
	if len(c.OneD) != l*N1D || len(c.TwoD) != p*N2D {
		return fmt.Errorf("features: %s: %d 1D and %d 2D values for L=%d", c.ID, len(c.OneD), len(c.TwoD), l)
	}
	if lab := c.Labels; lab != nil && (lab.L != l || len(lab.Contact) != p || len(lab.Known) != p) {
		return fmt.Errorf("features: %s: labels of L=%d (%d and %d pairs) for L=%d", c.ID, lab.L, len(lab.Contact), len(lab.Known), l)
	}
	// One encoder goroutine: the output bytes are then a function of the
	// content alone, so shards and single runs write identical files.
	zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	h := crc32.NewIEEE()
	bw := bufio.NewWriter(io.MultiWriter(zw, h))
	le := binary.LittleEndian
	var b [4]byte
	u32 := func(v uint32) { le.PutUint32(b[:], v); bw.Write(b[:4]) }
	u16 := func(v uint16) { le.PutUint16(b[:], v); bw.Write(b[:2]) }
	bw.WriteString(fileMagic)
	u32(FileVersion)
	var flags uint32
	if c.HasMSA {
		flags |= flagMSA
	}
	if c.HasSS {
		flags |= flagSS
	}
	if c.Labels != nil {
		flags |= flagLabels
	}
	if c.HasPlm {
		if !c.HasMSA {
			return fmt.Errorf("features: %s: plmDCA co-evolution without an MSA", c.ID)
		}
		flags |= flagPlm
	}
	u32(flags)
	u16(uint16(len(c.ID)))
	bw.WriteString(c.ID)
	u32(uint32(l))
	bw.WriteString(c.Seq)
	u16(N1D)
	u16(N2D)
	for _, v := range c.OneD {
		u32(math.Float32bits(v))
	}
	for _, v := range c.TwoD {
		u32(math.Float32bits(v))
	}
	if lab := c.Labels; lab != nil {
		bw.WriteByte(byte(lab.Def.Atoms))
		u32(math.Float32bits(float32(lab.Def.Cutoff)))
		for _, bits := range [][]bool{lab.Contact, lab.Known} {
			for _, v := range bits {
				if v {
					bw.WriteByte(1)
				} else {
					bw.WriteByte(0)
				}
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	le.PutUint32(b[:], h.Sum32())
	if _, err := zw.Write(b[:4]); err != nil {
		return err
	}
	return zw.Close()
}

// Read reads a compressed feature file.
func Read(r io.Reader) (*Chain, error) {
	zr, err := zstd.NewReader(r, zstd.WithDecoderMaxMemory(1<<30))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	data, err := io.ReadAll(io.LimitReader(zr, 1<<30))
	if err != nil {
		return nil, fmt.Errorf("features: decompressing: %w: %w", ErrCorrupt, err)
	}
	return decode(data)
}

func decode(data []byte) (*Chain, error) {
	if len(data) < 8 || string(data[:8]) != fileMagic {
		return nil, fmt.Errorf("features: %w", ErrFormat)
	}
	if len(data) < 4 {
		return nil, fmt.Errorf("features: %w: too short", ErrCorrupt)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, fmt.Errorf("features: %w", ErrChecksum)
	}
	rd := bytes.NewReader(body[8:])
	le := binary.LittleEndian
	fail := func(what string) error { return fmt.Errorf("features: reading %s: %w", what, ErrCorrupt) }
	var ver, flags, l uint32
	var nid, n1, n2 uint16
	if binary.Read(rd, le, &ver) != nil {
		return nil, fail("version")
	}
	if ver != FileVersion {
		return nil, fmt.Errorf("features: version %d (this build reads %d): %w", ver, FileVersion, ErrVersion)
	}
	if binary.Read(rd, le, &flags) != nil || flags&^15 != 0 || flags&flagPlm != 0 && flags&flagMSA == 0 {
		return nil, fail("flags")
	}
	if binary.Read(rd, le, &nid) != nil {
		return nil, fail("ID length")
	}
	id := make([]byte, nid)
	if _, err := io.ReadFull(rd, id); err != nil {
		return nil, fail("ID")
	}
	if binary.Read(rd, le, &l) != nil || l == 0 || l > maxLength {
		return nil, fail("length")
	}
	seq := make([]byte, l)
	if _, err := io.ReadFull(rd, seq); err != nil {
		return nil, fail("sequence")
	}
	if binary.Read(rd, le, &n1) != nil || binary.Read(rd, le, &n2) != nil || n1 != N1D || n2 != N2D {
		return nil, fail("channel counts")
	}
	c := &Chain{ID: string(id), Seq: string(seq), HasMSA: flags&flagMSA != 0, HasSS: flags&flagSS != 0, HasPlm: flags&flagPlm != 0}
	p := int(l) * (int(l) + 1) / 2
	c.OneD = make([]float32, int(l)*N1D)
	c.TwoD = make([]float32, p*N2D)
	if binary.Read(rd, le, c.OneD) != nil {
		return nil, fail("1D features")
	}
	if binary.Read(rd, le, c.TwoD) != nil {
		return nil, fail("2D features")
	}
	if flags&flagLabels != 0 {
		var def uint8
		var cutoff float32
		if binary.Read(rd, le, &def) != nil || def > 1 || binary.Read(rd, le, &cutoff) != nil {
			return nil, fail("label header")
		}
		lab := &pdb.Contacts{L: int(l), Def: pdb.ContactDef{Atoms: pdb.Definition(def), Cutoff: float64(cutoff)},
			Contact: make([]bool, p), Known: make([]bool, p)}
		raw := make([]byte, p)
		for part, bits := range [][]bool{lab.Contact, lab.Known} { // in file order
			name := [2]string{"labels", "mask"}[part]
			if _, err := io.ReadFull(rd, raw); err != nil {
				return nil, fail(name)
			}
			for k, v := range raw {
				if v > 1 {
					return nil, fail(name + " (values other than 0 and 1)")
				}
				bits[k] = v == 1
			}
		}
		c.Labels = lab
	}
	if rd.Len() != 0 {
		return nil, fail("end (trailing bytes)")
	}
	return c, nil
}

// WriteFile writes c to path atomically.
func WriteFile(path string, c *Chain) error {
	return fileio.WriteAtomic(path, func(w io.Writer) error { return Write(w, c) })
}

// ReadFile reads a feature file.
func ReadFile(path string) (*Chain, error) {
	f, err := fileio.Open(path) // decompresses
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrCorrupt, err)
	}
	c, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
