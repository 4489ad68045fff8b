// Package features turns PDB chains into training-ready feature files for
// contact-map prediction (Maduranga, Zadorozhnyy and Ye, "Symmetry
// Structured Convolutional Neural Networks", 2023, section on protein
// contact maps), and runs that stage over a PISCES list.
//
// No feature uses the structure's coordinates: Compute sees only the
// chain's sequence, a secondary-structure prediction and an MSA. The
// structure gives the labels only.
//
// # 1D features, L x 25 (channel: meaning)
//
//	0-19   amino-acid profile, columns in AminoAcids order (ARNDCQEGHILKMFPSTWYV),
//	       each row a probability distribution:
//	         with an MSA: sequence-weighted (80% identity) residue counts
//	         of the column plus a BLOSUM62 prior around the query residue
//	         with weight 5;
//	         without: P(b | a) = p_b 2^(BLOSUM62(a,b)/2), normalised, for
//	         the residue a (background p of Robinson & Robinson 1991;
//	         unknown residues get the background);
//	         positions outside the MSA's query get the no-MSA row.
//	20-22  secondary structure, P(helix), P(strand), P(coil): one-hot from
//	       a PSIPRED 3-state prediction (FASTA or .horiz), probabilities
//	       from a PSIPRED .ss2; without one, EstimateSS (windowed
//	       Chou-Fasman propensities).
//	23     Kyte-Doolittle hydropathy / 4.5 (0 for unknown residues)
//	24     relative sequence position i / (L-1)
//
// # 2D features, L x L x 3, symmetric (stored as the upper triangle)
//
//	0  co-evolution: mean-field DCA coupling norm with APC (ComputeCoevolution),
//	   or, in mode msa+plm (Options.Plm), plmDCA's (package potts: a
//	   pseudo-likelihood Potts model, Ekeberg et al. 2013), z-scored over
//	   the off-diagonal pairs of the MSA's columns
//	1  mutual information with APC, z-scored the same way
//	2  contact potential: -e_ij / 4, e the Miyazawa-Jernigan (1996) contact
//	   energy of the two residue types in RT units (unknown: 0)
//
// Non-standard one-letter codes: U is read as C, O as K; B, Z and J take
// the mean of the two residues they stand for (D/N, E/Q, I/L) in every
// channel; X and other letters are unknown (residues.go). NonStandard
// describes them for a warning; the sequence is kept as given.
//
// Channels 0 and 1 are 0 without an MSA and outside the MSA's query, which
// is aligned to the chain's SEQRES (biogo fitted alignment, BLOSUM62).
//
// # Labels
//
// Over SEQRES positions, a pair is a contact when its C-alpha atoms (or
// C-beta atoms, C-alpha for glycine and a virtual C-beta where the file
// has none: CASP's definition) are closer than 8 Å; pairs with
// a residue lacking coordinates are masked, never negatives.
//
// # Structures
//
// A chain's sequence is its SEQRES; a file without SEQRES (models,
// benchmark structures such as PSICOV's, Pfam-family files) gives the
// residues of its ATOM records instead, each with its own coordinates
// (pdb.Chain.Sequence, Align). The chain a list or chain-set row names is
// looked up by author chain ID (pdb.Structure.FindChain): a file whose
// only chain has a blank identifier holds the chain the row names, so a
// PSICOV family 1brfA is row 1BRF_A of the file pdb/1brfA.pdb.gz.
//
// # File format
//
// See format.go. Each file records whether an MSA and a secondary-structure
// prediction were used (Mode), so training and prediction can refuse a
// mismatch.
package features
