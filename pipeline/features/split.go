package features

import (
	"crypto/sha256"
	"encoding/binary"
)

// Split names.
const (
	Train      = "train"
	Validation = "validation"
	Test       = "test"
)

// Split fractions of Maduranga et al.: 880 / 220 / 73 of 1,173 chains.
const (
	trainFraction = 880.0 / 1173
	validFraction = 220.0 / 1173
)

// SplitOf assigns a chain to train, validation or test by a seeded hash
// of its PDB code (SHA-256 of the little-endian seed followed by the code,
// first 8 bytes as a uniform number in [0, 1)), so all chains of one entry
// land on the same side and the split depends neither on the list order
// nor on which other chains are processed.
func SplitOf(pdbCode string, seed uint64) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h := sha256.Sum256(append(b[:], pdbCode...))
	u := float64(binary.BigEndian.Uint64(h[:8])>>11) / (1 << 53)
	switch {
	case u < trainFraction:
		return Train
	case u < trainFraction+validFraction:
		return Validation
	}
	return Test
}
