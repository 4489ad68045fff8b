package pdb

// threeToOne maps the 20 standard amino acids.
var threeToOne = map[string]byte{
	"ALA": 'A', "ARG": 'R', "ASN": 'N', "ASP": 'D', "CYS": 'C',
	"GLN": 'Q', "GLU": 'E', "GLY": 'G', "HIS": 'H', "ILE": 'I',
	"LEU": 'L', "LYS": 'K', "MET": 'M', "PHE": 'F', "PRO": 'P',
	"SER": 'S', "THR": 'T', "TRP": 'W', "TYR": 'Y', "VAL": 'V',
}

// modified maps common modified residues to their parent amino acid
// (PDB chemical component dictionary, mon_nstd_parent_comp_id).
var modified = map[string]string{
	"MSE": "MET", "SEP": "SER", "TPO": "THR", "PTR": "TYR", "CSO": "CYS",
	"CSD": "CYS", "CME": "CYS", "CAS": "CYS", "CSS": "CYS", "OCS": "CYS",
	"MLY": "LYS", "M3L": "LYS", "KCX": "LYS", "LLP": "LYS", "ALY": "LYS",
	"HYP": "PRO", "PCA": "GLU", "CGU": "GLU", "MEN": "ASN", "FME": "MET",
	"NLE": "LEU", "AIB": "ALA", "SEC": "CYS", "PYL": "LYS", "DAL": "ALA",
	"HIC": "HIS", "NEP": "HIS", "TYS": "TYR", "SAC": "SER", "YCM": "CYS",
}

// Parent returns the standard amino acid a residue name reads as: itself
// for the 20 standard ones, the parent for a known modified residue, and
// "" otherwise (nucleotides, ligands, water).
func Parent(name string) string {
	if _, ok := threeToOne[name]; ok {
		return name
	}
	return modified[name]
}

// OneLetter returns the one-letter code of a residue name (after Parent),
// or 'X' for anything else.
func OneLetter(name string) byte {
	if c, ok := threeToOne[Parent(name)]; ok {
		return c
	}
	return 'X'
}
