// Package consensus folds an RNA with its homologs: each homolog's
// base-pair probabilities are mapped onto the query's columns through a
// sequence alignment and averaged with the query's own, so that the
// pairs a family's members share rise and the pairs one sequence's
// energy favours by chance fall. It is the idea of TurboFold's
// extrinsic information (Harmanci, Sharma and Mathews, "TurboFold:
// iterative probabilistic estimation of secondary structures for
// multiple RNA sequences", BMC Bioinformatics 12:108, 2011; TurboFold
// II, Tan et al., Nucleic Acids Research 45:11570, 2017), in its
// simplest, one-pass form: the homologs' probabilities are their own
// sequences' ensembles, not refined by the query's in turn.
//
// The alignment is the search stage's (an nhmmer search in
// pipeline/search), in A3M's convention: row 0 the query, upper-case
// letters and '-' in the query's columns, lower-case letters inserted
// between them. Homologs reads it, Select keeps the homologs worth
// folding, and a Support holds their folded pairs on the query's
// columns; Support.Consensus averages a query map with them.
package consensus

import (
	"errors"
	"fmt"
	"strings"
)

// ErrAlignment marks rows that are not an alignment anchored on the
// query.
var ErrAlignment = errors.New("consensus: not a query-anchored alignment")

// Homolog is one row of the alignment: its residues and where the
// query's columns fall in them.
type Homolog struct {
	Name string
	// Seq is the row's residues in order, gaps removed, upper case, T
	// written U: the sequence that is folded.
	Seq string
	// Pos[i] is the index in Seq of the residue in query column i, -1
	// where the row has a gap there.
	Pos []int
}

// Coverage is the share of the query's columns the homolog has a
// residue in.
func (h *Homolog) Coverage() float64 {
	n := 0
	for _, p := range h.Pos {
		if p >= 0 {
			n++
		}
	}
	return float64(n) / float64(len(h.Pos))
}

// Identity is the share of the query columns both rows have residues
// in where their residues are the same (0 where they share none).
func Identity(a, b *Homolog) float64 {
	same, both := 0, 0
	for i, p := range a.Pos {
		if q := b.Pos[i]; p >= 0 && q >= 0 {
			both++
			if a.Seq[p] == b.Seq[q] {
				same++
			}
		}
	}
	if both == 0 {
		return 0
	}
	return float64(same) / float64(both)
}

// Homologs reads the rows of a query-anchored alignment (row 0 the
// query) into homologs, the query first. Every row must have as many
// query columns (upper case or '-') as row 0 has letters.
func Homologs(names, rows []string) ([]Homolog, error) {
	if len(rows) == 0 || len(names) != len(rows) {
		return nil, fmt.Errorf("%w: %d rows, %d names", ErrAlignment, len(rows), len(names))
	}
	l := len(rows[0])
	hs := make([]Homolog, len(rows))
	for k, r := range rows {
		var seq strings.Builder
		pos := make([]int, 0, l)
		for i := 0; i < len(r); i++ {
			c := r[i]
			switch {
			case c == '-':
				pos = append(pos, -1)
			case c >= 'A' && c <= 'Z':
				pos = append(pos, seq.Len())
				seq.WriteByte(base(c))
			case c >= 'a' && c <= 'z':
				seq.WriteByte(base(c - 'a' + 'A'))
			default:
				return nil, fmt.Errorf("%w: row %d (%s): letter %q", ErrAlignment, k+1, names[k], c)
			}
		}
		if len(pos) != l {
			return nil, fmt.Errorf("%w: row %d (%s) has %d query columns, the query %d", ErrAlignment, k+1, names[k], len(pos), l)
		}
		if k == 0 && seq.Len() != l {
			return nil, fmt.Errorf("%w: row 1 (%s), the query, has gaps or insertions", ErrAlignment, names[0])
		}
		hs[k] = Homolog{Name: names[k], Seq: seq.String(), Pos: pos}
	}
	return hs, nil
}

func base(c byte) byte {
	if c == 'T' {
		return 'U'
	}
	return c
}

// SelectOptions are the rules of Select.
type SelectOptions struct {
	Max         int     // most homologs kept
	MinCoverage float64 // least Coverage of a kept homolog
	MaxIdentity float64 // a kept homolog's Identity to the query and to every homolog kept before it is below this
}

// DefaultSelect is the rule of experiments/rna-holdout's trials 16 and
// 17: at most 20 homologs, each covering at least half of the query,
// under 0.9 identical to the query and to each other.
var DefaultSelect = SelectOptions{Max: 20, MinCoverage: 0.5, MaxIdentity: 0.9}

// Select returns the homologs to fold, in the alignment's order (a
// search tool's, best hit first): hs[0] is the query and is not
// returned; a homolog is kept when it covers enough of the query and is
// not too close to the query or to a homolog kept before it.
func Select(hs []Homolog, o SelectOptions) []Homolog {
	var kept []Homolog
	for k := 1; k < len(hs) && len(kept) < o.Max; k++ {
		h := &hs[k]
		if h.Coverage() < o.MinCoverage || Identity(&hs[0], h) >= o.MaxIdentity {
			continue
		}
		near := false
		for j := range kept {
			if Identity(&kept[j], h) >= o.MaxIdentity {
				near = true
				break
			}
		}
		if !near {
			kept = append(kept, *h)
		}
	}
	return kept
}

// FromAlignment is Homologs then Select under DefaultSelect: the
// homologs a search's query-anchored alignment gives the consensus.
func FromAlignment(names, rows []string) ([]Homolog, error) {
	hs, err := Homologs(names, rows)
	if err != nil {
		return nil, err
	}
	return Select(hs, DefaultSelect), nil
}
