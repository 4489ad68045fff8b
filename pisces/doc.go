// Package pisces reads the chain lists of the PISCES protein sequence
// culling server (G. Wang and R. L. Dunbrack Jr., "PISCES: a protein
// sequence culling server", Bioinformatics 19:1589–1591, 2003;
// https://dunbrack.fccc.edu/pisces/).
//
// A list is a header line followed by one whitespace-separated row per
// chain:
//
//	IDs         length Exptl.  resolution  R-factor FreeRvalue
//	12ASA       330  XRAY        2.200    0.16    0.29
//
// An ID is the 4-character PDB code followed by the author chain ID (which
// may be longer than one character in recent lists). Files may be plain or
// gzip-compressed.
package pisces
