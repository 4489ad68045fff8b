package fold

import "math"

// gasConst is the gas constant in cal/(mol K), ViennaRNA's GASCONST.
const gasConst = 1.98717

// sfact is ViennaRNA's default scaling factor for the estimate of the
// ensemble free energy from the MFE (md.sfact): see pfScale.
const sfact = 1.07

// boltz holds the Boltzmann factors exp(-E/kT) of the loop energies of a
// Params, as ViennaRNA's vrna_exp_param_t (get_scaled_exp_params) computes
// them for the partition function: from the free energies at 37 C and
// the enthalpies of the parameter file, rescaled to the temperature
// without truncation to integers, and with the dangles and the exterior
// and multiloop mismatches "smoothed" (ViennaRNA's pf_smooth, its
// default): an energy E of them becomes -SMOOTH(-E), a function equal
// to E below -0.0866 kcal/mol, 0 above 0.12283697 kcal/mol and a smooth
// interpolation between, where the MFE takes min(E, 0).
//
// With mfeLike (ViennaRNA's pf_smooth = 0, or use_mfelike_energies) the
// energies are those of the MFE and of Eval exactly: truncated to
// integers after rescaling, and min(E, 0) for the dangles and those
// mismatches; this also truncates the extrapolation of hairpins longer
// than 30, which ViennaRNA does not.
type boltz struct {
	kT      float64 // cal/mol
	lxc     float64
	mfeLike bool

	stack                                                            [nPT][nPT]float64
	hairpin, bulge, internal                                         [31]float64
	ninio                                                            [MaxLoop + 1]float64 // by asymmetry
	mismatchH, mismatchI, mismatch1nI, mismatch23I, mismatchM, mmExt [nPT][nB][nB]float64
	dangle5, dangle3                                                 [nPT][nB]float64
	int11                                                            [nPT][nPT][nB][nB]float64
	int21                                                            [nPT][nPT][nB][nB][nB]float64
	int22                                                            [nPT][nPT][nB][nB][nB][nB]float64
	termAU, mlBase, mlClosing, mlIntern                              float64
	tetra, tri, hexa                                                 map[string]float64
}

// smooth is ViennaRNA's SMOOTH(X) of params.c for X = -E in dcal/mol.
func smooth(x float64) float64 {
	const scale = 10
	switch {
	case x/scale < -1.2283697:
		return 0
	case x/scale > 0.8660254:
		return x
	}
	v := math.Sin(x/scale-0.34242663) + 1
	return scale * 0.38490018 * v * v
}

// newBoltz computes the Boltzmann factors of p.
func newBoltz(p *Params, mfeLike bool) *boltz {
	b := &boltz{mfeLike: mfeLike}
	tt := (p.temperature + 273.15) / tMeasure
	b.kT = (p.temperature + 273.15) * gasConst
	b.lxc = lxc37 * tt
	g, h := &p.g37, &p.dH
	trunc := func(x float64) float64 {
		if mfeLike {
			return float64(int32(x))
		}
		return x
	}
	rs := func(dg, dh int32) float64 { return trunc(float64(dh) - float64(dh-dg)*tt) }
	bf := func(dg, dh int32) float64 { return math.Exp(-rs(dg, dh) * 10 / b.kT) }
	// dangles and exterior and multiloop mismatches never destabilise
	bfSmooth := func(dg, dh int32) float64 {
		if p.dangles == 0 {
			return 1
		}
		x := -rs(dg, dh)
		if mfeLike {
			x = max(x, 0)
		} else {
			x = smooth(x)
		}
		return math.Exp(x * 10 / b.kT)
	}
	for i := range b.stack {
		for j := range b.stack[i] {
			b.stack[i][j] = bf(g.stack[i][j], h.stack[i][j])
		}
	}
	for i := range b.hairpin {
		b.hairpin[i] = bf(g.hairpin[i], h.hairpin[i])
		b.bulge[i] = bf(g.bulge[i], h.bulge[i])
		b.internal[i] = bf(g.internal[i], h.internal[i])
	}
	ninio := rs(g.ninio, h.ninio)
	for j := range b.ninio {
		b.ninio[j] = math.Exp(-min(float64(p.maxNinio), float64(j)*ninio) * 10 / b.kT)
	}
	for i := 0; i < nPT; i++ {
		for j := 0; j < nB; j++ {
			for k := 0; k < nB; k++ {
				b.mismatchH[i][j][k] = bf(g.mismatchH[i][j][k], h.mismatchH[i][j][k])
				b.mismatchI[i][j][k] = bf(g.mismatchI[i][j][k], h.mismatchI[i][j][k])
				b.mismatch1nI[i][j][k] = bf(g.mismatch1nI[i][j][k], h.mismatch1nI[i][j][k])
				b.mismatch23I[i][j][k] = bf(g.mismatch23I[i][j][k], h.mismatch23I[i][j][k])
				b.mismatchM[i][j][k] = bfSmooth(g.mismatchM[i][j][k], h.mismatchM[i][j][k])
				b.mmExt[i][j][k] = bfSmooth(g.mmExt[i][j][k], h.mmExt[i][j][k])
			}
			b.dangle5[i][j] = bfSmooth(g.dangle5[i][j], h.dangle5[i][j])
			b.dangle3[i][j] = bfSmooth(g.dangle3[i][j], h.dangle3[i][j])
		}
	}
	for i := 0; i < nPT; i++ {
		for j := 0; j < nPT; j++ {
			for k := 0; k < nB; k++ {
				for l := 0; l < nB; l++ {
					b.int11[i][j][k][l] = bf(g.int11[i][j][k][l], h.int11[i][j][k][l])
					for m := 0; m < nB; m++ {
						b.int21[i][j][k][l][m] = bf(g.int21[i][j][k][l][m], h.int21[i][j][k][l][m])
						for n := 0; n < nB; n++ {
							b.int22[i][j][k][l][m][n] = bf(g.int22[i][j][k][l][m][n], h.int22[i][j][k][l][m][n])
						}
					}
				}
			}
		}
	}
	b.termAU = bf(g.terminalAU, h.terminalAU)
	b.mlBase = bf(g.mlBase, h.mlBase)
	b.mlClosing = bf(g.mlClosing, h.mlClosing)
	b.mlIntern = bf(g.mlIntern, h.mlIntern)
	special := func(gm, hm map[string]int32) map[string]float64 {
		m := make(map[string]float64, len(gm))
		for k, v := range gm {
			m[k] = bf(v, hm[k])
		}
		return m
	}
	b.tetra, b.tri, b.hexa = special(g.tetra, h.tetra), special(g.tri, h.tri), special(g.hexa, h.hexa)
	return b
}

