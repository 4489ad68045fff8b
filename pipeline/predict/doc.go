// Package predict runs a trained contact model on chains given by PDB ID,
// structure file or sequence, and writes the standard outputs:
//
//   - CASP RR (https://predictioncenter.org/casp14/index.cgi?page=format#RR):
//     "PFRMAT RR", TARGET, AUTHOR, METHOD, MODEL 1, the sequence in lines of
//     50, then one "i j 0 8 p" row per pair i < j (1-based), sorted by
//     decreasing probability, and END; the format ConKit and CASP tools read.
//     It keeps the most probable pairs with |i-j| >= 6, by default at most
//     5L (Config.RRMax), and a REMARK says how many it kept of how many;
//   - the full L x L probability matrix as NumPy .npy (format version 1.0,
//     little-endian float32, C order) and/or TSV;
//   - a PNG heatmap: predicted probabilities above the diagonal and, when
//     the structure is known, the true contacts below it, with a colour
//     scale.
//
// Matrices are symmetric: p[i][j] = p[j][i] is the prediction for the pair
// (min(i,j), max(i,j)); an SCNN's output is symmetric by construction, a
// CNN's upper triangle is its prediction (as in training and evaluation).
package predict
