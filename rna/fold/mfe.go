package fold

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/contactmap/contactmap/rna"
)

// MFE folds seq into its minimum free energy structure with the default
// parameters (Turner 2004, RNAfold's defaults) on all available cores,
// and returns the structure and its free energy in kcal/mol. The sequence
// is normalised as rna.NormalizeSequence does; N pairs with nothing.
func MFE(seq string) (*rna.Structure, float64, error) {
	return DefaultParams().MFE(seq)
}

// MFE folds seq with p on runtime.GOMAXPROCS(0) goroutines; see Fold.
func (p *Params) MFE(seq string) (*rna.Structure, float64, error) {
	return p.Fold(seq, 0)
}

// MFEContext is MFE stopped by ctx (see FoldContext).
func MFEContext(ctx context.Context, seq string) (*rna.Structure, float64, error) {
	return DefaultParams().FoldContext(ctx, seq, 0)
}

// Fold returns the minimum free energy structure of seq and its energy in
// kcal/mol, as RNAfold with its default options computes them: Zuker's
// dynamic programme over hairpins, stacks, bulges and interior loops of
// at most MaxLoop unpaired bases, multiloops and the exterior loop with
// -d2 dangles, pairs AU, CG and GU with at least 3 unpaired bases in a
// hairpin, lonely pairs allowed. Among structures of equal energy the
// traceback picks the one RNAfold picks. Cells of one span are filled
// on workers goroutines (0: runtime.GOMAXPROCS(0)). Time is O(L^3),
// memory O(L^2) (see FoldBytes); with a span limit W < L
// (WithMaxSpan), O(L W^2) time and O(L W) memory, the tables holding the
// band j - i < W only, so that any length folds (50,000 nt with W = 200
// in 0.2 GB).
func (p *Params) Fold(seq string, workers int) (*rna.Structure, float64, error) {
	return p.fold(context.Background(), seq, workers, false)
}

// FoldContext is Fold stopped by ctx: it looks at ctx between the spans
// of the dynamic programme (milliseconds apart at a few thousand bases)
// and returns ctx.Err() once it is done.
func (p *Params) FoldContext(ctx context.Context, seq string, workers int) (*rna.Structure, float64, error) {
	return p.fold(ctx, seq, workers, false)
}

// FoldProgress is FoldContext with progress, when not nil, called after
// each span of the dynamic programme with the work done and the total
// (its cells, each weighted by its span), done increasing to total: a
// progress bar over a long molecule. The structure and energy are
// FoldContext's.
func (p *Params) FoldProgress(ctx context.Context, seq string, workers int, progress func(done, total float64)) (*rna.Structure, float64, error) {
	return p.foldWith(ctx, seq, workers, false, progress)
}

// fold is FoldContext; square forces the square tables even with a span
// limit (the tests compare both layouts).
func (p *Params) fold(ctx context.Context, seq string, workers int, square bool) (*rna.Structure, float64, error) {
	return p.foldWith(ctx, seq, workers, square, nil)
}

