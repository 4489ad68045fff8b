package fold

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Inf is the energy of a forbidden structure element, in dcal/mol, as
// ViennaRNA's INF.
const Inf = 10000000

// MaxLoop is the largest interior loop (unpaired bases on both sides
// together) the folding considers, as ViennaRNA's MAXLOOP.
const MaxLoop = 30

// Dimensions of the tables, as ViennaRNA's: pair types 0 (none), 1 CG,
// 2 GC, 3 GU, 4 UG, 5 AU, 6 UA, 7 nonstandard; bases 0 (N), 1 A, 2 C,
// 3 G, 4 U.
const (
	nbPairs = 7
	nPT     = nbPairs + 1
	nB      = 5
)

// lxc37 is the coefficient of the logarithmic extrapolation of loop
// energies beyond 30 unpaired bases (dcal/mol), ViennaRNA's lxc37.
const lxc37 = 107.856

// tMeasure is the temperature (K) at which the parameters are given.
const tMeasure = 37 + 273.15

// tables is one set of energies (free energies at 37 C or enthalpies),
// in dcal/mol, indexed as in ViennaRNA.
type tables struct {
	stack                                                            [nPT][nPT]int32
	hairpin, bulge, internal                                         [31]int32
	mismatchH, mismatchI, mismatch1nI, mismatch23I, mismatchM, mmExt [nPT][nB][nB]int32
	dangle5, dangle3                                                 [nPT][nB]int32
	int11                                                            [nPT][nPT][nB][nB]int32
	int21                                                            [nPT][nPT][nB][nB][nB]int32
	int22                                                            [nPT][nPT][nB][nB][nB][nB]int32
	mlBase, mlClosing, mlIntern, ninio, terminalAU, duplexInit       int32
	maxNinio                                                         int32
	tetra, tri, hexa                                                 map[string]int32
}

// Params is a nearest-neighbour energy model and the folding options: the
// tables of a ViennaRNA parameter file at one temperature, the dangle
// model, whether lonely pairs are allowed, and the largest pair span. A
// Params is not modified once made (the With methods return copies) and
// may be used by several goroutines.
type Params struct {
	temperature float64 // degrees Celsius
	t           tables  // free energies at temperature
	dH          tables  // enthalpies, for rescaling
	g37         tables  // free energies at 37 C as read
	maxNinio    int32
	lxc         float64
	dangles     int
	noLP        bool
	maxSpan     int // 0: none
}

//go:embed rna_turner2004.par
var turner2004 string

var (
	defaultOnce   sync.Once
	defaultParams *Params
)

// DefaultParams returns the Turner 2004 parameters of ViennaRNA's
// misc/rna_turner2004.par (RNAfold's defaults) at 37 C. The value is
// shared: do not modify it.
func DefaultParams() *Params {
	defaultOnce.Do(func() {
		var g, h tables
		g.init()
		h.init()
		p, err := parseFrom(strings.NewReader(turner2004), g, h)
		if err != nil {
			panic("fold: embedded parameter file: " + err.Error())
		}
		defaultParams = p
	})
	return defaultParams
}

