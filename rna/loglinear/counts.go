package loglinear

import (
	"errors"
	"fmt"

	"github.com/contactmap/contactmap/rna"
)

// ErrStructure is wrapped by the errors of Counts for a structure the
// model cannot hold.
var ErrStructure = errors.New("structure outside the model")

// encode maps a normalised sequence (rna.NormalizeSequence) to base codes.
func encode(seq string) []int8 {
	x := make([]int8, len(seq))
	for i := 0; i < len(seq); i++ {
		c := rna.BaseCode(seq[i])
		if c < 0 {
			c = none
		}
		x[i] = int8(c)
	}
	return x
}

// at is x[i], or none outside the sequence.
func at(x []int8, i int) int8 {
	if i < 0 || i >= len(x) {
		return none
	}
	return x[i]
}

func pairType(x []int8, i, j int) int8 { return pairOf[x[i]][x[j]] }

// Counts adds the feature counts c(s) of structure s to c (length
// NumFeatures); Model.Score of them is the structure's score. s must be nested, of canonical pairs, with hairpins of at least
// MinHairpin and interior loops of at most MaxLoop bases, and every pair
// of span below maxSpan (0: any); otherwise the error, naming the pair,
// wraps ErrStructure.
func Counts(s *rna.Structure, maxSpan int, c []float64) error {
	x := encode(s.Seq)
	p := s.Partner
	n := len(x)
	if len(c) != NumFeatures {
		return fmt.Errorf("loglinear: %d counts, want %d", len(c), NumFeatures)
	}
	bad := func(i, j int, why string) error {
		return fmt.Errorf("loglinear: %s: pair (%d, %d): %w: %s", s.Name, i+1, j+1, ErrStructure, why)
	}
	// branches lists the pairs directly inside (i, j) (the exterior loop
	// for i = -1, j = n) and the unpaired bases between them.
	branches := func(i, j int) ([][2]int, int, error) {
		var b [][2]int
		u := 0
		for k := i + 1; k < j; k++ {
			l := p[k]
			switch {
			case l == rna.Unpaired:
				u++
			case l < k || l >= j:
				return nil, 0, bad(min(k, l), max(k, l), "crosses another pair")
			default:
				b = append(b, [2]int{k, l})
				k = l
			}
		}
		return b, u, nil
	}
	// loop counts the loop closed by (i, j) and recurses into it; stems
	// counts the branches of a multiloop or the exterior loop (their
	// branch weight and mismatch with the neighbouring bases) and
	// recurses into each.
	var loop func(i, j int) error
	stems := func(b [][2]int, branch, mis int) error {
		for _, br := range b {
			k, l := br[0], br[1]
			if pk := pairType(x, k, l); pk >= 0 {
				c[branch]++
				c[misIndex(mis, pk, at(x, k-1), at(x, l+1))]++
			}
			if err := loop(k, l); err != nil {
				return err
			}
		}
		return nil
	}
	loop = func(i, j int) error {
		pt := pairType(x, i, j)
		if pt < 0 {
			return bad(i, j, "not a canonical pair")
		}
		if maxSpan > 0 && j-i >= maxSpan {
			return bad(i, j, fmt.Sprintf("span %d beyond %d", j-i+1, maxSpan))
		}
		c[offPair+int(pt)]++
		b, u, err := branches(i, j)
		if err != nil {
			return err
		}
		switch len(b) {
		case 0:
			if j-i-1 < MinHairpin {
				return bad(i, j, fmt.Sprintf("hairpin of %d bases", j-i-1))
			}
			c[offHpLen+min(j-i-1, MaxLoop)]++
			c[misIndex(offHpMis, pt, x[i+1], x[j-1])]++
			return nil
		case 1:
			k, l := b[0][0], b[0][1]
			n1, n2 := k-i-1, j-l-1
			if n1+n2 > MaxLoop {
				return bad(i, j, fmt.Sprintf("interior loop of %d bases", n1+n2))
			}
			pi := pairType(x, k, l)
			if pi < 0 {
				return bad(k, l, "not a canonical pair")
			}
			for _, f := range interiorFeatures(x, i, j, k, l, nil) {
				c[f]++
			}
			return loop(k, l)
		}
		c[offMlBase]++
		c[offMlBranch]++
		c[misIndex(offMlMis, pairType(x, j, i), x[j-1], x[i+1])]++
		c[offMlUnpaired] += float64(u)
		return stems(b, offMlBranch, offMlMis)
	}
	if len(p) != n {
		return fmt.Errorf("loglinear: %s: %d partners for %d bases", s.Name, len(p), n)
	}
	b, u, err := branches(-1, n)
	if err != nil {
		return err
	}
	c[offExtUnpaired] += float64(u)
	return stems(b, offExtBranch, offExtMis)
}