// foldWith is fold with FoldProgress's progress.
func (p *Params) foldWith(ctx context.Context, seq string, workers int, square bool, progress func(done, total float64)) (*rna.Structure, float64, error) {
	s, norm, err := encode(seq)
	if err != nil {
		return nil, 0, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	m := newMatrices(p, s, norm, square)
	m.progress = progress
	if err := m.fill(ctx, workers); err != nil {
		return nil, 0, err
	}
	pairs, err := m.traceback()
	if err != nil {
		return nil, 0, err
	}
	st, err := rna.New("", norm, pairs)
	if err != nil {
		return nil, 0, fmt.Errorf("fold: traceback: %w", err)
	}
	return st, float64(m.f5[m.n]) / 100, nil
}

// FoldBytes returns the memory Fold uses for a sequence of n bases:
// four int32 tables of (n+2)^2 cells, five with --noLP (64 MB at
// n = 2,000); with a span limit W < n, of (n+2) W cells (160 MB at
// n = 50,000, W = 200).
func (p *Params) FoldBytes(n int) int64 {
	tables := int64(4)
	if p.noLP {
		tables++
	}
	w := int64(n + 2)
	return tables*4*w*int64(p.stride(n)) + 8*w
}

// stride is the row length of the tables for n bases: n+2 (square
// tables) without a span limit or with one of at least n, else the
// limit W (the band j - i < W).
func (p *Params) stride(n int) int {
	if p.maxSpan > 0 && p.maxSpan < n {
		return p.maxSpan
	}
	return n + 2
}

// The tables of the dynamic programmes are 1-based and hold a cell
// (i, j), i <= j, at up(i, j) = i*s1 + j, and the transposed twin of a
// cell at dn(i, j) = (j+1)*s1 + i, where s1 = stride - 1: row i of the
// cells (i, j) is contiguous, and so is column j of the twins (i, j).
// With square tables (stride n+2) a table of (n+2)^2 cells holds both
// triangles, as a square matrix with (i, j) at i*(n+2) + j - i;
// with a span limit W (stride W) a table of (n+2) W cells holds the band
// j - i < W of one of them. Reading a cell outside the band would read
// another: every loop stops at the band.

// matrices are the tables of the dynamic programme (see above for the
// layout): c, the energy of [i, j] closed by the pair (i, j); fml, the
// energy of [i, j] as a part of a multiloop with at least one branch, and
// mt its transpose (at dn), so that both factors of a split are read in
// memory order.
type matrices struct {
	p          *Params
	s          []int8
	seq        string
	n, w       int
	s1, dmax   int // stride - 1; the largest span j - i of a cell
	c, fml, mt []int32
	cc         []int32 // with --noLP: the energy of [i, j] closed by (i, j), lonely or not
	fm2        []int32 // min over u of fml[i][u] + fml[u+1][j]: the split part of fml
	// gen[u1][u2] is the length and asymmetry part of a generic interior
	// loop of u1 and u2 unpaired bases, u1 + u2 <= MaxLoop
	gen [MaxLoop + 1][MaxLoop + 1]int32
	f5  []int32
	// progress, when not nil, is called after each span (FoldProgress)
	progress func(done, total float64)
}

func newMatrices(p *Params, s []int8, seq string, square bool) *matrices {
	n := len(seq)
	w := n + 2
	st := p.stride(n)
	if square {
		st = w
	}
	size := w * st
	m := &matrices{p: p, s: s, seq: seq, n: n, w: w, s1: st - 1, dmax: min(n-1, st-1),
		c: make([]int32, size), fml: make([]int32, size), mt: make([]int32, size), fm2: make([]int32, size),
		f5: make([]int32, n+1)}
	if p.noLP {
		m.cc = make([]int32, size)
		for k := range m.cc {
			m.cc[k] = Inf
		}
	}
	for k := range m.c {
		m.c[k], m.fml[k], m.mt[k], m.fm2[k] = Inf, Inf, Inf, Inf
	}
	for u1 := 0; u1 <= MaxLoop; u1++ {
		for u2 := 0; u1+u2 <= MaxLoop; u2++ {
			m.gen[u1][u2] = p.t.internal[u1+u2] + min(p.maxNinio, int32(max(u1-u2, u2-u1))*p.t.ninio)
		}
	}
	return m
}

// fill computes c and fml by increasing span, the cells of one span on
// several goroutines, then f5; it returns ctx.Err() if ctx is done
// before.
func (m *matrices) fill(ctx context.Context, workers int) error {
	n := m.n
	var done, total float64
	if m.progress != nil {
		for d := minHairpin + 1; d <= m.dmax; d++ {
			total += float64(n-d) * float64(d)
		}
	}
	for d := minHairpin + 1; d <= m.dmax; d++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if m.progress != nil && d > minHairpin+1 {
			done += float64(n-d+1) * float64(d-1)
			m.progress(done, total)
		}
		cells := n - d
		k := workers
		// small diagonals are not worth a goroutine
		if work := cells * (d + 500); work < 200000 || k < 2 {
			k = 1
		}
		if k > cells {
			k = cells
		}
		if k == 1 {
			for i := 1; i+d <= n; i++ {
				m.cell(i, i+d)
			}
			continue
		}
		var wg sync.WaitGroup
		for t := 0; t < k; t++ {
			lo, hi := 1+cells*t/k, 1+cells*(t+1)/k
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := lo; i < hi; i++ {
					m.cell(i, i+d)
				}
			}()
		}
		wg.Wait()
	}
	m.fillF5()
	if m.progress != nil {
		m.progress(total, total)
	}
	return ctx.Err()
}

