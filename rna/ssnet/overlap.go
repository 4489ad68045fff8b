package ssnet

import "github.com/contactmap/contactmap/rna/homology"

// Overlap is how close a molecule comes to a reference set (the training
// molecules): its nearest reference by global alignment identity.
type Overlap struct {
	Name     string  `json:"name"`
	Nearest  string  `json:"nearest"`
	Identity float64 `json:"identity"` // identical aligned bases / length of the longer sequence
	Exact    bool    `json:"exact"`    // the same sequence
}

// NearIdentical is the identity from which a test molecule counts as
// overlapping the training set.
const NearIdentical = 0.95

// overlapCandidates is how many references, most alike in shared 8-mers,
// the overlap tables align to each molecule.
const overlapCandidates = 5

// Overlaps finds, for each query, the reference with the highest global
// alignment identity (homology.Identity) among the candidates most alike
// in shared 8-mers (the top 5 of every reference, homology.RankShared),
// or the first reference with the identical sequence.
func Overlaps(queries, refs []Molecule) []Overlap {
	ix := homology.NewWordIndex(sequences(refs))
	p := homology.Prefilter{Rank: homology.RankShared, Top: overlapCandidates}
	out := make([]Overlap, len(queries))
	for k, q := range queries {
		out[k] = nearest(ix, refs, q, p, homology.Identity)
	}
	return out
}

// FilterSimilar splits set into the molecules kept and those dropped for
// a molecule of against at maxIdentity or more, identity counted as the
// identical bases of the best local alignment over the length of the
// shorter sequence (homology.LocalIdentity, so that a fragment of an
// evaluated molecule is dropped too), among the 5 molecules of against
// sharing the most 8-mers (at least one) and the first identical
// sequence. It removes from a training set what is redundant with the
// evaluated molecules, as the bpRNA split did at 80% (CD-HIT-EST).
func FilterSimilar(set, against []Molecule, maxIdentity float64) (kept []Molecule, dropped []Overlap) {
	ix := homology.NewWordIndex(sequences(against))
	p := homology.Prefilter{Rank: homology.RankShared, Top: overlapCandidates, MinShared: 1}
	for _, q := range set {
		if o := nearest(ix, against, q, p, homology.LocalIdentity); o.Identity >= maxIdentity {
			dropped = append(dropped, o)
		} else {
			kept = append(kept, q)
		}
	}
	return kept, dropped
}

// nearest is q's overlap with refs (indexed by ix): the first reference
// of the identical sequence, else the best by identity among the
// candidates of p (none when every identity is 0).
func nearest(ix *homology.WordIndex, refs []Molecule, q Molecule, p homology.Prefilter, identity func(a, b string) float64) Overlap {
	o := Overlap{Name: q.Name}
	if r, ok := ix.Exact(q.Seq); ok {
		o.Nearest, o.Identity, o.Exact = refs[r].Name, 1, true
		return o
	}
	r, id := ix.Nearest(q.Seq, p, func(r int) float64 { return identity(q.Seq, refs[r].Seq) })
	if id > 0 {
		o.Nearest, o.Identity = refs[r].Name, id
	}
	return o
}

func sequences(ms []Molecule) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Seq
	}
	return out
}

// Disjoint marks, by name, the queries under NearIdentical to every
// reference: the part of a test set that does not overlap training.
func Disjoint(overlaps []Overlap) map[string]bool {
	out := make(map[string]bool, len(overlaps))
	for _, o := range overlaps {
		out[o.Name] = o.Identity < NearIdentical
	}
	return out
}
