package fold

import (
	"fmt"
	"math"

	"github.com/contactmap/contactmap/rna"
)

// pairType[a][b] is ViennaRNA's pair type of bases a and b (0 N, 1 A,
// 2 C, 3 G, 4 U): 1 CG, 2 GC, 3 GU, 4 UG, 5 AU, 6 UA, 0 no pair.
var pairType = [nB][nB]int{
	{0, 0, 0, 0, 0},
	{0, 0, 0, 0, 5},
	{0, 0, 0, 1, 0},
	{0, 0, 2, 0, 3},
	{0, 6, 0, 4, 0},
}

// rtype is the type of the reversed pair.
var rtype = [nPT]int{0, 2, 1, 4, 3, 6, 5, 7}

// minHairpin is the smallest hairpin loop (unpaired bases).
const minHairpin = 3

// encode returns the 1-based encoding of seq (0 N, 1 A, 2 C, 3 G, 4 U),
// padded with 0 at positions 0 and n+1, and seq normalised (upper case,
// U for T, N for ambiguity codes).
func encode(seq string) ([]int8, string, error) {
	norm, err := rna.NormalizeSequence(seq)
	if err != nil {
		return nil, "", err
	}
	s := make([]int8, len(norm)+2)
	for i := 0; i < len(norm); i++ {
		switch norm[i] {
		case 'A':
			s[i+1] = 1
		case 'C':
			s[i+1] = 2
		case 'G':
			s[i+1] = 3
		case 'U':
			s[i+1] = 4
		}
	}
	return s, norm, nil
}

// hairpin is the energy of the hairpin loop closed by (i, j) (1-based)
// of seq (normalised) encoded as s, as ViennaRNA's E_Hairpin with special
// hairpins.
func (p *Params) hairpin(s []int8, seq string, i, j int) int32 {
	t := &p.t
	size := j - i - 1
	typ := pairType[s[i]][s[j]]
	var e int32
	if size <= 30 {
		e = t.hairpin[size]
	} else {
		e = t.hairpin[30] + int32(p.lxc*math.Log(float64(size)/30))
	}
	if size < minHairpin {
		return e
	}
	switch size {
	case 4:
		if v, ok := t.tetra[seq[i-1:j]]; ok {
			return v
		}
	case 6:
		if v, ok := t.hexa[seq[i-1:j]]; ok {
			return v
		}
	case 3:
		if v, ok := t.tri[seq[i-1:j]]; ok {
			return v
		}
		if typ > 2 {
			e += t.terminalAU
		}
		return e
	}
	return e + t.mismatchH[typ][s[i+1]][s[j-1]]
}

// interior is ViennaRNA's E_IntLoop: the loop of n1 unpaired bases on the
// 5' side and n2 on the 3' side between the pair of type typ and the
// enclosed pair of reversed type typ2; si1, sj1 are the bases after i and
// before j, sp1, sq1 those before p and after q.
func (p *Params) interior(n1, n2, typ, typ2 int, si1, sj1, sp1, sq1 int8) int32 {
	t := &p.t
	nl, ns := n1, n2
	if n1 < n2 {
		nl, ns = n2, n1
	}
	if nl == 0 {
		return t.stack[typ][typ2]
	}
	if ns == 0 {
		var e int32
		if nl <= MaxLoop {
			e = t.bulge[nl]
		} else {
			e = t.bulge[30] + int32(p.lxc*math.Log(float64(nl)/30))
		}
		if nl == 1 {
			e += t.stack[typ][typ2]
		} else {
			if typ > 2 {
				e += t.terminalAU
			}
			if typ2 > 2 {
				e += t.terminalAU
			}
		}
		return e
	}
	switch ns {
	case 1:
		switch nl {
		case 1:
			return t.int11[typ][typ2][si1][sj1]
		case 2:
			if n1 == 1 {
				return t.int21[typ][typ2][si1][sq1][sj1]
			}
			return t.int21[typ2][typ][sq1][si1][sp1]
		}
		var e int32
		if nl+1 <= MaxLoop {
			e = t.internal[nl+1]
		} else {
			e = t.internal[30] + int32(p.lxc*math.Log(float64(nl+1)/30))
		}
		e += min(p.maxNinio, int32(nl-ns)*t.ninio)
		return e + t.mismatch1nI[typ][si1][sj1] + t.mismatch1nI[typ2][sq1][sp1]
	case 2:
		switch nl {
		case 2:
			return t.int22[typ][typ2][si1][sp1][sq1][sj1]
		case 3:
			return t.internal[5] + t.ninio + t.mismatch23I[typ][si1][sj1] + t.mismatch23I[typ2][sq1][sp1]
		}
	}
	u := nl + ns
	var e int32
	if u <= MaxLoop {
		e = t.internal[u]
	} else {
		e = t.internal[30] + int32(p.lxc*math.Log(float64(u)/30))
	}
	e += min(p.maxNinio, int32(nl-ns)*t.ninio)
	return e + t.mismatchI[typ][si1][sj1] + t.mismatchI[typ2][sq1][sp1]
}

// intLoop is the energy of the interior loop (or stack, bulge) closed by
// (i, j) enclosing (k, l), i < k < l < j, 1-based.
func (p *Params) intLoop(s []int8, i, j, k, l int) int32 {
	return p.interior(k-i-1, j-l-1, pairType[s[i]][s[j]], pairType[s[l]][s[k]], s[i+1], s[j-1], s[k-1], s[l+1])
}