// cell fills c and fml at (i, j).
func (m *matrices) cell(i, j int) {
	p, s, s1 := m.p, m.s, m.s1
	c, fml, mt := m.c, m.fml, m.mt
	best := int32(Inf)
	typ := pairType[s[i]][s[j]]
	if typ != 0 && (p.noLP && !m.canStack(i, j) || p.maxSpan > 0 && j-i+1 > p.maxSpan) {
		typ = 0
	}
	if typ != 0 {
		best = p.hairpin(s, m.seq, i, j)
		// stacks, bulges, interior loops; the generic interior loop
		// (both sides at least 2, at least 6 unpaired) inline
		si1, sj1 := s[i+1], s[j-1]
		mmI := &p.t.mismatchI
		mmij := mmI[typ][si1][sj1]
		kmax := min(i+MaxLoop+1, j-minHairpin-2)
		for k := i + 1; k <= kmax; k++ {
			u1 := k - i - 1
			lmin := max(k+minHairpin+1, j-1-(MaxLoop-u1))
			row := c[k*s1:] // c(k, l) at l
			sk, sp1 := s[k], s[k-1]
			gen := &m.gen[u1]
			for l := j - 1; l >= lmin; l-- {
				t2 := pairType[s[l]][sk]
				if t2 == 0 {
					continue
				}
				cv := row[l]
				if cv >= Inf {
					continue
				}
				u2 := j - l - 1
				var e int32
				if u1 >= 2 && u2 >= 2 && u1+u2 >= 6 {
					e = cv + gen[u2] + mmij + mmI[t2][s[l+1]][sp1]
				} else {
					e = cv + p.interior(u1, u2, typ, t2, si1, sj1, sp1, s[l+1])
				}
				if e < best {
					best = e
				}
			}
		}
		// multiloops: min over u of fml[i+1][u] + fml[u+1][j-1]
		if mm := m.fm2[(i+1)*s1+j-1]; mm < Inf {
			if e := mm + p.mlClosingAt(s, i, j); e < best {
				best = e
			}
		}
		if best > Inf {
			best = Inf
		}
	}
	if p.noLP {
		// cc: (i, j) closing anything, or stacked on (i+1, j-1); c: (i, j)
		// stacked on (i+1, j-1), as ViennaRNA with --noLP
		st := int32(Inf)
		if typ != 0 && pairType[s[i+1]][s[j-1]] != 0 {
			if v := m.cc[(i+1)*s1+j-1]; v < Inf {
				st = v + p.intLoop(s, i, j, i+1, j-1)
			}
		}
		m.cc[i*s1+j] = min(best, st)
		best = st
	}
	c[i*s1+j] = best

	// fml
	f := int32(Inf)
	mlBase := p.t.mlBase
	if v := fml[(i+1)*s1+j]; v < Inf {
		f = v + mlBase
	}
	if v := fml[i*s1+j-1]; v < Inf && v+mlBase < f {
		f = v + mlBase
	}
	if best < Inf {
		if e := best + p.mlStemAt(s, i, j); e < f {
			f = e
		}
	}
	// two or more branches: fml[i][u] + fml[u+1][j]
	if lo, hi := i+minHairpin+1, j-minHairpin-2; lo <= hi {
		// fml(i, u) at up(i, u), fml(u+1, j) at dn(u+1, j)
		m2 := minSum(fml[i*s1+lo:i*s1+hi+1], mt[(j+1)*s1+lo+1:(j+1)*s1+hi+2])
		m.fm2[i*s1+j] = m2
		f = min(f, m2)
	}
	if f > Inf {
		f = Inf
	}
	fml[i*s1+j] = f
	mt[(j+1)*s1+i] = f
}

// canStack reports whether (i, j) may pair under --noLP: (i-1, j+1) or
// (i+1, j-1) can pair, as ViennaRNA's hard constraints.
func (m *matrices) canStack(i, j int) bool {
	s := m.s
	if i > 1 && j < m.n && (m.p.maxSpan == 0 || j-i+3 <= m.p.maxSpan) && pairType[s[i-1]][s[j+1]] != 0 {
		return true
	}
	return i+2 < j && j-i-2 > minHairpin && pairType[s[i+1]][s[j-1]] != 0
}

// minSum returns the minimum of a[k] + b[k] (Inf if a is empty).
func minSum(a, b []int32) int32 {
	b = b[:len(a)]
	m0, m1, m2, m3 := int32(Inf), int32(Inf), int32(Inf), int32(Inf)
	k := 0
	for ; k+4 <= len(a); k += 4 {
		m0 = min(m0, a[k]+b[k])
		m1 = min(m1, a[k+1]+b[k+1])
		m2 = min(m2, a[k+2]+b[k+2])
		m3 = min(m3, a[k+3]+b[k+3])
	}
	for ; k < len(a); k++ {
		m0 = min(m0, a[k]+b[k])
	}
	return min(m0, m1, m2, m3)
}

// fillF5 computes f5[j], the energy of the prefix [1, j] as the exterior
// loop.
func (m *matrices) fillF5() {
	f5, c, s1 := m.f5, m.c, m.s1
	f5[0] = 0
	for j := 1; j <= m.n; j++ {
		best := f5[j-1]
		for u := j - minHairpin - 1; u >= max(1, j-m.dmax); u-- {
			cv := c[u*s1+j]
			if cv >= Inf {
				continue
			}
			if e := f5[u-1] + cv + m.p.extStemAt(m.s, u, j); e < best {
				best = e
			}
		}
		f5[j] = best
	}
}