// hairpin is the Boltzmann factor of the hairpin closed by (i, j),
// ViennaRNA's exp_E_Hairpin.
func (b *boltz) hairpinAt(s []int8, seq string, i, j int) float64 {
	size := j - i - 1
	typ := pairType[s[i]][s[j]]
	var q float64
	if size <= 30 {
		q = b.hairpin[size]
	} else {
		x := b.lxc * math.Log(float64(size)/30)
		if b.mfeLike {
			x = float64(int32(x))
		}
		q = b.hairpin[30] * math.Exp(-x*10/b.kT)
	}
	if size < minHairpin {
		return q
	}
	switch size {
	case 4:
		if v, ok := b.tetra[seq[i-1:j]]; ok {
			return v
		}
	case 6:
		if v, ok := b.hexa[seq[i-1:j]]; ok {
			return v
		}
	case 3:
		if v, ok := b.tri[seq[i-1:j]]; ok {
			return v
		}
		if typ > 2 {
			return q * b.termAU
		}
		return q
	}
	return q * b.mismatchH[typ][s[i+1]][s[j-1]]
}

// interior is the Boltzmann factor of an interior loop, stack or bulge,
// ViennaRNA's exp_E_IntLoop; the arguments are those of
// Params.interior.
func (b *boltz) interior(n1, n2, typ, typ2 int, si1, sj1, sp1, sq1 int8) float64 {
	nl, ns := n1, n2
	if n1 < n2 {
		nl, ns = n2, n1
	}
	if nl == 0 {
		return b.stack[typ][typ2]
	}
	if ns == 0 {
		z := b.bulge[nl]
		if nl == 1 {
			z *= b.stack[typ][typ2]
		} else {
			if typ > 2 {
				z *= b.termAU
			}
			if typ2 > 2 {
				z *= b.termAU
			}
		}
		return z
	}
	switch ns {
	case 1:
		switch nl {
		case 1:
			return b.int11[typ][typ2][si1][sj1]
		case 2:
			if n1 == 1 {
				return b.int21[typ][typ2][si1][sq1][sj1]
			}
			return b.int21[typ2][typ][sq1][si1][sp1]
		}
		z := b.internal[nl+ns] * b.mismatch1nI[typ][si1][sj1] * b.mismatch1nI[typ2][sq1][sp1]
		return z * b.ninio[nl-ns]
	case 2:
		switch nl {
		case 2:
			return b.int22[typ][typ2][si1][sp1][sq1][sj1]
		case 3:
			z := b.internal[5] * b.mismatch23I[typ][si1][sj1] * b.mismatch23I[typ2][sq1][sp1]
			return z * b.ninio[1]
		}
	}
	z := b.internal[nl+ns] * b.mismatchI[typ][si1][sj1] * b.mismatchI[typ2][sq1][sp1]
	return z * b.ninio[nl-ns]
}

// extStem is the Boltzmann factor of a stem of type typ in the exterior
// loop with the neighbours n5 and n3 (-1: none), ViennaRNA's
// exp_E_ExtLoop; with -d0 the dangle factors are 1.
func (b *boltz) extStem(typ int, n5, n3 int8) float64 {
	q := 1.0
	switch {
	case n5 >= 0 && n3 >= 0:
		q = b.mmExt[typ][n5][n3]
	case n5 >= 0:
		q = b.dangle5[typ][n5]
	case n3 >= 0:
		q = b.dangle3[typ][n3]
	}
	if typ > 2 {
		q *= b.termAU
	}
	return q
}

// mlStem is the Boltzmann factor of a stem of type typ in a multiloop,
// ViennaRNA's exp_E_MLstem (the neighbours always exist there).
func (b *boltz) mlStem(typ int, n5, n3 int8) float64 {
	q := b.mismatchM[typ][n5][n3]
	if typ > 2 {
		q *= b.termAU
	}
	return q * b.mlIntern
}
