// Package fold predicts RNA secondary structure by free energy
// minimisation: Zuker's dynamic programme (Zuker and Stiegler 1981) with
// the Turner 2004 nearest-neighbour energy model (Mathews et al. 2004;
// Turner and Mathews 2010) exactly as RNAfold of the ViennaRNA Package 2.x
// (Lorenz et al. 2011) computes it with its default options; and it
// computes the equilibrium ensemble of the same model (McCaskill's
// partition function and base-pair probabilities, the centroid and MEA
// structures) as RNAfold -p does.
//
// The model: canonical pairs AU, CG and GU; hairpins of at least 3
// unpaired bases with the special tri-, tetra- and hexaloops of the
// parameter file and the terminal mismatch (a terminal AU/GU penalty for
// triloops); stacks, bulges (a stack for one-base bulges, terminal AU/GU
// penalties otherwise) and interior loops of at most MaxLoop = 30 unpaired
// bases with the 1x1, 2x1 and 2x2 tables, the 1xn and 2x3 mismatches, the
// Ninio asymmetry term and the generic mismatch; loop lengths above 30
// extrapolated by 1.07856 ln(n/30) kcal/mol; multiloops with the linear
// energy a + b*branches + c*unpaired; dangles as RNAfold's default -d2: a
// stem in the exterior loop or a multiloop gets the terminal mismatch
// energy of both neighbouring bases, or the dangle of the one that exists
// at a sequence end, whether the neighbours are paired or not, and the
// terminal AU/GU penalty. Lonely pairs are allowed (as RNAfold's default); there are no
// G-quadruplexes, constraints or circular folding. Among structures of
// equal energy the traceback chooses the one RNAfold chooses.
//
// The parameters are read from ViennaRNA's parameter file format (version
// 2.0; see ParseParams); the package embeds misc/rna_turner2004.par of
// ViennaRNA, RNAfold's default set (see README.md for its source, its
// licence and one correction). Params.WithTemperature rescales them as
// RNAfold -T does, Params.WithDangles(0) gives RNAfold -d0,
// Params.WithNoLP(true) RNAfold --noLP and Params.WithMaxSpan RNAfold
// --maxBPspan. Energies are integers in dcal/mol
// as in ViennaRNA and reported in kcal/mol.
//
// MFE runs in O(L^3) time (interior loops O(L^2 MaxLoop^2)) and 12 L^2
// bytes; the cells of one span are filled in parallel. EvalStructure gives
// the energy of any nested structure by the same loop decomposition.
//
// Long sequences: with a span limit W < L (Params.WithMaxSpan, RNAfold
// --maxBPspan, the span of RNAplfold -L) the tables of the MFE fold and
// of the partition function hold the band j - i < W only, the exterior
// loop O(L) vectors, and the Ensemble's probabilities the band too
// (Ensemble.Pairs lists them sparsely): time O(L W^2), memory O(L W), so
// that 50,000 nt fold with W = 200 in about 0.75 GB (MFE, partition
// function, centroid and MEA). The results are those of the global
// programmes restricted to such pairs (RNAfold --maxBPspan, not
// RNALfold's or RNAplfold's local windows). FoldContext and
// PartitionContext stop when their context is done, between the spans of
// the dynamic programmes.
//
// Params.Partition computes the equilibrium ensemble as RNAfold -p does
// (McCaskill 1990): the partition function over the same loop
// decomposition and options, in float64 with ViennaRNA's scaling of the
// weights by the MFE, the ensemble free energy and the base-pair
// probabilities by the outside algorithm, in O(L^3) time and 33 L^2
// bytes, the cells of one span in parallel. Its Boltzmann factors are
// RNAfold's: not truncated to integers at other temperatures, and with
// the dangles and exterior and multiloop mismatches smoothed near 0
// (ViennaRNA's pf_smooth); with --noLP, as in RNAfold -p, only the pairs
// that cannot stack are left out (the ensemble may hold lonely pairs).
// The Ensemble gives the probability map (Probabilities: an L x L
// float32 map like the networks'), the centroid structure (the pairs of probability above 0.5, with its
// expected distance), ViennaRNA's MEA structure (MEA, with its gamma), the
// frequency of the MFE structure, the ensemble diversity and RNAfold's
// pairing tendency string. The centroid is that of Ding, Chan and
// Lawrence (2005); ViennaRNA's MEA objective is CONTRAfold's (Do, Woods
// and Batzoglou 2006), unlike that of rna.DecodeMEA (see Ensemble.MEA).
//
// Params.PartitionBonus is the same ensemble with a bonus in kT for each
// pair (a PairBonus: the pseudo-energy of ViennaRNA's base-pair soft
// constraints): each structure's weight times exp of its pairs' bonuses.
// Its pair probabilities are the derivatives of ln Z (Ensemble.LogZ)
// with respect to the bonuses, so that learned pair scores can be
// trained through the thermodynamic model by its conditional likelihood,
// as the hybrid network of rna/ssnet is. The tests compare it with the
// sum over every structure of short sequences and with finite
// differences of ln Z.
//
// The tests compare structures, energies, ensemble energies, centroid and
// MEA structures and pair probabilities with the expected outputs of
// RNAfold's own test suite (testdata/README.md), and the partition
// function and every pair probability of short sequences with the sum
// over all their structures.
//
// References:
//   - Y. Ding, C.Y. Chan and C.E. Lawrence (2005), RNA secondary structure
//     prediction by centroids in a Boltzmann weighted ensemble, RNA
//     11:1157-1166.
//   - C.B. Do, D.A. Woods and S. Batzoglou (2006), CONTRAfold: RNA
//     secondary structure prediction without physics-based models,
//     Bioinformatics 22:e90-e98.
//   - J.S. McCaskill (1990), The equilibrium partition function and base
//     pair binding probabilities for RNA secondary structure, Biopolymers
//     29:1105-1119.
//   - M. Zuker and P. Stiegler (1981), Optimal computer folding of large RNA
//     sequences using thermodynamics and auxiliary information, Nucleic
//     Acids Res 9:133-148.
//   - D.H. Mathews, M.D. Disney, J.L. Childs, S.J. Schroeder, M. Zuker and
//     D.H. Turner (2004), Incorporating chemical modification constraints
//     into a dynamic programming algorithm for prediction of RNA secondary
//     structure, PNAS 101:7287-7292.
//   - D.H. Turner and D.H. Mathews (2010), NNDB: the nearest neighbor
//     parameter database for predicting stability of nucleic acid secondary
//     structure, Nucleic Acids Res 38:D280-D282.
//   - R. Lorenz, S.H. Bernhart, C. Höner zu Siederdissen, H. Tafer,
//     C. Flamm, P.F. Stadler and I.L. Hofacker (2011), ViennaRNA Package
//     2.0, Algorithms Mol Biol 6:26.
package fold
