// Package pdb reads protein structures from PDB-format files and from
// mmCIF files (the `_atom_site` and `_pdbx_poly_seq_scheme` categories),
// plain or gzip-compressed, and finds entries in a local mirror.
//
// Formats: "Protein Data Bank Contents Guide: Atomic Coordinate Entry
// Format Description", version 3.3 (wwPDB, 2012), for the fixed-column
// records HEADER, EXPDTA, REMARK 2, SEQRES, MODEL/ENDMDL, ATOM and HETATM;
// and the PDBx/mmCIF dictionary (https://mmcif.wwpdb.org) for mmCIF.
//
// Reading rules, the same for both formats:
//   - only the first model is read;
//   - of alternate locations, the first one seen for each atom is kept;
//   - residues are identified by chain, sequence number and insertion code;
//   - selenomethionine (MSE) reads as MET, and other common modified
//     residues as their parent amino acid (see Parent);
//   - HETATM records are kept only for amino acids (standard or modified).
//
// A Chain carries its SEQRES sequence (a biogo linear.Seq in the protein
// alphabet) and the residues that have coordinates; Chain.Align maps each
// SEQRES position to its residue by a global alignment (biogo's
// Needleman-Wunsch with BLOSUM62), so every SEQRES position knows whether
// it has C-alpha, N and C coordinates. Files without SEQRES use the
// observed residues as the sequence, in file order: a jump in residue
// numbering is not read as missing residues (renumbered and
// domain-numbered files jump without a chain break). A blank chain
// identifier reads as the chain ID ""; Structure.FindChain lets a caller
// name a file's only, unnamed chain.
//
// Errors are *ParseError values naming the file and line and wrapping one
// of the sentinel errors.
package pdb
