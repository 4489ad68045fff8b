package pdb

import (
	"github.com/biogo/biogo/align"
	"github.com/biogo/biogo/align/matrix"
	"github.com/biogo/biogo/alphabet"
	"github.com/biogo/biogo/seq/linear"
)

// gapPenalty is the linear gap cost for aligning SEQRES with the observed
// residues. Missing residues are gaps in the observed sequence, so they
// must be cheap relative to BLOSUM62 matches (+4 to +11).
const gapPenalty = -2

var nwBLOSUM62 = func() align.NW {
	m := make(align.NW, len(matrix.BLOSUM62))
	for i, row := range matrix.BLOSUM62 {
		m[i] = append([]int(nil), row...)
		if i == 0 {
			for j := range m[i] {
				m[i][j] = gapPenalty
			}
		}
		m[i][0] = gapPenalty
	}
	m[0][0] = 0
	return m
}()

// alignGlobal aligns ref and obs (one-letter protein sequences) and
// returns the aligned (ref index, obs index) pairs in order.
func alignGlobal(ref, obs string) ([][2]int, error) {
	a := linear.NewSeq("ref", alphabet.BytesToLetters([]byte(ref)), alphabet.Protein)
	b := linear.NewSeq("obs", alphabet.BytesToLetters([]byte(obs)), alphabet.Protein)
	fp, err := nwBLOSUM62.Align(a, b)
	if err != nil {
		return nil, err
	}
	var pairs [][2]int
	for _, p := range fp {
		f := p.Features()
		if f[0].Len() == 0 || f[1].Len() == 0 {
			continue // a gap
		}
		for k := 0; k < f[0].Len(); k++ {
			pairs = append(pairs, [2]int{f[0].Start() + k, f[1].Start() + k})
		}
	}
	return pairs, nil
}
