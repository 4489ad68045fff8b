// Package rna reads and writes RNA secondary structures, the labels of the
// RNA experiment of Maduranga, Zadorozhnyy and Ye ("Symmetry-structured
// convolutional neural networks", 2023), in the formats of the field:
//
//   - CT (connectivity table; Zuker's mfold, RNA STRAND): an optional
//     header, a line with the length (and "dG =" or "ENERGY =" and a
//     name), then one line per base: index, base, previous, next,
//     partner (0: unpaired), natural numbering.
//   - BPSEQ (Comparative RNA Web Site, RNA STRAND): optional header lines,
//     then "index base partner" per base.
//   - Dot-bracket (Vienna): the sequence and a line of '.' and brackets;
//     pseudoknotted pairs use further bracket kinds, (), [], {}, <>, then
//     letter pairs A/a, B/b, ...
//   - The five-line format of the paper's data (after Willmott et al.'s
//     ss-inf): a name, the bases as integers (A=0, C=1, G=2, U=3, other 4),
//     the 1-based partner of each base (0: unpaired), a 0/1 paired flag
//     per base, a blank line.
//   - FASTA for sequences to predict (case-insensitive, T read as U, IUPAC
//     ambiguity codes read as N and counted per record in
//     Sequence.Ambiguous so a caller can warn).
//
// A molecule is named by its identifier: the word after a CT length
// line's energy field, else a "Filename:" header's without the
// extension, else the first word of a FASTA header. Dot-bracket writing
// never fails on a valid structure: pairs beyond the 30 bracket kinds are
// left out of the line and counted (DotBracketOmitted, and a comment line
// in WriteDotBracket's output).
//
// Pair-probability maps of the networks decode to structures greedily as
// the paper does (Decode) or by the gamma-centroid maximum expected
// accuracy programme over canonical pairs, nested or with a second
// pseudoknot layer (DecodeMEA).
//
// Line ends may be LF, CRLF or CR (RNA STRAND has CT files with old Mac
// line ends). Errors name the file and line (ParseError) and wrap
// ErrFormat, ErrSequence or ErrPairing. A Structure is consistent: every
// pair is mutual, no base has two partners, every partner is in range.
package rna
