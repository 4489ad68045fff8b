package sets

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/contactmap/contactmap/seqalign"
)

// Split names, as feature manifests write them. The length-generalisation
// set is a test set of its own (its features go to their own directory).
const (
	Train      = "train"
	Validation = "validation"
	Test       = "test"
)

// Member is a chain of a set with the chain of a reference set nearest to
// it: for the screens against held-out or training chains, the
// reference with the most identical local alignment among the
// significant ones (E-value below Options.MaxEValue; Identity is then the
// alignment's identity, EValue its E-value against the whole reference
// set); for a near-duplicate, the kept chain it copies (Identity over the
// shorter chain). Nearest is "" when no reference qualified.
type Member struct {
	Chain
	Split    string
	Nearest  string
	Identity float64
	EValue   float64
}

// Reasons a chain is left out of a set.
const (
	ReasonLength    = "length outside the set's range"
	ReasonSimilar   = "similar to a held-out chain"
	ReasonTrained   = "similar to a training or validation chain"
	ReasonDuplicate = "near-duplicate of a kept chain"
	ReasonHeldOut   = "a validation or test chain of the base split"
)

// Excluded is a chain left out, with why and the chain that decided it.
type Excluded struct {
	Member
	Reason string
}

// Options are the thresholds of Extend and LengthSet.
type Options struct {
	// A chain is related to a reference chain when their best local
	// alignment is significant (E-value against the whole reference set
	// below MaxEValue) and at least MaxIdentity of its columns are
	// identical. Unrelated means no related reference.
	MaxIdentity    float64 // 0.25
	MaxEValue      float64 // 0.01
	Duplicate      float64 // chains at or above this identity to a kept chain are dropped (0.95)
	MinLen, MaxLen int     // the training chains' length range; the long set is longer than MaxLen
	Workers        int
	// Progress (may be nil) is called after each chain of a stage with
	// the stage's name, the chains done and the stage's total.
	Progress func(stage string, done, total int)
}

// DefaultOptions are the thresholds the extended and length-generalisation
// sets were built with (docs/protein.md, experiments/extended) and the
// PISCES protocol's length range.
var DefaultOptions = Options{MaxIdentity: 0.25, MaxEValue: 0.01, Duplicate: 0.95, MinLen: 25, MaxLen: 100, Workers: 2}

// duplicateOf returns the reference chain with the highest identity
// over the shorter sequence (seqalign.Identity) to seq among those whose
// composition bound reaches min (-1 and 0 if none); comps are the
// references' compositions.
func duplicateOf(seq string, refs []Chain, comps []seqalign.Composition, min float64) (int, float64, error) {
	comp := seqalign.CompositionOf(seq)
	best, bestID := -1, 0.0
	for i := range refs {
		if comp.Bound(&comps[i]) < max(min, bestID) {
			continue
		}
		id, err := seqalign.Identity(seq, refs[i].Seq)
		if err != nil {
			return 0, 0, fmt.Errorf("sets: aligning %s: %w", refs[i].ID, err)
		}
		if best < 0 || id > bestID {
			best, bestID = i, id
		}
	}
	return best, bestID, nil
}

// closest returns the reference chain whose local alignment with seq is
// significant (E-value against refs' total length dbLen below maxE) with
// the highest identity, its identity and E-value (-1 if none).
func closest(seq string, refs []Chain, dbLen int, maxE float64) (int, float64, float64, error) {
	best, bestID, bestE := -1, 0.0, 0.0
	for i := range refs {
		l, err := seqalign.AlignLocal(seq, refs[i].Seq)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("sets: aligning %s: %w", refs[i].ID, err)
		}
		e := l.EValue(len(seq), dbLen)
		if e >= maxE {
			continue
		}
		if id := l.Identity(); best < 0 || id > bestID {
			best, bestID, bestE = i, id, e
		}
	}
	return best, bestID, bestE, nil
}

