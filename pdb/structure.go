package pdb

import (
	"errors"
	"fmt"

	"github.com/biogo/biogo/alphabet"
	"github.com/biogo/biogo/seq/linear"

	"github.com/contactmap/contactmap/seqalign"
)

// Vec is a point in Å.
type Vec [3]float64

// Residue is an amino acid with coordinates.
type Residue struct {
	Name   string // standard three-letter name (after Parent)
	Orig   string // name as in the file (e.g. "MSE")
	Seq    int    // author sequence number
	ICode  byte   // insertion code, ' ' if none
	Het    bool   // read from HETATM
	Atoms  map[string]Vec
	altLoc byte
}

// Has reports whether the residue has coordinates for the atom.
func (r *Residue) Has(atom string) bool { _, ok := r.Atoms[atom]; return ok }

// Chain is one polymer chain of the first model.
type Chain struct {
	ID       string   // author chain ID
	SeqRes   []string // SEQRES residue names (after Parent; "UNK" etc. kept)
	Residues []*Residue
}

// Structure is an entry's first model.
type Structure struct {
	ID         string  // PDB code, upper case, if the file says it
	Method     string  // EXPDTA / _exptl.method
	Resolution float64 // Å, 0 if unknown
	Chains     []*Chain
}

// Chain returns the chain with the given author ID, or nil.
func (s *Structure) Chain(id string) *Chain {
	for _, c := range s.Chains {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// FindChain returns the chain a caller names id: the chain with that
// author ID (Chain), or, when there is none and the structure's only
// chain has a blank ID, that chain. A blank chain identifier (PDB column
// 22 left empty, as in theoretical models and in benchmark structures
// such as the PSICOV set's) names no chain, so a file holding one
// unnamed chain holds the chain the caller means; the caller's ID is the
// chain's name (the returned Chain's ID stays ""). A file with several
// chains, or with named ones, is matched by ID only.
func (s *Structure) FindChain(id string) *Chain {
	if c := s.Chain(id); c != nil {
		return c
	}
	if len(s.Chains) == 1 && s.Chains[0].ID == "" {
		return s.Chains[0]
	}
	return nil
}

// IsProtein reports whether most of the chain's sequence is amino acids.
func (c *Chain) IsProtein() bool {
	names := c.SeqRes
	if len(names) == 0 {
		for _, r := range c.Residues {
			names = append(names, r.Name)
		}
	}
	aa := 0
	for _, n := range names {
		if Parent(n) != "" {
			aa++
		}
	}
	return len(names) > 0 && 2*aa > len(names)
}

// Sequence returns the chain's sequence in one-letter codes: SEQRES when
// the file has it, otherwise the residues with coordinates.
func (c *Chain) Sequence() string {
	if len(c.SeqRes) > 0 {
		b := make([]byte, len(c.SeqRes))
		for i, n := range c.SeqRes {
			b[i] = OneLetter(n)
		}
		return string(b)
	}
	return c.observedSequence()
}

func (c *Chain) observedSequence() string {
	b := make([]byte, len(c.Residues))
	for i, r := range c.Residues {
		b[i] = OneLetter(r.Name)
	}
	return string(b)
}

// Seq returns Sequence as a biogo sequence in the protein alphabet.
func (c *Chain) Seq(name string) *linear.Seq {
	s := linear.NewSeq(name, alphabet.BytesToLetters([]byte(c.Sequence())), alphabet.Protein)
	return s
}

// ErrAlignment is returned when SEQRES and the coordinates cannot be
// matched.
var ErrAlignment = errors.New("SEQRES does not match the residues with coordinates")

// Align returns, for each position of Sequence, the residue with
// coordinates at that position, or nil for residues missing from the
// model. Without SEQRES every residue maps to itself. With SEQRES the two
// sequences are aligned globally (Needleman-Wunsch, BLOSUM62, linear gap
// penalty); every residue with coordinates must align to a SEQRES
// position, and at least 90% of aligned pairs must be identical.
func (c *Chain) Align() ([]*Residue, error) {
	if len(c.SeqRes) == 0 {
		return append([]*Residue(nil), c.Residues...), nil
	}
	ref, obs := c.Sequence(), c.observedSequence()
	out := make([]*Residue, len(ref))
	if len(obs) == 0 {
		return out, nil
	}
	pairs, err := seqalign.Global(ref, obs)
	if err != nil {
		return nil, fmt.Errorf("chain %s: %w", c.ID, err)
	}
	matched, same := 0, 0
	for _, p := range pairs {
		out[p[0]] = c.Residues[p[1]]
		matched++
		if ref[p[0]] == obs[p[1]] {
			same++
		}
	}
	if matched != len(obs) {
		return nil, fmt.Errorf("chain %s: %d of %d residues with coordinates are not in SEQRES: %w", c.ID, len(obs)-matched, len(obs), ErrAlignment)
	}
	if 10*same < 9*matched {
		return nil, fmt.Errorf("chain %s: only %d of %d aligned residues identical: %w", c.ID, same, matched, ErrAlignment)
	}
	return out, nil
}
