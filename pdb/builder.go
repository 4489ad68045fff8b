package pdb

// builder collects atoms of the first model into chains and residues,
// applying the reading rules shared by both formats.
type builder struct {
	s      *Structure
	chains map[string]*Chain
	last   map[string]*Residue // last residue of each chain
}

func newBuilder() *builder {
	return &builder{s: &Structure{}, chains: map[string]*Chain{}, last: map[string]*Residue{}}
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
// repeated alternate locations are dropped.
func (b *builder) atom(chainID, resName string, seq int, icode byte, atomName string, altLoc byte, het bool, pos Vec) {
	parent := Parent(resName)
	if parent == "" {
		return
	}
	c := b.chain(chainID)
	r := b.last[chainID]
	if r == nil || r.Seq != seq || r.ICode != icode || r.Orig != resName {
		// A residue's records are contiguous in valid files; a residue
		// seen before (same number, code and name) continues it.
		r = nil
		for _, old := range c.Residues {
			if old.Seq == seq && old.ICode == icode {
				r = old
				break
			}
		}
		if r == nil {
			r = &Residue{Name: parent, Orig: resName, Seq: seq, ICode: icode, Het: het, Atoms: map[string]Vec{}}
			c.Residues = append(c.Residues, r)
		}
		b.last[chainID] = r
	}
	if r.Orig != resName {
		return // a point mutation as an alternate location: keep the first
	}
	if altLoc != ' ' && altLoc != '.' && altLoc != '?' {
		if r.altLoc == 0 {
			r.altLoc = altLoc
		} else if r.altLoc != altLoc {
			return
		}
	}
	if _, dup := r.Atoms[atomName]; !dup {
		r.Atoms[atomName] = pos
	}
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
