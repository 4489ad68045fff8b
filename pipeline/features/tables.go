package features

import (
	"math"

	"github.com/biogo/biogo/align/matrix"
	"github.com/biogo/biogo/alphabet"
)

// AminoAcids is the order of the 20 profile columns.
const AminoAcids = "ARNDCQEGHILKMFPSTWYV"

// aaIndex maps an upper-case one-letter code to its column, -1 otherwise.
var aaIndex = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(AminoAcids); i++ {
		t[AminoAcids[i]] = int8(i)
	}
	return t
}()

// background holds the amino-acid frequencies of Robinson & Robinson (PNAS
// 88:8880, 1991), the background of BLAST and BLOSUM-based profiles.
var background = [20]float64{
	0.07805, 0.05129, 0.04487, 0.05364, 0.01925, 0.04264, 0.06295, 0.07377, 0.02199, 0.05142,
	0.09019, 0.05744, 0.02243, 0.03856, 0.05203, 0.07120, 0.05841, 0.01330, 0.03216, 0.06441,
}

// blosumProfile[a] is the substitution distribution P(b | a) implied by
// BLOSUM62 (scores in half bits, S = 2 log2(q_ab / (p_a p_b))):
// P(b | a) ∝ p_b 2^(S(a,b)/2). Row 20 (unknown residue) is the background.
var blosumProfile = func() [21][20]float64 {
	var p [21][20]float64
	for a := 0; a < 20; a++ {
		ia := alphabet.Protein.IndexOf(alphabet.Letter(AminoAcids[a]))
		sum := 0.0
		for b := 0; b < 20; b++ {
			ib := alphabet.Protein.IndexOf(alphabet.Letter(AminoAcids[b]))
			p[a][b] = background[b] * math.Pow(2, float64(matrix.BLOSUM62[ia][ib])/2)
			sum += p[a][b]
		}
		for b := range p[a] {
			p[a][b] /= sum
		}
	}
	p[20] = background
	return p
}()

// chouFasman holds the helix and strand propensities (P_alpha, P_beta) of
// Chou & Fasman (Adv. Enzymol. 47:45, 1978), in AminoAcids order.
var chouFasman = [20][2]float64{
	{1.42, 0.83}, {0.98, 0.93}, {0.67, 0.89}, {1.01, 0.54}, {0.70, 1.19},
	{1.11, 1.10}, {1.51, 0.37}, {0.57, 0.75}, {1.00, 0.87}, {1.08, 1.60},
	{1.21, 1.30}, {1.16, 0.74}, {1.45, 1.05}, {1.13, 1.38}, {0.57, 0.55},
	{0.77, 0.75}, {0.83, 1.19}, {1.08, 1.37}, {0.69, 1.47}, {1.06, 1.70},
}

// kyteDoolittle is the hydropathy scale of Kyte & Doolittle (J. Mol. Biol.
// 157:105, 1982), in AminoAcids order.
var kyteDoolittle = [20]float64{
	1.8, -4.5, -3.5, -3.5, 2.5, -3.5, -3.5, -0.4, -3.2, 4.5,
	3.8, -3.9, 1.9, 2.8, -1.6, -0.8, -0.7, -0.9, -1.3, 4.2,
}

// mjOrder is the residue order of Miyazawa & Jernigan's tables.
const mjOrder = "CMFILVWYAGTSQNEDHRKP"

// mjUpper is the upper triangle (row by row, diagonal included) of the
// contact energies e_ij of Miyazawa & Jernigan, "Residue-residue
// potentials with a favorable contact pair term and an unfavorable high
// packing density term, for simulation and threading", J. Mol. Biol.
// 256:623–644 (1996), Table 3, in RT units, residues in mjOrder.
var mjUpper = []float64{
	-5.44, -4.99, -5.80, -5.50, -5.83, -4.96, -4.95, -4.16, -3.57, -3.16, -3.11, -2.86, -2.59, -2.85, -2.41, -2.27, -3.60, -2.57, -1.95, -3.07,
	-5.46, -6.56, -6.02, -6.41, -5.32, -5.55, -4.91, -3.94, -3.39, -3.51, -3.03, -2.95, -3.30, -2.57, -2.89, -3.98, -3.12, -2.48, -3.45,
	-7.26, -6.84, -7.28, -6.29, -6.16, -5.66, -4.81, -4.13, -4.28, -4.02, -3.75, -4.10, -3.48, -3.56, -4.77, -3.98, -3.36, -4.25,
	-6.54, -7.04, -6.05, -5.78, -5.25, -4.58, -3.78, -4.03, -3.52, -3.24, -3.67, -3.17, -3.27, -4.14, -3.63, -3.01, -3.76,
	-7.37, -6.48, -6.14, -5.67, -4.91, -4.16, -4.34, -3.92, -3.74, -4.04, -3.40, -3.59, -4.54, -4.03, -3.37, -4.20,
	-5.52, -5.18, -4.62, -4.04, -3.38, -3.46, -3.05, -2.83, -3.07, -2.48, -2.67, -3.58, -3.07, -2.49, -3.32,
	-5.06, -4.66, -3.82, -3.42, -3.22, -2.99, -3.07, -3.11, -2.84, -2.99, -3.98, -3.41, -2.69, -3.73,
	-4.17, -3.36, -3.01, -3.01, -2.78, -2.76, -2.97, -2.76, -2.79, -3.52, -3.16, -2.60, -3.19,
	-2.72, -2.31, -2.32, -2.01, -1.84, -1.89, -1.70, -1.51, -2.41, -1.83, -1.31, -2.03,
	-2.24, -2.08, -1.82, -1.74, -1.66, -1.59, -1.22, -2.15, -1.72, -1.15, -1.87,
	-2.12, -1.96, -1.88, -1.90, -1.80, -1.74, -2.42, -1.90, -1.31, -1.90,
	-1.67, -1.58, -1.49, -1.63, -1.48, -2.11, -1.62, -1.05, -1.57,
	-1.68, -1.71, -1.68, -1.51, -2.08, -1.64, -1.21, -1.53,
	-1.54, -1.46, -1.42, -1.98, -1.80, -1.29, -1.73,
	-1.21, -1.02, -2.32, -2.29, -1.68, -1.33,
	-0.91, -2.15, -2.27, -1.80, -1.26,
	-3.05, -2.16, -1.35, -2.25,
	-1.55, -0.59, -1.70,
	-0.12, -0.97,
	-1.75,
}

// contactEnergy[a][b] is the MJ96 energy in AminoAcids order.
var contactEnergy = func() [20][20]float64 {
	var full [20][20]float64
	k := 0
	for i := 0; i < 20; i++ {
		for j := i; j < 20; j++ {
			full[i][j], full[j][i] = mjUpper[k], mjUpper[k]
			k++
		}
	}
	var e [20][20]float64
	for a := 0; a < 20; a++ {
		for b := 0; b < 20; b++ {
			ma := indexOf(mjOrder, AminoAcids[a])
			mb := indexOf(mjOrder, AminoAcids[b])
			e[a][b] = full[ma][mb]
		}
	}
	return e
}()

func indexOf(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	panic("features: residue not in table")
}