// extStem and mlStem are the contributions of a stem of pair type typ in
// the exterior loop or a multiloop with the 5' and 3' neighbours n5 and
// n3 (-1: none), as ViennaRNA's E_ExtLoop and E_MLstem with dangles -d2
// (-d0: no neighbours).
func (p *Params) extStem(typ int, n5, n3 int8) int32 {
	t := &p.t
	if p.dangles == 0 {
		n5, n3 = -1, -1
	}
	var e int32
	switch {
	case n5 >= 0 && n3 >= 0:
		e = t.mmExt[typ][n5][n3]
	case n5 >= 0:
		e = t.dangle5[typ][n5]
	case n3 >= 0:
		e = t.dangle3[typ][n3]
	}
	if typ > 2 {
		e += t.terminalAU
	}
	return e
}

func (p *Params) mlStem(typ int, n5, n3 int8) int32 {
	t := &p.t
	if p.dangles == 0 {
		n5, n3 = -1, -1
	}
	e := t.mlIntern
	switch {
	case n5 >= 0 && n3 >= 0:
		e += t.mismatchM[typ][n5][n3]
	case n5 >= 0:
		e += t.dangle5[typ][n5]
	case n3 >= 0:
		e += t.dangle3[typ][n3]
	}
	if typ > 2 {
		e += t.terminalAU
	}
	return e
}

// extStemAt is the exterior-loop contribution of the stem closed by
// (i, j), 1-based, in a sequence of length n = len(s)-2.
func (p *Params) extStemAt(s []int8, i, j int) int32 {
	n := len(s) - 2
	n5, n3 := int8(-1), int8(-1)
	if i > 1 {
		n5 = s[i-1]
	}
	if j < n {
		n3 = s[j+1]
	}
	return p.extStem(pairType[s[i]][s[j]], n5, n3)
}

// mlClosing is the multiloop contribution of its closing pair (i, j):
// MLclosing and the closing stem, seen from inside.
func (p *Params) mlClosingAt(s []int8, i, j int) int32 {
	return p.t.mlClosing + p.mlStem(rtype[pairType[s[i]][s[j]]], s[j-1], s[i+1])
}

// mlStemAt is the multiloop contribution of the branch (i, j).
func (p *Params) mlStemAt(s []int8, i, j int) int32 {
	return p.mlStem(pairType[s[i]][s[j]], s[i-1], s[j+1])
}

// EvalStructure returns the free energy (kcal/mol) of the nested
// structure of seq given by its pairs (0-based, each once, any order)
// under the Turner 2004 model with RNAfold's defaults (see Params.Eval).
func EvalStructure(seq string, pairs [][2]int) (float64, error) {
	return DefaultParams().Eval(seq, pairs)
}

// Eval returns the free energy (kcal/mol) of the nested structure of seq
// given by its pairs (0-based, each once, any order): the sum over its
// loops (exterior loop and multiloops with -d2 dangles, hairpins, stacks,
// bulges and interior loops of any size) as ViennaRNA's energy
// evaluation. Pairs must be canonical (AU, CG, GU), non-crossing, and
// enclose at least 3 unpaired bases.
func (p *Params) Eval(seq string, pairs [][2]int) (float64, error) {
	e, err := p.EvalDcal(seq, pairs)
	return float64(e) / 100, err
}

// EvalDcal is Eval in integer dcal/mol.
func (p *Params) EvalDcal(seq string, pairs [][2]int) (int, error) {
	s, norm, err := encode(seq)
	if err != nil {
		return 0, err
	}
	st, err := rna.New("", norm, pairs)
	if err != nil {
		return 0, err
	}
	n := len(norm)
	pt := make([]int, n+2) // 1-based partners, 0 unpaired
	for i, j := range st.Partner {
		if j >= 0 {
			pt[i+1] = j + 1
		}
	}
	for i := 1; i <= n; i++ {
		j := pt[i]
		if j <= i {
			continue
		}
		if pairType[s[i]][s[j]] == 0 {
			return 0, fmt.Errorf("%w: pair (%d, %d) %c-%c is not canonical", rna.ErrPairing, i, j, norm[i-1], norm[j-1])
		}
		if j-i-1 < minHairpin {
			return 0, fmt.Errorf("%w: pair (%d, %d) encloses fewer than %d bases", rna.ErrPairing, i, j, minHairpin)
		}
		for k := i + 1; k < j; k++ {
			if pt[k] != 0 && (pt[k] < i || pt[k] > j) {
				return 0, fmt.Errorf("%w: pairs (%d, %d) and (%d, %d) cross", rna.ErrPairing, i, j, min(k, pt[k]), max(k, pt[k]))
			}
		}
	}
	var e int32
	// exterior loop
	for i := 1; i <= n; i++ {
		if j := pt[i]; j > i {
			e += p.extStemAt(s, i, j)
			i = j
		}
	}
	for i := 1; i <= n; i++ {
		if j := pt[i]; j > i {
			e += p.loopEnergy(s, norm, pt, i, j)
		}
	}
	return int(e), nil
}

// loopEnergy is the energy of the loop closed by (i, j) in the pair
// table pt.
func (p *Params) loopEnergy(s []int8, seq string, pt []int, i, j int) int32 {
	var branches [][2]int
	for k := i + 1; k < j; k++ {
		if l := pt[k]; l > k {
			branches = append(branches, [2]int{k, l})
			k = l
		}
	}
	switch len(branches) {
	case 0:
		return p.hairpin(s, seq, i, j)
	case 1:
		return p.intLoop(s, i, j, branches[0][0], branches[0][1])
	}
	e := p.mlClosingAt(s, i, j)
	unpaired := j - i - 1
	for _, b := range branches {
		e += p.mlStemAt(s, b[0], b[1])
		unpaired -= b[1] - b[0] + 1
	}
	return e + int32(unpaired)*p.t.mlBase
}
