package pdb

import "github.com/contactmap/contactmap/internal/fileio"

// Bounds of the readers: input beyond them is refused while it is read,
// with a *ParseError naming the file, the line and the bound and wrapping
// fileio.ErrTooLarge (see ErrTooLarge).
const (
	// MaxChainResidues is the most amino-acid residues a chain may have,
	// with coordinates or in SEQRES (_pdbx_poly_seq_scheme): the longest
	// chains in the PDB (titin fragments, giant polyketide synthases)
	// are about 35,000 residues.
	MaxChainResidues = 100_000
	// MaxAtoms is the most ATOM/HETATM records (_atom_site rows, every
	// model) a file may have: the largest PDB entries (virus capsids,
	// 3J3Q) have about 2.5 million atoms.
	MaxAtoms = 10_000_000
)

// maxAtoms is MaxAtoms, lowered by tests.
var maxAtoms = MaxAtoms

// ErrTooLarge is wrapped by the errors of input beyond MaxChainResidues,
// MaxAtoms or the readers' line bounds.
var ErrTooLarge = fileio.ErrTooLarge

// resKey identifies a residue: chain, number and insertion code.
type resKey struct {
	chain string
	seq   int
	icode byte
}

// builder collects atoms of the first model into chains and residues,
// applying the reading rules shared by both formats.
type builder struct {
	s      *Structure
	chains map[string]*Chain
	last   map[string]*Residue // last residue of each chain
	index  map[resKey]*Residue // every residue, by chain, number and code
}

func newBuilder() *builder {
	return &builder{s: &Structure{}, chains: map[string]*Chain{}, last: map[string]*Residue{}, index: map[resKey]*Residue{}}
}

func (b *builder) chain(id string) *Chain {
	c, ok := b.chains[id]
	if !ok {
		c = &Chain{ID: id}
		b.chains[id] = c
		b.s.Chains = append(b.s.Chains, c)
	}
	return c
}

// atom adds one atom record; het marks HETATM. Non-amino-acid residues and
// repeated alternate locations are dropped. The error is for a chain
// beyond MaxChainResidues; the caller names the file and line.
func (b *builder) atom(chainID, resName string, seq int, icode byte, atomName string, altLoc byte, het bool, pos Vec) error {
	parent := Parent(resName)
	if parent == "" {
		return nil
	}
	c := b.chain(chainID)
	r := b.last[chainID]
	if r == nil || r.Seq != seq || r.ICode != icode || r.Orig != resName {
		// A residue's records are contiguous in valid files; a residue
		// seen before (same number and code) continues it.
		key := resKey{chainID, seq, icode}
		r = b.index[key]
		if r == nil {
			if len(c.Residues) >= MaxChainResidues {
				return fileio.TooLarge("chain %s: more than %d residues (the reader's bound)", fileio.Quote(chainID), MaxChainResidues)
			}
			r = &Residue{Name: parent, Orig: resName, Seq: seq, ICode: icode, Het: het, Atoms: map[string]Vec{}}
			c.Residues = append(c.Residues, r)
			b.index[key] = r
		}
		b.last[chainID] = r
	}
	if r.Orig != resName {
		return nil // a point mutation as an alternate location: keep the first
	}
	if altLoc != ' ' && altLoc != '.' && altLoc != '?' {
		if r.altLoc == 0 {
			r.altLoc = altLoc
		} else if r.altLoc != altLoc {
			return nil
		}
	}
	if _, dup := r.Atoms[atomName]; !dup {
		r.Atoms[atomName] = pos
	}
	return nil
}

// finish drops chains without amino acids in SEQRES or coordinates.
func (b *builder) finish() *Structure {
	var keep []*Chain
	for _, c := range b.s.Chains {
		if len(c.Residues) > 0 || len(c.SeqRes) > 0 {
			keep = append(keep, c)
		}
	}
	b.s.Chains = keep
	return b.s
}
