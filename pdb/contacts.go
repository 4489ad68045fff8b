package pdb

import (
	"fmt"
	"math"

	"github.com/contactmap/contactmap/scnn"
)

// Definition selects the atoms whose distance defines a contact.
type Definition int

const (
	// CAlpha: C-alpha atoms (Maduranga et al.; the default).
	CAlpha Definition = iota
	// CBeta: C-beta atoms, C-alpha for glycine (CASP's definition); a
	// residue whose C-beta is missing from the file gets a virtual one
	// built from N, CA and C.
	CBeta
)

func (d Definition) String() string {
	if d == CBeta {
		return "CB"
	}
	return "CA"
}

// ContactCutoff is the distance below which two residues are in contact, Å.
const ContactCutoff = 8.0

// VirtualCB places a C-beta from the backbone, with the ideal geometry
// used by trRosetta (Yang et al., PNAS 2020):
//
//	b = CA - N, c = C - CA, a = b x c
//	CB = -0.58273431 a + 0.56802827 b - 0.54067466 c + CA
func VirtualCB(n, ca, c Vec) Vec {
	var b, cc Vec
	for k := 0; k < 3; k++ {
		b[k] = ca[k] - n[k]
		cc[k] = c[k] - ca[k]
	}
	a := Vec{b[1]*cc[2] - b[2]*cc[1], b[2]*cc[0] - b[0]*cc[2], b[0]*cc[1] - b[1]*cc[0]}
	var cb Vec
	for k := 0; k < 3; k++ {
		cb[k] = -0.58273431*a[k] + 0.56802827*b[k] - 0.54067466*cc[k] + ca[k]
	}
	return cb
}

// RepresentativeAtom returns the atom position used for contacts under
// def, or false if the residue lacks the atoms it needs.
func RepresentativeAtom(r *Residue, def Definition) (Vec, bool) {
	if r == nil {
		return Vec{}, false
	}
	ca, ok := r.Atoms["CA"]
	if !ok {
		return Vec{}, false
	}
	if def == CAlpha || r.Name == "GLY" {
		return ca, true
	}
	if cb, ok := r.Atoms["CB"]; ok {
		return cb, true
	}
	n, okN := r.Atoms["N"]
	c, okC := r.Atoms["C"]
	if !okN || !okC {
		return Vec{}, false
	}
	return VirtualCB(n, ca, c), true
}

// ContactDef is a contact definition: the atoms whose distance counts
// and the cutoff in Å.
type ContactDef struct {
	Atoms  Definition `json:"atoms"`
	Cutoff float64    `json:"cutoff"`
}

// DefaultContactDef is the paper's: C-alpha atoms closer than 8 Å.
var DefaultContactDef = ContactDef{Atoms: CAlpha, Cutoff: ContactCutoff}

// String describes the definition, e.g. "C-alpha pairs closer than 8 Å".
func (d ContactDef) String() string {
	atom := "C-alpha"
	if d.Atoms == CBeta {
		atom = "C-beta"
	}
	return fmt.Sprintf("%s pairs closer than %g Å", atom, d.Cutoff)
}

// Contacts is a chain's contact map under a definition, over its L
// positions (SEQRES), stored like the symmetric feature maps: the upper
// triangle i <= j row by row (scnn.PackedIndex). Known[k] says both residues
// of pair k have the atoms the definition needs (the diagonal is never
// known); Contact[k] says they are closer than the cutoff. Unknown pairs
// are never negatives. It is the pipeline's one contact-map type:
// features store it, training batches and metrics read it, predict draws
// it.
type Contacts struct {
	L       int
	Def     ContactDef
	Contact []bool
	Known   []bool
}

// PackedIndex is the index of pair (i, j), i <= j, in a packed upper
// triangle of an l x l map.
//
// Deprecated: use scnn.PackedIndex, the one definition of the order.
func PackedIndex(l, i, j int) int { return scnn.PackedIndex(l, i, j) }

// At returns whether pair (i, j), in either order, is a contact and
// whether it is known.
func (c *Contacts) At(i, j int) (contact, known bool) {
	if i > j {
		i, j = j, i
	}
	k := scnn.PackedIndex(c.L, i, j)
	return c.Contact[k], c.Known[k]
}

// NewContacts computes the contacts of aligned residues (nil where a
// SEQRES position has no coordinates; see Chain.Align).
func NewContacts(res []*Residue, def ContactDef) *Contacts {
	l := len(res)
	pos := make([]Vec, l)
	has := make([]bool, l)
	for i, r := range res {
		pos[i], has[i] = RepresentativeAtom(r, def.Atoms)
	}
	p := l * (l + 1) / 2
	c := &Contacts{L: l, Def: def, Contact: make([]bool, p), Known: make([]bool, p)}
	k := 0
	for i := 0; i < l; i++ {
		for j := i; j < l; j, k = j+1, k+1 {
			if i == j || !has[i] || !has[j] {
				continue
			}
			d := math.Sqrt(sq(pos[i][0]-pos[j][0]) + sq(pos[i][1]-pos[j][1]) + sq(pos[i][2]-pos[j][2]))
			c.Known[k] = true
			c.Contact[k] = d < def.Cutoff
		}
	}
	return c
}

func sq(x float64) float64 { return x * x }
