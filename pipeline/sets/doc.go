// Package sets builds protein chain sets from the structures on disk for
// protocols beyond a PISCES list (docs/protein.md, "More data"):
//
//   - an extended training set: every protein chain of a PDB mirror whose
//     sequence identity to each validation and test chain of a base split
//     is under 25%, with near-duplicates (identity >= 95%) inside the set
//     removed;
//   - a length-generalisation set: chains longer than the training range
//     whose identity to every training and validation chain is under 25%,
//     near-duplicates removed.
//
// Identity below 25% is the twilight zone, where chance alignments reach
// it: against the 186 held-out chains of the PISCES split, most PISCES
// training chains have some held-out chain at >= 25% identity by a plain
// local alignment over the shorter chain, and all of them by a global
// one, although PISCES culled them apart (go run
// ./experiments/sets-calibration). So two chains count as
// related the way BLAST-based culling (PISCES: Wang and Dunbrack,
// Bioinformatics 19:1589, 2003) counts them: their best local alignment
// (Smith-Waterman, BLOSUM62, gaps 11 + k; biogo) is significant, with an
// E-value against the whole reference set below 0.01 (Karlin-Altschul,
// BLAST's gapped BLOSUM62 parameters), and at least 25% of its columns
// are identical. Near-duplicates are chains whose local alignment has 95%
// of the shorter chain identical (seqalign.Identity); a pair whose
// composition bound (seqalign.IdentityBound) is below that is not
// aligned.
//
// A set is written as a chain-set file (tab-separated, one chain a line:
// id, length, split, file, nearest, identity), which
// "contactmap features --chains" reads in place of a PISCES list.
package sets