// interiorFeatures appends to fs the features of the interior loop (a
// stack, a bulge or an interior loop) closed by (i, j) with inner pair
// (k, l), both canonical; the inner pair's own type is not among them.
func interiorFeatures(x []int8, i, j, k, l int, fs []int) []int {
	n1, n2 := k-i-1, j-l-1
	po, pi := pairType(x, i, j), pairType(x, k, l)
	switch {
	case n1 == 0 && n2 == 0:
		return append(fs, offStack+int(po)*nPair+int(pi))
	case n1 == 0 || n2 == 0:
		return append(fs, offBulgeLen+n1+n2)
	}
	fs = append(fs, offIntLen+n1+n2, offIntAsym+abs(n1-n2),
		misIndex(offIntMis, po, x[i+1], x[j-1]),
		misIndex(offIntMis, pairType(x, l, k), x[l+1], x[k-1]))
	if n1 <= maxExplicit && n2 <= maxExplicit {
		fs = append(fs, offIntExplicit+(n1-1)*maxExplicit+n2-1)
	}
	return fs
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// Score is theta . c.
func (m *Model) Score(c []float64) float64 {
	var s float64
	for f, v := range c {
		s += m.Theta[f] * v
	}
	return s
}

// Representable returns a part of s that the model can hold, chosen
// greedily: its canonical pairs (non-canonical ones dropped first), less
// those crossing a canonical pair kept before them (by increasing 5'
// base), less the pairs closing a hairpin shorter than MinHairpin; with
// the number of pairs dropped, and an error wrapping ErrStructure where
// the result is still outside the model (an interior loop beyond
// MaxLoop).
func Representable(s *rna.Structure) (*rna.Structure, int, error) {
	x := encode(s.Seq)
	n := len(x)
	q := make([]int, n)
	for i := range q {
		q[i] = rna.Unpaired
	}
	var kept [][2]int
	dropped := 0
	for i, j := range s.Partner {
		if j <= i {
			continue
		}
		ok := pairType(x, i, j) >= 0
		for _, k := range kept {
			if ok && k[0] < i && i < k[1] && k[1] < j {
				ok = false
			}
		}
		if !ok {
			dropped++
			continue
		}
		kept = append(kept, [2]int{i, j})
		q[i], q[j] = j, i
	}
	// A pair closing a too-short hairpin: drop it (and repeat, since the
	// pair around it may then close one).
	for changed := true; changed; {
		changed = false
		for i, j := range q {
			if j <= i {
				continue
			}
			inner := false
			for k := i + 1; k < j; k++ {
				if q[k] != rna.Unpaired {
					inner = true
					break
				}
			}
			if !inner && j-i-1 < MinHairpin {
				q[i], q[j] = rna.Unpaired, rna.Unpaired
				dropped++
				changed = true
			}
		}
	}
	out := &rna.Structure{Name: s.Name, Seq: s.Seq, Partner: q}
	return out, dropped, Counts(out, 0, make([]float64, NumFeatures))
}