// Sector kinds of the traceback.
const (
	secF5 = iota
	secC
	secM
)

type sector struct{ i, j, kind int }

// traceback recovers the structure of f5[n], choosing among equal
// decompositions in the order ViennaRNA's backtrack tries them: in the
// exterior loop an unpaired 3' base first, then the stem (u, j) of the
// largest u; for a pair a hairpin, then the interior loop (k, l) of the
// smallest k and largest l, then the multiloop of the smallest split; in
// a multiloop part an unpaired 3' base, an unpaired 5' base, a single
// stem, then the smallest split. It returns 0-based pairs.
func (m *matrices) traceback() ([][2]int, error) {
	p, s, s1 := m.p, m.s, m.s1
	c, fml := m.c, m.fml
	mlBase := p.t.mlBase
	var pairs [][2]int
	stack := []sector{{1, m.n, secF5}}
	for len(stack) > 0 {
		sec := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, j := sec.i, sec.j
		switch sec.kind {
		case secF5:
			for j >= 1 && m.f5[j] == m.f5[j-1] {
				j--
			}
			if j < 2 {
				continue
			}
			found := false
			for u := j - 1; u >= max(1, j-m.dmax); u-- {
				cv := c[u*s1+j]
				if cv >= Inf {
					continue
				}
				if m.f5[j] == m.f5[u-1]+cv+p.extStemAt(s, u, j) {
					stack = append(stack, sector{1, u - 1, secF5}, sector{u, j, secC})
					found = true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("fold: traceback failed in the exterior loop at %d", j)
			}
		case secM:
			for j > i && fml[i*s1+j] == fml[i*s1+j-1]+mlBase {
				j--
			}
			for i < j && fml[i*s1+j] == fml[(i+1)*s1+j]+mlBase {
				i++
			}
			fij := fml[i*s1+j]
			if j <= i || fij >= Inf {
				return nil, fmt.Errorf("fold: traceback failed in a multiloop part [%d, %d]", sec.i, sec.j)
			}
			if cv := c[i*s1+j]; cv < Inf && fij == cv+p.mlStemAt(s, i, j) {
				stack = append(stack, sector{i, j, secC})
				continue
			}
			found := false
			for u := i + 1; u+1 < j; u++ {
				if fij == fml[i*s1+u]+fml[(u+1)*s1+j] {
					stack = append(stack, sector{i, u, secM}, sector{u + 1, j, secM})
					found = true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("fold: traceback failed in a multiloop part [%d, %d]", i, j)
			}
		case secC:
			pairs = append(pairs, [2]int{i - 1, j - 1})
			cij := c[i*s1+j]
			if p.noLP {
				// stack inwards while c says so; the first step always
				first := true
				for pairType[s[i+1]][s[j-1]] != 0 && (first || c[i*s1+j] == cij) {
					first = false
					cij -= p.intLoop(s, i, j, i+1, j-1)
					i, j = i+1, j-1
					pairs = append(pairs, [2]int{i - 1, j - 1})
				}
			}
			if cij == p.hairpin(s, m.seq, i, j) {
				continue
			}
			if k, l, ok := m.btInterior(i, j, cij); ok {
				stack = append(stack, sector{k, l, secC})
				continue
			}
			e := cij - p.mlClosingAt(s, i, j)
			found := false
			for u := i + 2; u < j-2; u++ {
				if e == fml[(i+1)*s1+u]+fml[(u+1)*s1+j-1] {
					stack = append(stack, sector{i + 1, u, secM}, sector{u + 1, j - 1, secM})
					found = true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("fold: traceback failed at the pair (%d, %d)", i, j)
			}
		}
	}
	return pairs, nil
}

// btInterior finds the pair (k, l) enclosed by (i, j) in an interior
// loop, stack or bulge of energy cij, in ViennaRNA's order.
func (m *matrices) btInterior(i, j int, cij int32) (int, int, bool) {
	s1 := m.s1
	for k := i + 1; k <= min(j-2, i+MaxLoop+1); k++ {
		lmin := k + 1
		if k+1+MaxLoop+2+i < j+k {
			lmin = k + j - i - MaxLoop - 2
		}
		for l := j - 1; l >= lmin; l-- {
			cv := m.c[k*s1+l]
			if cv >= Inf {
				continue
			}
			if cij == cv+m.p.intLoop(m.s, i, j, k, l) {
				return k, l, true
			}
		}
	}
	return 0, 0, false
}
