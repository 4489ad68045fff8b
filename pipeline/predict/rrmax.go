package predict

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// RRMax is how many pairs an RR file keeps at most, the most probable of
// those with |i-j| >= the minimum separation: PerL x L for a chain of
// length L ("5L"), a fixed number N ("1000"), or every pair (All, "0").
// At most one field is set; the zero value means DefaultRRMax. It is a
// flag.Value: Set parses ParseRRMax's syntax.
type RRMax struct {
	PerL int  // pairs per residue
	N    int  // pairs
	All  bool // every pair
}

// DefaultRRMax: RR files keep the 5L most probable pairs, as CASP
// submissions and ConKit's readers expect; the .npy keeps the full map.
var DefaultRRMax = RRMax{PerL: 5}

// ParseRRMax reads "kL" (k pairs per residue, k >= 1; "L" is 1L), "N"
// (N pairs, N >= 1) or "0" (every pair). Spaces around it and a lower-case
// l are accepted.
func ParseRRMax(s string) (RRMax, error) {
	t := strings.TrimSpace(s)
	bad := func(why string) (RRMax, error) {
		return RRMax{}, fmt.Errorf("%s (want kL for k pairs per residue, e.g. 5L; N pairs, e.g. 1000; or 0 for every pair)", why)
	}
	if k, ok := strings.CutSuffix(strings.ToUpper(t), "L"); ok {
		if k == "" {
			return RRMax{PerL: 1}, nil
		}
		n, err := strconv.Atoi(k)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return bad("too large")
		case err != nil || strings.HasPrefix(k, "+"):
			return bad("not a whole number of pairs per residue")
		case n < 1:
			return bad("pairs per residue must be at least 1")
		}
		return RRMax{PerL: n}, nil
	}
	n, err := strconv.Atoi(t)
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(t, "-"):
		return RRMax{N: math.MaxInt}, nil // more than any chain has
	case err != nil || strings.HasPrefix(t, "+"):
		return bad("not a number of pairs")
	case n < 0:
		return bad("negative")
	case n == 0:
		return RRMax{All: true}, nil
	}
	return RRMax{N: n}, nil
}

// Limit returns the most pairs kept for a chain of length l; 0 means
// every pair.
func (m RRMax) Limit(l int) int {
	switch {
	case m.All:
		return 0
	case m.N > 0:
		return m.N
	case m.PerL > 0:
		if l > 0 && m.PerL > math.MaxInt/l {
			return math.MaxInt
		}
		return m.PerL * l
	}
	return DefaultRRMax.Limit(l)
}

// String writes m in ParseRRMax's syntax; the zero value (the default)
// is "".
func (m RRMax) String() string {
	switch {
	case m.All:
		return "0"
	case m.N > 0:
		return strconv.Itoa(m.N)
	case m.PerL > 0:
		return strconv.Itoa(m.PerL) + "L"
	}
	return ""
}

// Set parses s (flag.Value).
func (m *RRMax) Set(s string) error {
	v, err := ParseRRMax(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Get returns the value (flag.Getter).
func (m *RRMax) Get() any { return *m }
