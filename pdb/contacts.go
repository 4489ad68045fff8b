package pdb

import "math"

// Definition selects the atoms whose distance defines a contact.
type Definition int

const (
	// CAlpha: C-alpha atoms (Maduranga et al.; the default).
	CAlpha Definition = iota
	// CBeta: C-beta atoms, with a virtual C-beta built from N, CA and C
	// (CASP's definition; C-alpha for glycine).
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
	n, okN := r.Atoms["N"]
	c, okC := r.Atoms["C"]
	if !okN || !okC {
		return Vec{}, false
	}
	return VirtualCB(n, ca, c), true
}

// ContactMap returns the L x L contact map of aligned residues (nil where
// the residue has no coordinates; see Chain.Align) as row-major slices:
// contact[i*L+j] is true when the representative atoms are closer than
// cutoff, and mask[i*L+j] is true when both residues have them. Unmasked
// pairs are unknown, never negatives. The diagonal is masked out.
func ContactMap(res []*Residue, def Definition, cutoff float64) (contact, mask []bool) {
	l := len(res)
	pos := make([]Vec, l)
	has := make([]bool, l)
	for i, r := range res {
		pos[i], has[i] = RepresentativeAtom(r, def)
	}
	contact, mask = make([]bool, l*l), make([]bool, l*l)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			if !has[i] || !has[j] {
				continue
			}
			d := math.Sqrt(sq(pos[i][0]-pos[j][0]) + sq(pos[i][1]-pos[j][1]) + sq(pos[i][2]-pos[j][2]))
			mask[i*l+j], mask[j*l+i] = true, true
			if d < cutoff {
				contact[i*l+j], contact[j*l+i] = true, true
			}
		}
	}
	return contact, mask
}

func sq(x float64) float64 { return x * x }
