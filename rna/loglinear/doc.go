// Package loglinear is a learned model of nested RNA secondary
// structure: a conditional log-linear model over the loop decomposition,
// CONTRAfold's idea (Do, Woods and Batzoglou, Bioinformatics 22:e90,
// 2006), with its weights fitted here by conditional maximum likelihood
// instead of measured free energies (package fold holds the Turner 2004
// model).
//
// The model. A structure s of a sequence x is a nested set of canonical
// pairs (AU, CG, GU in either order), every hairpin of at least
// MinHairpin unpaired bases and every interior loop (bulges included) of
// at most MaxLoop. Its score is F(s) = theta . c(s), where c(s) counts
// the features of its loops (Feature names them):
//
//   - every pair: its type;
//   - a hairpin closed by (i, j): its length (to 30) and the terminal
//     mismatch of (i, j) with x[i+1] and x[j-1];
//   - a stack (i, j), (i+1, j-1): the two pair types;
//   - a bulge: its length;
//   - an interior loop of n1 x n2 unpaired bases: its length n1+n2, its
//     asymmetry |n1-n2|, the terminal mismatches of both pairs into the
//     loop and, for n1, n2 <= 4, an explicit n1 x n2 weight;
//   - a multiloop: a closing weight, a weight per branch (the closing
//     pair included) and per unpaired base, and the terminal mismatch of
//     every branch with its two neighbouring bases, paired or not (as
//     RNAfold -d2 does);
//   - the exterior loop: a weight per branch and per unpaired base, and
//     the terminal mismatch of every branch with its neighbours (a
//     sequence end, like N, is the fifth base value).
//
// P(s | x) = exp(F(s)) / Z(x). Fold computes Z by the inside algorithm
// over the grammar
//
//	Qb(i,j)  = e(pair) [ H(i,j) + sum_kl I(i,j,k,l) Qb(k,l)
//	                     + M(i,j) sum_u Qm(i+1,u-1) Qm1(u,j-1) ]
//	Qm1(i,j) = sum_l Qb(i,l) e(branch) e(mismatch) e(unpaired)^(j-l)
//	Qm(i,j)  = sum_u [ e(unpaired)^(u-i) + Qm(i,u-1) ] Qm1(u,j)
//	E(j)     = E(j-1) e(ext unpaired) + sum_k E(k) Qb(k,j-1) e(ext branch)
//
// (Z = E(n)), in O(n W^2) time for pairs of span below W, and the pair
// probabilities and the expected feature counts E[c] by the outside
// algorithm, the adjoint of the inside: the gradient of log Z is E[c],
// so that of the negative log-likelihood -log P(s | x) is E[c] - c(s).
// The tables are scaled per base (gamma^-n for a segment of n bases) so
// that long sequences stay in float64's range.
//
// Train fits theta on known structures by L-BFGS (gonum/optimize) on the
// mean negative log-likelihood with L2 regularisation. A Model is saved
// as a text file of named weights (WriteModel, ReadModel).
//
// The tests check Z, every pair probability and every expected count
// against the sum over all structures of short sequences, and the
// gradient against finite differences.
package loglinear
