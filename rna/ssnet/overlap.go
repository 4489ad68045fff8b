package ssnet

import "sort"

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

// kmerK is the word length of the prefilter.
const kmerK = 8

func kmers(s string) map[string]bool {
	out := map[string]bool{}
	for i := 0; i+kmerK <= len(s); i++ {
		out[s[i:i+kmerK]] = true
	}
	return out
}

// Overlaps finds, for each query, the reference with the highest global
// alignment identity among the candidates most alike in shared 8-mers
// (the top 5), plus any reference with the identical sequence.
func Overlaps(queries, refs []Molecule) []Overlap {
	refK := make([]map[string]bool, len(refs))
	bySeq := map[string]string{}
	for i, r := range refs {
		refK[i] = kmers(r.Seq)
		if _, ok := bySeq[r.Seq]; !ok {
			bySeq[r.Seq] = r.Name
		}
	}
	out := make([]Overlap, len(queries))
	for qi, q := range queries {
		o := Overlap{Name: q.Name}
		if name, ok := bySeq[q.Seq]; ok {
			o.Nearest, o.Identity, o.Exact = name, 1, true
			out[qi] = o
			continue
		}
		qk := kmers(q.Seq)
		type cand struct {
			i      int
			shared int
		}
		cs := make([]cand, len(refs))
		for i := range refs {
			n := 0
			for w := range qk {
				if refK[i][w] {
					n++
				}
			}
			cs[i] = cand{i, n}
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].shared > cs[b].shared })
		for _, c := range cs[:min(5, len(cs))] {
			if id := Identity(q.Seq, refs[c.i].Seq); id > o.Identity {
				o.Identity, o.Nearest = id, refs[c.i].Name
			}
		}
		out[qi] = o
	}
	return out
}

// Identity aligns a and b end to end (Needleman-Wunsch: match +1,
// mismatch -1, gap -2) and returns the number of identical aligned bases
// over the length of the longer sequence.
func Identity(a, b string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return float64(identical(a, b)) / float64(max(len(a), len(b)))
}

// identical is the number of identical aligned bases of Identity's
// alignment.
func identical(a, b string) int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return 0
	}
	const gap = -2
	// score and identical-base count of the best path, row by row; ties
	// prefer more identities.
	prevS, curS := make([]int32, m+1), make([]int32, m+1)
	prevI, curI := make([]int32, m+1), make([]int32, m+1)
	for j := 1; j <= m; j++ {
		prevS[j] = int32(gap * j)
	}
	for i := 1; i <= n; i++ {
		curS[0], curI[0] = int32(gap*i), 0
		for j := 1; j <= m; j++ {
			s, id := prevS[j-1]-1, prevI[j-1]
			if a[i-1] == b[j-1] {
				s, id = prevS[j-1]+1, prevI[j-1]+1
			}
			if v := prevS[j] + gap; v > s || v == s && prevI[j] > id {
				s, id = v, prevI[j]
			}
			if v := curS[j-1] + gap; v > s || v == s && curI[j-1] > id {
				s, id = v, curI[j-1]
			}
			curS[j], curI[j] = s, id
		}
		prevS, curS = curS, prevS
		prevI, curI = curI, prevI
	}
	return int(prevI[m])
}

// localIdentical aligns a and b locally (Smith-Waterman: match +1,
// mismatch -1, gap -2) and returns the number of identical aligned bases
// of the best-scoring local alignment (ties: more identities).
func localIdentical(a, b string) int {
	m := len(b)
	const gap = -2
	prevS, curS := make([]int32, m+1), make([]int32, m+1)
	prevI, curI := make([]int32, m+1), make([]int32, m+1)
	var bestS, bestI int32
	for i := 1; i <= len(a); i++ {
		curS[0], curI[0] = 0, 0
		for j := 1; j <= m; j++ {
			s, id := prevS[j-1]-1, prevI[j-1]
			if a[i-1] == b[j-1] {
				s, id = prevS[j-1]+1, prevI[j-1]+1
			}
			if v := prevS[j] + gap; v > s || v == s && prevI[j] > id {
				s, id = v, prevI[j]
			}
			if v := curS[j-1] + gap; v > s || v == s && curI[j-1] > id {
				s, id = v, curI[j-1]
			}
			if s <= 0 {
				s, id = 0, 0
			}
			curS[j], curI[j] = s, id
			if s > bestS || s == bestS && id > bestI {
				bestS, bestI = s, id
			}
		}
		prevS, curS = curS, prevS
		prevI, curI = curI, prevI
	}
	return int(bestI)
}

// FilterSimilar splits set into the molecules kept and those dropped for
// a molecule of against at maxIdentity or more, identity counted as the
// identical bases of the best local alignment (localIdentical) over the
// length of the shorter sequence (so that a fragment of an evaluated
// molecule is dropped too), among the 5
// molecules of against sharing the most 8-mers and any identical
// sequence. It removes from a training set what is redundant with the
// evaluated molecules, as the bpRNA split did at 80% (CD-HIT-EST).
func FilterSimilar(set, against []Molecule, maxIdentity float64) (kept []Molecule, dropped []Overlap) {
	refK := make([]map[string]bool, len(against))
	bySeq := map[string]string{}
	for i, r := range against {
		refK[i] = kmers(r.Seq)
		bySeq[r.Seq] = r.Name
	}
	for _, q := range set {
		o := Overlap{Name: q.Name}
		if name, ok := bySeq[q.Seq]; ok {
			o.Nearest, o.Identity, o.Exact = name, 1, true
		} else {
			qk := kmers(q.Seq)
			type cand struct{ i, shared int }
			var cs []cand
			for i := range against {
				n := 0
				for w := range qk {
					if refK[i][w] {
						n++
					}
				}
				if n > 0 {
					cs = append(cs, cand{i, n})
				}
			}
			sort.SliceStable(cs, func(a, b int) bool { return cs[a].shared > cs[b].shared })
			for _, c := range cs[:min(5, len(cs))] {
				r := against[c.i].Seq
				id := float64(localIdentical(q.Seq, r)) / float64(max(1, min(len(q.Seq), len(r))))
				if id > o.Identity {
					o.Identity, o.Nearest = id, against[c.i].Name
				}
			}
		}
		if o.Identity >= maxIdentity {
			dropped = append(dropped, o)
		} else {
			kept = append(kept, q)
		}
	}
	return kept, dropped
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
