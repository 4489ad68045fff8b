package consensus

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Pair is a base pair (I < J, bases from 0) with its probability.
type Pair struct {
	I, J int
	P    float64
}

// MaxLen is the longest query a Support takes: its maps are L x L.
const MaxLen = 5000

// Support is the homologs' folded pairs on the query's columns: for each
// pair of columns i < j, the sum over the homologs of the probability
// that their residues in those columns pair, and which columns each
// homolog has a residue in.
type Support struct {
	l     int
	sum   map[[2]int]float64
	masks [][]bool
}

// NewSupport returns the empty support of a query of l bases.
func NewSupport(l int) (*Support, error) {
	if l < 1 || l > MaxLen {
		return nil, fmt.Errorf("consensus: a query of %d bases (want 1..%d)", l, MaxLen)
	}
	return &Support{l: l, sum: map[[2]int]float64{}}, nil
}

// Len is the query's length.
func (s *Support) Len() int { return s.l }

// Homologs is the number of homologs added.
func (s *Support) Homologs() int { return len(s.masks) }

// Add adds a homolog's pair probabilities, in its own coordinates (from
// 0, I < J, in Seq): a pair whose residues are both in query columns
// counts at those columns; a pair with an inserted residue does not
// count.
func (s *Support) Add(h *Homolog, pairs []Pair) error {
	if len(h.Pos) != s.l {
		return fmt.Errorf("consensus: homolog %s has %d query columns, the query %d", h.Name, len(h.Pos), s.l)
	}
	col := make([]int, len(h.Seq))
	for k := range col {
		col[k] = -1
	}
	mask := make([]bool, s.l)
	for i, p := range h.Pos {
		if p >= 0 {
			if p >= len(h.Seq) {
				return fmt.Errorf("consensus: homolog %s: column %d at residue %d of %d", h.Name, i, p, len(h.Seq))
			}
			col[p], mask[i] = i, true
		}
	}
	for _, p := range pairs {
		if p.I < 0 || p.J <= p.I || p.J >= len(h.Seq) || !(p.P >= 0 && p.P <= 1) {
			return fmt.Errorf("consensus: homolog %s: pair (%d, %d) p %g (want 0 <= i < j < %d, p in [0, 1])", h.Name, p.I, p.J, p.P, len(h.Seq))
		}
		if i, j := col[p.I], col[p.J]; i >= 0 && j >= 0 {
			s.sum[[2]int{i, j}] += p.P
		}
	}
	s.masks = append(s.masks, mask)
	return nil
}

// Consensus returns the L x L symmetric map (row-major) of
//
//	(p_ij + sum over homologs h of p^h_ij) / (1 + n_ij)
//
// p being the query's own symmetric map and n_ij the number of
// homologs with residues in both columns i and j: the mean of the
// query's and the homologs' probabilities over the sequences that have
// both bases. With no homolog it is p.
func (s *Support) Consensus(p []float32) ([]float32, error) {
	l := s.l
	if len(p) != l*l {
		return nil, fmt.Errorf("consensus: a map of %d values for %d bases", len(p), l)
	}
	out := make([]float32, l*l)
	n := make([]int, l)
	for i := 0; i < l; i++ {
		// n[j] for j > i: the homologs with both i and j.
		clear(n)
		for _, m := range s.masks {
			if !m[i] {
				continue
			}
			for j := i + 1; j < l; j++ {
				if m[j] {
					n[j]++
				}
			}
		}
		for j := i + 1; j < l; j++ {
			v := (float64(p[i*l+j]) + s.sum[[2]int{i, j}]) / float64(1+n[j])
			out[i*l+j], out[j*l+i] = float32(v), float32(v)
		}
	}
	return out, nil
}

// MarshalText writes the support on one line: the query's length, the
// homologs' column masks ('1' where the homolog has a residue; one
// string per homolog, comma-separated, "-" for none) and the pairs'
// sums ("i:j:sum", space-separated, in order), tab-separated.
func (s *Support) MarshalText() ([]byte, error) {
	var b strings.Builder
	b.WriteString(strconv.Itoa(s.l))
	b.WriteByte('\t')
	if len(s.masks) == 0 {
		b.WriteByte('-')
	}
	for k, m := range s.masks {
		if k > 0 {
			b.WriteByte(',')
		}
		for _, v := range m {
			if v {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
	}
	b.WriteByte('\t')
	keys := make([][2]int, 0, len(s.sum))
	for k := range s.sum {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, c int) bool {
		if keys[a][0] != keys[c][0] {
			return keys[a][0] < keys[c][0]
		}
		return keys[a][1] < keys[c][1]
	})
	for k, key := range keys {
		if k > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d:%s", key[0], key[1], strconv.FormatFloat(s.sum[key], 'g', 6, 64))
	}
	return []byte(b.String()), nil
}

// UnmarshalText reads what MarshalText writes, checking every bound: the
// length, each mask's, and each pair's columns and sum (at most the
// number of homologs with both columns).
func (s *Support) UnmarshalText(text []byte) error {
	f := strings.Split(string(text), "\t")
	if len(f) != 3 {
		return fmt.Errorf("consensus: a support has 3 tab-separated fields, found %d", len(f))
	}
	l, err := strconv.Atoi(f[0])
	if err != nil || l < 1 || l > MaxLen {
		return fmt.Errorf("consensus: length %q (want 1..%d)", f[0], MaxLen)
	}
	t := Support{l: l, sum: map[[2]int]float64{}}
	if f[1] != "-" {
		for k, m := range strings.Split(f[1], ",") {
			if len(m) != l || strings.Trim(m, "01") != "" {
				return fmt.Errorf("consensus: homolog %d's mask is not %d characters of 0 and 1", k+1, l)
			}
			mask := make([]bool, l)
			for i := range m {
				mask[i] = m[i] == '1'
			}
			t.masks = append(t.masks, mask)
		}
	}
	if f[2] != "" {
		for _, p := range strings.Split(f[2], " ") {
			v := strings.Split(p, ":")
			if len(v) != 3 {
				return fmt.Errorf("consensus: pair %q is not i:j:sum", p)
			}
			i, err1 := strconv.Atoi(v[0])
			j, err2 := strconv.Atoi(v[1])
			x, err3 := strconv.ParseFloat(v[2], 64)
			if err1 != nil || err2 != nil || err3 != nil || i < 0 || j <= i || j >= l || math.IsNaN(x) || x < 0 {
				return fmt.Errorf("consensus: pair %q (want 0 <= i < j < %d, sum >= 0)", p, l)
			}
			both := 0
			for _, m := range t.masks {
				if m[i] && m[j] {
					both++
				}
			}
			if x > float64(both)*(1+1e-5) {
				return fmt.Errorf("consensus: pair %q: a sum over %d homologs with both columns", p, both)
			}
			if _, dup := t.sum[[2]int{i, j}]; dup {
				return fmt.Errorf("consensus: pair %d:%d twice", i, j)
			}
			t.sum[[2]int{i, j}] = x
		}
	}
	*s = t
	return nil
}
