package loglinear

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Model limits.
const (
	MinHairpin = 3  // unpaired bases of a hairpin, at least
	MaxLoop    = 30 // unpaired bases of an interior loop or bulge, at most
	// maxExplicit is the largest side of an interior loop with an explicit
	// weight.
	maxExplicit = 4
)

// Base codes: A C G U, and 4 for N or a sequence end.
const (
	nBase = 5
	nPair = 6
	none  = 4
)

var baseLetters = "ACGUN"

// pairTypes names the pair types in index order.
var pairTypes = [nPair]string{"AU", "CG", "GC", "UA", "GU", "UG"}

// pairOf[a][b] is the type of the pair of bases a (5') and b (3'), or -1.
var pairOf = [nBase][nBase]int8{
	{-1, -1, -1, 0, -1},
	{-1, -1, 1, -1, -1},
	{-1, 2, -1, 4, -1},
	{3, -1, 5, -1, -1},
	{-1, -1, -1, -1, -1},
}

// Offsets of the feature groups in theta.
const (
	offPair        = 0
	offStack       = offPair + nPair
	offHpMis       = offStack + nPair*nPair
	offIntMis      = offHpMis + nPair*nBase*nBase
	offMlMis       = offIntMis + nPair*nBase*nBase
	offExtMis      = offMlMis + nPair*nBase*nBase
	offHpLen       = offExtMis + nPair*nBase*nBase
	offBulgeLen    = offHpLen + MaxLoop + 1
	offIntLen      = offBulgeLen + MaxLoop + 1
	offIntAsym     = offIntLen + MaxLoop + 1
	offIntExplicit = offIntAsym + MaxLoop + 1
	offMlBase      = offIntExplicit + maxExplicit*maxExplicit
	offMlBranch    = offMlBase + 1
	offMlUnpaired  = offMlBranch + 1
	offExtBranch   = offMlUnpaired + 1
	offExtUnpaired = offExtBranch + 1

	// NumFeatures is the length of a Model's Theta.
	NumFeatures = offExtUnpaired + 1
)

func misIndex(off int, pt int8, a, b int8) int {
	return off + (int(pt)*nBase+int(a))*nBase + int(b)
}

// Feature returns the name of feature f (0 <= f < NumFeatures), as the
// model file writes it: "pair AU", "stack AU CG" (outer, inner), "hairpin
// mismatch CG A U" (the pair, then the bases after its 5' and before its
// 3' base, inside the loop), "interior mismatch ...", "multi mismatch AU
// G C" and "exterior mismatch ..." (the pair, then the bases before its 5'
// and after its 3' base), "hairpin length 5" (30: 30 or more), "bulge
// length 1", "interior length 4", "interior asymmetry 2", "interior 1x2"
// and "multi closing", "multi branch", "multi unpaired", "exterior
// branch", "exterior unpaired".
func Feature(f int) string {
	mis := func(kind string, k int) string {
		pt, a, b := k/(nBase*nBase), k/nBase%nBase, k%nBase
		return fmt.Sprintf("%s mismatch %s %c %c", kind, pairTypes[pt], baseLetters[a], baseLetters[b])
	}
	switch {
	case f < 0 || f >= NumFeatures:
		return ""
	case f < offStack:
		return "pair " + pairTypes[f-offPair]
	case f < offHpMis:
		k := f - offStack
		return "stack " + pairTypes[k/nPair] + " " + pairTypes[k%nPair]
	case f < offIntMis:
		return mis("hairpin", f-offHpMis)
	case f < offMlMis:
		return mis("interior", f-offIntMis)
	case f < offExtMis:
		return mis("multi", f-offMlMis)
	case f < offHpLen:
		return mis("exterior", f-offExtMis)
	case f < offBulgeLen:
		return "hairpin length " + strconv.Itoa(f-offHpLen)
	case f < offIntLen:
		return "bulge length " + strconv.Itoa(f-offBulgeLen)
	case f < offIntAsym:
		return "interior length " + strconv.Itoa(f-offIntLen)
	case f < offIntExplicit:
		return "interior asymmetry " + strconv.Itoa(f-offIntAsym)
	case f < offMlBase:
		k := f - offIntExplicit
		return fmt.Sprintf("interior %dx%d", k/maxExplicit+1, k%maxExplicit+1)
	}
	return [...]string{"multi closing", "multi branch", "multi unpaired", "exterior branch", "exterior unpaired"}[f-offMlBase]
}

// Model is a set of feature weights.
type Model struct {
	// Theta holds NumFeatures weights, indexed as Feature names them.
	Theta []float64
}

// NewModel returns the model with every weight 0 (the uniform
// distribution over the structures of a sequence).
func NewModel() *Model { return &Model{Theta: make([]float64, NumFeatures)} }

// MaxWeight bounds the absolute value of a weight in a model file: a
// product of a few weights of e^100 still fits float64's range (fitted
// weights are of order 1).
const MaxWeight = 100

// ErrModel is wrapped by the errors of ReadModel.
var ErrModel = errors.New("bad log-linear model file")

const header = "# contactmap rna/loglinear model v1"

// WriteModel writes m as text: a header line, then one line per feature,
// its name, a tab and its weight.
func WriteModel(w io.Writer, m *Model) error {
	if len(m.Theta) != NumFeatures {
		return fmt.Errorf("loglinear: model has %d weights, want %d", len(m.Theta), NumFeatures)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, header)
	for f, v := range m.Theta {
		fmt.Fprintf(bw, "%s\t%s\n", Feature(f), strconv.FormatFloat(v, 'g', -1, 64))
	}
	return bw.Flush()
}

// ReadModel reads a model written by WriteModel: the header, then every
// feature once, in any order, each weight finite and within MaxWeight.
// Errors name the line and wrap ErrModel.
func ReadModel(r io.Reader) (*Model, error) {
	index := make(map[string]int, NumFeatures)
	for f := 0; f < NumFeatures; f++ {
		index[Feature(f)] = f
	}
	m := &Model{Theta: make([]float64, NumFeatures)}
	seen := make([]bool, NumFeatures)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 4096)
	ln := 0
	bad := func(format string, a ...any) error {
		return fmt.Errorf("loglinear: line %d: %w: %s", ln, ErrModel, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		ln++
		t := sc.Text()
		if ln == 1 {
			if t != header {
				return nil, bad("header %q, want %q", t, header)
			}
			continue
		}
		name, val, ok := strings.Cut(t, "\t")
		if !ok {
			return nil, bad("no tab in %q", t)
		}
		f, ok := index[name]
		if !ok {
			return nil, bad("unknown feature %q", name)
		}
		if seen[f] {
			return nil, bad("feature %q twice", name)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(v) || math.Abs(v) > MaxWeight {
			return nil, bad("weight %q of %q: not a number within %d", val, name, MaxWeight)
		}
		seen[f], m.Theta[f] = true, v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("loglinear: line %d: %w: %v", ln+1, ErrModel, err)
	}
	if ln == 0 {
		return nil, fmt.Errorf("loglinear: %w: empty", ErrModel)
	}
	for f, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("loglinear: %w: feature %q missing", ErrModel, Feature(f))
		}
	}
	return m, nil
}