// ReadParamsFile reads a ViennaRNA 2.0 parameter file (see ParseParams).
func ReadParamsFile(path string) (*Params, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ParseParams(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ErrParams is wrapped by the errors of ParseParams.
var ErrParams = errors.New("fold: bad parameter file")

// ParseParams reads a parameter file in ViennaRNA's 2.0 format ("## RNAfold
// parameter file v2.0"): sections opened by a line "# name" (stack,
// mismatch_hairpin, mismatch_internal, mismatch_internal_1n,
// mismatch_internal_23, mismatch_multi, mismatch_exterior, dangle5,
// dangle3, int11, int21, int22, hairpin, bulge, internal, each with an
// _enthalpies twin; ML_params, NINIO and Misc, which hold both; Triloops,
// Tetraloops, Hexaloops; the names before ViennaRNA 2.7 with "interior"
// for "internal" are accepted; an unknown name is an error, END ends),
// values in dcal/mol separated by white space, C comments /* ... */, INF
// for a forbidden entry. The values of a section fill its table in
// ViennaRNA's order, skipping the indices ViennaRNA skips (pair type 0,
// and for int22 the nonstandard pair and the base N, whose entries are
// then the maxima over A, C, G, U as ViennaRNA sets them). Unlike
// ViennaRNA, which reads the leading digits of a malformed number, a value
// that is not an integer, INF, DEF, NST, x or * is an error. Sections
// absent from the file keep the values of Turner 2004 (the embedded
// file), as ViennaRNA keeps its compiled-in ones. The result is at 37 C,
// with dangles -d2, lonely pairs allowed and no span limit.
func ParseParams(r io.Reader) (*Params, error) {
	d := DefaultParams()
	return parseFrom(r, d.g37.clone(), d.dH.clone())
}

func parseFrom(r io.Reader, g, h tables) (*Params, error) {
	if err := readSections(r, &g, &h); err != nil {
		return nil, err
	}
	p := &Params{g37: g, dH: h, dangles: 2}
	p.setTemperature(37)
	return p, nil
}

// init sets the tables as ViennaRNA's before reading a file: Inf where
// the file gives no value (pair type 0), no special hairpins.
func (t *tables) init() {
	fill := func(s []int32) {
		for i := range s {
			s[i] = Inf
		}
	}
	for i := range t.stack {
		fill(t.stack[i][:])
	}
	fill(t.hairpin[:])
	fill(t.bulge[:])
	fill(t.internal[:])
	for i := range t.int11 {
		for j := range t.int11[i] {
			for k := range t.int11[i][j] {
				fill(t.int11[i][j][k][:])
				for l := range t.int21[i][j][k] {
					fill(t.int21[i][j][k][l][:])
					for m := range t.int22[i][j][k][l] {
						fill(t.int22[i][j][k][l][m][:])
					}
				}
			}
		}
	}
	t.tetra, t.tri, t.hexa = map[string]int32{}, map[string]int32{}, map[string]int32{}
}

func (t tables) clone() tables {
	c := t
	c.tetra, c.tri, c.hexa = cloneMap(t.tetra), cloneMap(t.tri), cloneMap(t.hexa)
	return c
}

func cloneMap(m map[string]int32) map[string]int32 {
	c := make(map[string]int32, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// WithTemperature returns the parameters rescaled to temperature t (C) as
// ViennaRNA does: G(T) = H - (H - G37) T/T37, truncated to an integer, and
// the loop extrapolation coefficient scaled by T/T37.
func (p *Params) WithTemperature(t float64) *Params {
	q := &Params{g37: p.g37.clone(), dH: p.dH.clone(), dangles: p.dangles, noLP: p.noLP, maxSpan: p.maxSpan}
	q.setTemperature(t)
	return q
}

// Temperature returns the temperature of the energies in degrees Celsius.
func (p *Params) Temperature() float64 { return p.temperature }

// NoLP reports whether folding forbids lonely pairs (see WithNoLP).
func (p *Params) NoLP() bool { return p.noLP }

// WithNoLP returns the parameters with lonely pairs forbidden (on) or
// allowed (RNAfold's default): with on, the folding is that of RNAfold
// --noLP, every helix of the structure has at least two stacked pairs.
// It does not change Eval.
func (p *Params) WithNoLP(on bool) *Params {
	q := *p
	q.noLP = on
	return &q
}

// MaxSpan returns the largest j - i + 1 of a pair (i, j), 0 for none.
func (p *Params) MaxSpan() int { return p.maxSpan }

// WithMaxSpan returns the parameters with pairs (i, j) restricted to
// j - i + 1 <= span (0: no limit), as RNAfold --maxBPspan. It does not
// change Eval.
func (p *Params) WithMaxSpan(span int) *Params {
	q := *p
	q.maxSpan = max(span, 0)
	return &q
}

// Dangles returns the dangle model: 2 (RNAfold's default -d2) or 0.
func (p *Params) Dangles() int { return p.dangles }

// WithDangles returns the parameters with dangle model d: 2, RNAfold's
// default -d2 (a stem in the exterior loop or a multiloop gets the
// mismatch or dangle energies of its neighbouring bases whether they are
// paired or not), or 0, -d0 (no dangles, no terminal mismatches in those
// loops). RNAfold's -d1 and -d3 are not implemented.
func (p *Params) WithDangles(d int) (*Params, error) {
	if d != 0 && d != 2 {
		return nil, fmt.Errorf("fold: dangle model %d not implemented (0 or 2)", d)
	}
	q := *p
	q.dangles = d
	return &q, nil
}

func (p *Params) setTemperature(temp float64) {
	p.temperature = temp
	tempf := (temp + 273.15) / tMeasure
	p.lxc = lxc37 * tempf
	g, h := &p.g37, &p.dH
	t := &p.t
	rs := func(dg, dh int32) int32 { return int32(float64(dh) - float64(dh-dg)*tempf) }
	rsNeg := func(dg, dh int32) int32 { return min(rs(dg, dh), 0) }
	for i := range t.stack {
		for j := range t.stack[i] {
			t.stack[i][j] = rs(g.stack[i][j], h.stack[i][j])
		}
	}
	for i := range t.hairpin {
		t.hairpin[i] = rs(g.hairpin[i], h.hairpin[i])
		t.bulge[i] = rs(g.bulge[i], h.bulge[i])
		t.internal[i] = rs(g.internal[i], h.internal[i])
	}
	for i := 0; i < nPT; i++ {
		for j := 0; j < nB; j++ {
			for k := 0; k < nB; k++ {
				t.mismatchH[i][j][k] = rs(g.mismatchH[i][j][k], h.mismatchH[i][j][k])
				t.mismatchI[i][j][k] = rs(g.mismatchI[i][j][k], h.mismatchI[i][j][k])
				t.mismatch1nI[i][j][k] = rs(g.mismatch1nI[i][j][k], h.mismatch1nI[i][j][k])
				t.mismatch23I[i][j][k] = rs(g.mismatch23I[i][j][k], h.mismatch23I[i][j][k])
				t.mismatchM[i][j][k] = rsNeg(g.mismatchM[i][j][k], h.mismatchM[i][j][k])
				t.mmExt[i][j][k] = rsNeg(g.mmExt[i][j][k], h.mmExt[i][j][k])
			}
			t.dangle5[i][j] = rsNeg(g.dangle5[i][j], h.dangle5[i][j])
			t.dangle3[i][j] = rsNeg(g.dangle3[i][j], h.dangle3[i][j])
		}
	}
	for i := 0; i < nPT; i++ {
		for j := 0; j < nPT; j++ {
			for k := 0; k < nB; k++ {
				for l := 0; l < nB; l++ {
					t.int11[i][j][k][l] = rs(g.int11[i][j][k][l], h.int11[i][j][k][l])
					for m := 0; m < nB; m++ {
						t.int21[i][j][k][l][m] = rs(g.int21[i][j][k][l][m], h.int21[i][j][k][l][m])
						for n := 0; n < nB; n++ {
							t.int22[i][j][k][l][m][n] = rs(g.int22[i][j][k][l][m][n], h.int22[i][j][k][l][m][n])
						}
					}
				}
			}
		}
	}
	t.mlBase = rs(g.mlBase, h.mlBase)
	t.mlClosing = rs(g.mlClosing, h.mlClosing)
	t.mlIntern = rs(g.mlIntern, h.mlIntern)
	t.ninio = rs(g.ninio, h.ninio)
	t.terminalAU = rs(g.terminalAU, h.terminalAU)
	t.duplexInit = rs(g.duplexInit, h.duplexInit)
	t.tetra, t.tri, t.hexa = map[string]int32{}, map[string]int32{}, map[string]int32{}
	for k, v := range g.tetra {
		t.tetra[k] = rs(v, h.tetra[k])
	}
	for k, v := range g.tri {
		t.tri[k] = rs(v, h.tri[k])
	}
	for k, v := range g.hexa {
		t.hexa[k] = rs(v, h.hexa[k])
	}
	p.maxNinio = g.maxNinio
}

// section says where the values of one section of a parameter file go:
// the index tuples in the nested ranges [shift[k], dims[k]-post[k]), in
// row-major order, as ViennaRNA's rd_*dim_slice.
type section struct {
	dims, shift, post []int
	set               func(ix []int, v int32)
	get               func(ix []int) int32 // 1-dimensional sections, for x
	after             func()
}

func zeros(n int) []int { return make([]int, n) }

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// sectionOf maps a section name to its table in g (free energies) or h
// (enthalpies).
func sectionOf(name string, g, h *tables) (section, bool) {
	t := g
	if base, found := strings.CutSuffix(name, "_enthalpies"); found {
		t, name = h, base
	}
	if strings.Contains(name, "interior") {
		// the names before ViennaRNA 2.7
		name = strings.Replace(name, "interior", "internal", 1)
	}
	mismatch := func(a *[nPT][nB][nB]int32) section {
		return section{dims: []int{nPT, nB, nB}, shift: []int{1, 0, 0}, post: zeros(3),
			set: func(ix []int, v int32) { a[ix[0]][ix[1]][ix[2]] = v }}
	}
	loop := func(a *[31]int32) section {
		return section{dims: []int{31}, shift: zeros(1), post: zeros(1),
			set: func(ix []int, v int32) { a[ix[0]] = v },
			get: func(ix []int) int32 { return a[ix[0]] }}
	}
	dangle := func(a *[nPT][nB]int32) section {
		return section{dims: []int{nPT, nB}, shift: []int{1, 0}, post: zeros(2),
			set: func(ix []int, v int32) { a[ix[0]][ix[1]] = v }}
	}
	scalars := func(ps ...*int32) section {
		return section{dims: []int{len(ps)}, shift: zeros(1), post: zeros(1),
			set: func(ix []int, v int32) {
				if ps[ix[0]] != nil {
					*ps[ix[0]] = v
				}
			}}
	}
	switch name {
	case "stack":
		return section{dims: []int{nPT, nPT}, shift: ones(2), post: zeros(2),
			set: func(ix []int, v int32) { t.stack[ix[0]][ix[1]] = v }}, true
	case "hairpin":
		return loop(&t.hairpin), true
	case "bulge":
		return loop(&t.bulge), true
	case "internal":
		return loop(&t.internal), true
	case "mismatch_hairpin":
		return mismatch(&t.mismatchH), true
	case "mismatch_internal":
		return mismatch(&t.mismatchI), true
	case "mismatch_internal_1n":
		return mismatch(&t.mismatch1nI), true
	case "mismatch_internal_23":
		return mismatch(&t.mismatch23I), true
	case "mismatch_multi":
		return mismatch(&t.mismatchM), true
	case "mismatch_exterior":
		return mismatch(&t.mmExt), true
	case "dangle5":
		return dangle(&t.dangle5), true
	case "dangle3":
		return dangle(&t.dangle3), true
	case "int11":
		return section{dims: []int{nPT, nPT, nB, nB}, shift: []int{1, 1, 0, 0}, post: zeros(4),
			set: func(ix []int, v int32) { t.int11[ix[0]][ix[1]][ix[2]][ix[3]] = v }}, true
	case "int21":
		return section{dims: []int{nPT, nPT, nB, nB, nB}, shift: []int{1, 1, 0, 0, 0}, post: zeros(5),
			set: func(ix []int, v int32) { t.int21[ix[0]][ix[1]][ix[2]][ix[3]][ix[4]] = v }}, true
	case "int22":
		return section{dims: []int{nPT, nPT, nB, nB, nB, nB}, shift: ones(6), post: []int{1, 1, 0, 0, 0, 0},
			set:   func(ix []int, v int32) { t.int22[ix[0]][ix[1]][ix[2]][ix[3]][ix[4]][ix[5]] = v },
			after: func() { updateNST(&t.int22) }}, true
	}
	if t != g {
		return section{}, false
	}
	// the scalar sections hold both the free energy and the enthalpy
	switch name {
	case "ML_params":
		return scalars(&g.mlBase, &h.mlBase, &g.mlClosing, &h.mlClosing, &g.mlIntern, &h.mlIntern), true
	case "NINIO":
		return scalars(&g.ninio, &h.ninio, &g.maxNinio), true
	case "Misc":
		return scalars(&g.duplexInit, &h.duplexInit, &g.terminalAU, &h.terminalAU), true
	}
	return section{}, false
}

// updateNST sets the int22 entries with the base N (index 0) to the
// maximum over A, C, G, U, as ViennaRNA's update_nst.
func updateNST(a *[nPT][nPT][nB][nB][nB][nB]int32) {
	const negInf = -Inf
	for i := 1; i < nbPairs; i++ {
		for j := 1; j < nbPairs; j++ {
			x := &a[i][j]
			for k := 1; k < 5; k++ {
				for l := 1; l < 5; l++ {
					for m := 1; m < 5; m++ {
						m1, m2, m3, m4 := int32(negInf), int32(negInf), int32(negInf), int32(negInf)
						for n := 1; n < 5; n++ {
							m1 = max(m1, x[k][l][m][n])
							m2 = max(m2, x[k][l][n][m])
							m3 = max(m3, x[k][n][l][m])
							m4 = max(m4, x[n][k][l][m])
						}
						x[k][l][m][0] = m1
						x[k][l][0][m] = m2
						x[k][0][l][m] = m3
						x[0][k][l][m] = m4
					}
				}
			}
			for k := 1; k < 5; k++ {
				for l := 1; l < 5; l++ {
					m1, m2, m3, m4, m5, m6 := int32(negInf), int32(negInf), int32(negInf), int32(negInf), int32(negInf), int32(negInf)
					for m := 1; m < 5; m++ {
						m1 = max(m1, x[k][l][m][0])
						m2 = max(m2, x[k][m][0][l])
						m3 = max(m3, x[m][0][k][l])
						m4 = max(m4, x[0][k][l][m])
						m5 = max(m5, x[0][k][m][l])
						m6 = max(m6, x[k][0][l][m])
					}
					x[k][l][0][0] = m1
					x[k][0][0][l] = m2
					x[0][0][k][l] = m3
					x[k][0][l][0] = m6
					x[0][k][0][l] = m5
					x[0][k][l][0] = m4
				}
			}
			for k := 1; k < 5; k++ {
				m1, m2, m3, m4 := int32(negInf), int32(negInf), int32(negInf), int32(negInf)
				for l := 1; l < 5; l++ {
					m1 = max(m1, x[k][l][0][0])
					m2 = max(m2, x[0][k][l][0])
					m3 = max(m3, x[0][0][k][l])
					m4 = max(m4, x[0][0][l][k])
				}
				x[k][0][0][0] = m1
				x[0][k][0][0] = m2
				x[0][0][k][0] = m3
				x[0][0][0][k] = m4
			}
			m1 := int32(negInf)
			for k := 1; k < 5; k++ {
				m1 = max(m1, x[k][0][0][0])
			}
			x[0][0][0][0] = m1
		}
	}
}

// readSections reads a parameter file into g and h.
func readSections(r io.Reader, g, h *tables) error {
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return err
	}
	ln := 0
	if len(lines) > 0 && strings.HasPrefix(lines[0], "## RNAfold parameter file v2.0") {
		ln = 1
	}
	for ln < len(lines) {
		line := lines[ln]
		ln++
		if !strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line[1:])
		if len(f) == 0 {
			continue
		}
		name := f[0]
		switch name {
		case "END":
			return nil
		case "Tetraloops", "Triloops", "Hexaloops":
			m, hm := map[string]int32{}, map[string]int32{}
			width := map[string]int{"Tetraloops": 6, "Triloops": 5, "Hexaloops": 8}[name]
			for ; ln < len(lines); ln++ {
				f := strings.Fields(lines[ln])
				if len(f) < 3 || len(f[0]) != width {
					break
				}
				dg, err1 := strconv.Atoi(f[1])
				dh, err2 := strconv.Atoi(f[2])
				if err1 != nil || err2 != nil {
					break
				}
				m[f[0]], hm[f[0]] = int32(dg), int32(dh)
			}
			switch name {
			case "Tetraloops":
				g.tetra, h.tetra = m, hm
			case "Triloops":
				g.tri, h.tri = m, hm
			default:
				g.hexa, h.hexa = m, hm
			}
			continue
		}
		sec, ok := sectionOf(name, g, h)
		if !ok {
			return fmt.Errorf("%w: line %d: unknown section %q", ErrParams, ln, name)
		}
		var err error
		if ln, err = readValues(lines, ln, sec); err != nil {
			return err
		}
	}
	return nil
}

// readValues reads the values of sec from lines[ln:] and returns the line
// after the last one read.
func readValues(lines []string, ln int, sec section) (int, error) {
	var idx [][]int
	ix := make([]int, len(sec.dims))
	var rec func(k int)
	rec = func(k int) {
		if k == len(sec.dims) {
			idx = append(idx, append([]int(nil), ix...))
			return
		}
		for v := sec.shift[k]; v < sec.dims[k]-sec.post[k]; v++ {
			ix[k] = v
			rec(k + 1)
		}
	}
	rec(0)
	n, last := 0, -1
	for n < len(idx) {
		if ln >= len(lines) {
			return ln, fmt.Errorf("%w: unexpected end of file (%d of %d values read)", ErrParams, n, len(idx))
		}
		line := lines[ln]
		ln++
		for {
			a := strings.Index(line, "/*")
			if a < 0 {
				break
			}
			b := strings.Index(line[a:], "*/")
			if b < 0 {
				return ln, fmt.Errorf("%w: line %d: unclosed comment", ErrParams, ln)
			}
			line = line[:a] + " " + line[a+b+2:]
		}
		for _, tok := range strings.Fields(line) {
			if n == len(idx) {
				break // ViennaRNA ignores the rest of the line (Misc's LXC)
			}
			var v int32
			switch {
			case tok[0] == '*':
				n++
				continue
			case tok[0] == 'x':
				if sec.get == nil || last < 0 {
					return ln, fmt.Errorf("%w: line %d: cannot extrapolate here", ErrParams, ln)
				}
				i, l := idx[n][0], idx[last][0]
				v = sec.get(idx[last]) + int32(0.5+lxc37*math.Log(float64(i)/float64(l)))
			case tok == "INF":
				v = Inf
			case tok == "DEF":
				v = -50
			case tok == "NST":
				v = 0
			default:
				x, err := strconv.ParseInt(tok, 10, 32)
				if err != nil {
					return ln, fmt.Errorf("%w: line %d: value %q is not an integer", ErrParams, ln, tok)
				}
				v = int32(x)
				last = n
			}
			sec.set(idx[n], v)
			n++
		}
	}
	if sec.after != nil {
		sec.after()
	}
	return ln, nil
}