// screen finds each query's closest reference (in parallel) and splits
// the queries into the unrelated and the related (excluded for reason).
func screen(stage, reason string, queries, refs []Chain, o Options) (below []Member, above []Excluded, err error) {
	out := make([]Member, len(queries))
	errs := make([]error, len(queries))
	dbLen := 0
	for _, r := range refs {
		dbLen += len(r.Seq)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, next := 0, 0
	for w := 0; w < max(o.Workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(queries) {
					return
				}
				m := Member{Chain: queries[i]}
				k, id, e, err := closest(queries[i].Seq, refs, dbLen, o.MaxEValue)
				if k >= 0 {
					m.Nearest, m.Identity, m.EValue = refs[k].ID, id, e
				}
				out[i], errs[i] = m, err
				mu.Lock()
				done++
				if o.Progress != nil {
					o.Progress(stage, done, len(queries))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for i, m := range out {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		if m.Nearest != "" && m.Identity >= o.MaxIdentity {
			above = append(above, Excluded{Member: m, Reason: reason})
		} else {
			below = append(below, m)
		}
	}
	return below, above, nil
}

// dedupe keeps, in order, each chain below o.Duplicate identity to every
// chain kept before it, and returns the kept ones in split, sorted by ID.
func dedupe(ms []Member, split string, o Options) (kept []Member, dropped []Excluded, err error) {
	defer func() {
		for i := range kept {
			kept[i].Split = split
		}
		slices.SortFunc(kept, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
	}()
	var keptChains []Chain
	var keptComps []seqalign.Composition
	for _, m := range ms {
		k, id, err := duplicateOf(m.Seq, keptChains, keptComps, o.Duplicate)
		if err != nil {
			return nil, nil, err
		}
		if k >= 0 && id >= o.Duplicate {
			m.Nearest, m.Identity, m.EValue = keptChains[k].ID, id, 0
			dropped = append(dropped, Excluded{Member: m, Reason: ReasonDuplicate})
			continue
		}
		kept = append(kept, m)
		keptChains = append(keptChains, m.Chain)
		keptComps = append(keptComps, seqalign.CompositionOf(m.Seq))
	}
	return kept, dropped, nil
}

// Extend builds the extended training set from the pool (every chain
// on disk) and the base split (its chains with their splits): the pool's
// chains of length o.MinLen..o.MaxLen (and the base's training chains,
// whose list chose them by its own length, which can differ from their
// SEQRES) related to no validation or test chain of the base (see Options), without near-duplicates (the
// base's training chains are kept first, then the chains with more
// resolved residues). It returns the set, training chains first, then
// the base's validation and test chains unchanged, and the chains left
// out.
func Extend(base []Member, pool []Chain, o Options) ([]Member, []Excluded, error) {
	split := map[string]string{}
	var heldOut []Chain
	for _, b := range base {
		split[b.ID] = b.Split
		if b.Split == Validation || b.Split == Test {
			heldOut = append(heldOut, b.Chain)
		}
	}
	if len(heldOut) == 0 {
		return nil, nil, fmt.Errorf("sets: the base split has no validation or test chains")
	}
	var cands []Chain
	var excluded []Excluded
	seen := map[string]bool{}
	for _, c := range pool {
		if seen[c.ID] {
			continue // the same chain from a second file
		}
		seen[c.ID] = true
		switch s := split[c.ID]; {
		case s == Validation || s == Test:
			excluded = append(excluded, Excluded{Member: Member{Chain: c, Split: s}, Reason: ReasonHeldOut})
		case s != Train && (len(c.Seq) < o.MinLen || len(c.Seq) > o.MaxLen):
			excluded = append(excluded, Excluded{Member: Member{Chain: c}, Reason: ReasonLength})
		default:
			cands = append(cands, c)
		}
	}
	below, similar, err := screen("held-out identity", ReasonSimilar, cands, heldOut, o)
	if err != nil {
		return nil, nil, err
	}
	slices.SortStableFunc(below, func(a, b Member) int {
		ab, bb := split[a.ID] == Train, split[b.ID] == Train
		if ab != bb {
			if ab {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.Resolved, a.Resolved), cmp.Compare(a.ID, b.ID))
	})
	kept, dups, err := dedupe(below, Train, o)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range base {
		if b.Split == Validation || b.Split == Test {
			kept = append(kept, b)
		}
	}
	return kept, append(append(excluded, similar...), dups...), nil
}

// Unrelated splits queries, in their order, into those related to no
// chain of refs and those related to one (see Options; Nearest, Identity
// and EValue name the closest related reference). Unlike Extend and
// LengthSet it keeps every query, length and near-duplicates aside: it
// checks a held-out set against what was trained on.
func Unrelated(queries, refs []Chain, o Options) (unrelated, related []Member, err error) {
	below, above, err := screen("reference identity", "", queries, refs, o)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range above {
		related = append(related, e.Member)
	}
	return below, related, nil
}

// LengthSet builds the length-generalisation set: the pool's chains
// longer than o.MaxLen related to no chain of trained (the training and
// validation chains), without near-duplicates (more
// resolved residues first).
func LengthSet(trained []Chain, pool []Chain, o Options) ([]Member, []Excluded, error) {
	var cands []Chain
	seen := map[string]bool{}
	for _, c := range trained {
		seen[c.ID] = true // a training chain is no candidate
	}
	for _, c := range pool {
		if len(c.Seq) > o.MaxLen && !seen[c.ID] {
			seen[c.ID] = true
			cands = append(cands, c)
		}
	}
	below, similar, err := screen("training identity", ReasonTrained, cands, trained, o)
	if err != nil {
		return nil, nil, err
	}
	slices.SortStableFunc(below, func(a, b Member) int { return cmp.Or(cmp.Compare(b.Resolved, a.Resolved), cmp.Compare(a.ID, b.ID)) })
	kept, dups, err := dedupe(below, Test, o)
	if err != nil {
		return nil, nil, err
	}
	return kept, append(similar, dups...), nil
}
