package ssnet

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/homology"
	"github.com/contactmap/contactmap/scnn"
)

// Molecule is a structure with the family it belongs to.
type Molecule struct {
	*rna.Structure
	// Family is the folder of the record's source name in the authors'
	// test file ("16s_small", "rnasep", ...), or "" for other records.
	Family string
	// Template is the molecule's homology template, for the networks
	// with template channels (AttachTemplates); nil otherwise.
	Template *homology.Template
	// MFE is the partner of every base in the molecule's minimum free
	// energy structure (-1: unpaired), for the networks with energy
	// channels (AttachMFE); nil otherwise.
	MFE []int
	// Ensemble is the molecule's pairs of the ensemble channel
	// (EnsembleChannels: the pair probabilities of its partition
	// function), for the networks with that channel (AttachEnsemble);
	// nil otherwise.
	Ensemble []PairProb
	// EnsembleRule is the rule Ensemble was computed under
	// (AttachEnsembleFold): a network of another rule does not read it.
	EnsembleRule EnsembleFold
	// EnsembleAt are the molecule's further ensemble channels, at the
	// temperatures of a network's Record.EnsembleTemps, each with the
	// rule it was computed under (AttachEnsembleFold under a rule at a
	// temperature other than 37 C; EnsembleUnder reads them).
	EnsembleAt []RuleEnsemble
	// Weight is the molecule's share of the training draws within its
	// group, relative to the others' (0, every molecule's unless a
	// protocol weighs them: drawn uniformly; Protocol.ClusterWeights).
	Weight float64
	// Group is the index of the file the molecule was read from
	// (ReadSets): training draws a group uniformly, then a molecule of
	// it, so that a small set is not drowned by a large one.
	Group int
}

// ReadSet reads a set of molecules: the five-line format of the 16S
// data, or dot-bracket records (rna.ReadDBN: a name ending in .dbn or
// .dbn.gz, as the bpRNA-1m split is distributed), gzip-compressed or not
// (recognised by content). A bpRNA record's Family is its source
// database (CRW, RFAM, SRP, tmRNA, PDB, ... from "bpRNA_CRW_15576").
func ReadSet(file string) ([]Molecule, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("ssnet: %w", err)
	}
	defer f.Close()
	return ReadSetFrom(f, file)
}

// ReadSetFrom reads a set (ReadSet) from r, file being the name it is
// read as: its name chooses the format and names it in errors, as in
// ReadSet; gzip is recognised by content. An embedded copy of a file read
// under the file's name gives the same molecules as the file.
func ReadSetFrom(r io.Reader, file string) ([]Molecule, error) {
	br := bufio.NewReader(r)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("ssnet: %s: %w", file, err)
		}
		defer zr.Close()
		in = zr
	}
	var ss []*rna.Structure
	var err error
	dbn := strings.HasSuffix(strings.TrimSuffix(file, ".gz"), ".dbn")
	if dbn {
		ss, err = rna.ReadDBN(in, file)
	} else {
		ss, err = rna.ReadFiveLine(in, file)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Molecule, len(ss))
	for i, s := range ss {
		fam := familyOf(s.Name)
		if dbn {
			fam = bpRNASource(s.Name)
		}
		out[i] = Molecule{Structure: s, Family: fam}
	}
	return out, nil
}

// ReadSets reads several sets (ReadSet) into one, in the order given,
// each molecule's Group the index of its file.
func ReadSets(files []string) ([]Molecule, error) {
	return ReadSetsWith(files, ReadSet)
}

// ReadSetsWith is ReadSets with each file read by read (ReadSet reads it
// from disk; package models reads its embedded copies of the training
// files under the files' names with ReadSetFrom).
func ReadSetsWith(files []string, read func(file string) ([]Molecule, error)) ([]Molecule, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("ssnet: no molecule files")
	}
	var out []Molecule
	for g, f := range files {
		set, err := read(f)
		if err != nil {
			return nil, err
		}
		for i := range set {
			set[i].Group = g
		}
		out = append(out, set...)
	}
	return out, nil
}

// bpRNASource is the source database in a bpRNA identifier
// ("bpRNA_CRW_15576": CRW), or "" for another name.
func bpRNASource(name string) string {
	f := strings.Split(name, "_")
	if len(f) == 3 && f[0] == "bpRNA" {
		return f[1]
	}
	return ""
}

// familyOf is the folder above the file of a source name like
// "testdata/16s_small/d.16.m.V.ursinus.ct".
func familyOf(name string) string {
	dir := path.Dir(strings.ReplaceAll(name, "\\", "/"))
	if dir == "." || !strings.HasPrefix(dir, "testdata/") {
		return ""
	}
	return path.Base(dir)
}

// baseIndex is the one-hot channel of a normalised base: A, C, G, U
// (rna.BaseCode), then N (and any other byte).
func baseIndex(b byte) int {
	if c := rna.BaseCode(b); c >= 0 {
		return c
	}
	return 4
}

// Window is a stretch [Start, Start+Len) of a molecule, followed, when
// Len2 > 0, by a second stretch [Start2, Start2+Len2) after it in the
// molecule: a pair crop, whose off-diagonal block holds the pairs
// between two distant stretches (as trRosetta and AlphaFold crop pair
// maps), joined into one sequence for the network.
type Window struct {
	Mol          *Molecule
	Start, Len   int
	Start2, Len2 int
	// NoTemplate leaves the window's template channels zero (template
	// dropout: the network also learns to predict without one).
	NoTemplate bool
}

// Size is the window's number of bases.
func (w Window) Size() int { return w.Len + w.Len2 }

// Index is the molecule base at window position k.
func (w Window) Index(k int) int {
	if k < w.Len {
		return w.Start + k
	}
	return w.Start2 + k - w.Len
}

// at returns the window position of molecule base i, or -1.
func (w Window) at(i int) int {
	switch {
	case i >= w.Start && i < w.Start+w.Len:
		return i - w.Start
	case w.Len2 > 0 && i >= w.Start2 && i < w.Start2+w.Len2:
		return w.Len + i - w.Start2
	}
	return -1
}

// Batch is a padded batch of windows: one-hot inputs, pair labels and the
// mask of valid pairs (row-major B x L x L).
type Batch struct {
	In           pairnet.Inputs
	L            int
	Labels, Mask []float32
}

// NewBatch builds the network inputs and labels of windows (a pair is a
// label when both bases lie in its window). With spec's 2D input
// (Inputs2D), every window's molecule must carry its Template, MFE and ensemble channels
// as the channels need them: cut to the window, they are the 2D input,
// in the spec's layout.
// The layout is r's: its Spec and its further ensemble channels
// (Record.ExtraEnsembleFolds), so that a width that reads two ways
// (Inputs2D) is read as the network's.
func NewBatch(ws []Window, r Record) (*Batch, error) {
	spec, extra := r.Spec, r.ExtraEnsembleFolds()
	l := 0
	for _, w := range ws {
		l = max(l, w.Size())
	}
	b := len(ws)
	seqs := make([]string, b)
	for s, w := range ws {
		seq := w.Mol.Seq[w.Start : w.Start+w.Len]
		if w.Len2 > 0 {
			seq += w.Mol.Seq[w.Start2 : w.Start2+w.Len2]
		}
		seqs[s] = seq
	}
	bt := &Batch{L: l, In: OneHot(seqs), Labels: make([]float32, b*l*l), Mask: make([]float32, b*l*l)}
	for s, w := range ws {
		n := w.Size()
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				bt.Mask[(s*l+i)*l+j] = 1
			}
			if p := w.Mol.Partner[w.Index(i)]; p >= 0 {
				if j := w.at(p); j >= 0 {
					bt.Labels[(s*l+i)*l+j] = 1
				}
			}
		}
	}
	if spec.In2D > 0 {
		x2, err := window2D(ws, l, spec, extra)
		if err != nil {
			return nil, err
		}
		bt.In.X2 = x2
	}
	return bt, nil
}

// OneHot is the network input of sequences (normalised bases), padded
// to the longest: (B, L, 5), one channel per base A, C, G, U, other.
func OneHot(seqs []string) pairnet.Inputs {
	l := 0
	for _, q := range seqs {
		l = max(l, len(q))
	}
	x := scnn.New(len(seqs), l, InChannels)
	in := pairnet.Inputs{X1: x, Lengths: make([]int, len(seqs))}
	for s, q := range seqs {
		in.Lengths[s] = len(q)
		for i := 0; i < len(q); i++ {
			x.Data[(s*l+i)*InChannels+baseIndex(q[i])] = 1
		}
	}
	return in
}

// sampler draws molecules of a set: a group (Molecule.Group) uniformly,
// then a molecule of it uniformly; a set of one group draws a molecule
// uniformly, with one draw of the stream. When a molecule of the set has
// a Weight, a group's molecule is drawn by weight instead (one draw of
// the stream, a uniform float, searched in the group's cumulative
// weights, pickWeighted): a molecule of weight 0 then is never drawn, a
// weight below 0, NaN or infinite counts as 0, and a group whose
// weights are all 0 is drawn uniformly.
type sampler struct {
	set    []Molecule
	groups [][]int
	cum    [][]float64 // per group, the cumulative weights; nil: uniform
}

func newSampler(set []Molecule) sampler {
	at := map[int]int{}
	var groups [][]int
	weighted := false
	for i := range set {
		g, ok := at[set[i].Group]
		if !ok {
			g = len(groups)
			at[set[i].Group] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
		weighted = weighted || set[i].Weight != 0
	}
	s := sampler{set: set, groups: groups}
	if weighted {
		s.cum = make([][]float64, len(groups))
		for g, members := range groups {
			c, sum := make([]float64, len(members)), 0.0
			for k, i := range members {
				if w := set[i].Weight; w > 0 && !math.IsInf(w, 0) {
					sum += w
				}
				c[k] = sum
			}
			if sum > 0 && !math.IsInf(sum, 0) {
				s.cum[g] = c
			} // else nil: the group uniformly
		}
	}
	return s
}

// pick is a member of group g: uniform, or by weight.
func (s sampler) pick(g int, rng *rand.Rand) int {
	members := s.groups[g]
	if s.cum == nil || s.cum[g] == nil {
		return members[rng.IntN(len(members))]
	}
	c := s.cum[g]
	return members[pickWeighted(c, rng.Float64()*c[len(c)-1])]
}

// pickWeighted is the index k of the interval [c[k-1], c[k]) (c[-1] = 0)
// that holds u, for cumulative weights c (non-decreasing, c[last] > 0)
// and 0 <= u < c[last]: the first k with c[k] > u, so that an interval
// of weight 0 (c[k] = c[k-1]) is never picked.
func pickWeighted(c []float64, u float64) int {
	k, _ := slices.BinarySearch(c, u) // the first c[k] >= u
	for k < len(c)-1 && c[k] <= u {
		k++
	}
	return k
}

func (s sampler) draw(rng *rand.Rand) *Molecule {
	_, i := s.drawIndex(rng)
	return &s.set[i]
}

// drawIndex is draw's molecule as its group (an index of groups, 0 for a
// set of one group) and its index in the set, from the same draws.
func (s sampler) drawIndex(rng *rand.Rand) (group, i int) {
	if len(s.groups) <= 1 {
		if s.cum != nil {
			return 0, s.pick(0, rng)
		}
		return 0, rng.IntN(len(s.set))
	}
	g := rng.IntN(len(s.groups))
	return g, s.pick(g, rng)
}

// RandomWindows draws n windows of at most crop bases: a molecule
// uniformly, or by its Weight (a group first, when the set has
// several), then a start uniformly among those that fit.
func RandomWindows(set []Molecule, n, crop int, rng *rand.Rand) []Window {
	sm := newSampler(set)
	ws := make([]Window, n)
	for k := range ws {
		m := sm.draw(rng)
		l := min(crop, len(m.Seq))
		ws[k] = Window{Mol: m, Start: rng.IntN(len(m.Seq) - l + 1), Len: l}
	}
	return ws
}

// BucketWindows draws a batch of n windows of about one size (length
// bucketing: a batch is padded to its longest window, so similar sizes
// waste little, and a batch of short molecules costs little). A
// molecule is drawn as RandomWindows draws one. If it has more than
// 2*crop bases, the batch is n windows of 2*crop bases drawn as
// RandomPairWindows draws them from the molecules of its group longer
// than 2*crop. Otherwise the batch is that molecule whole and n-1 other
// whole molecules of its group of at most 2*crop bases, each drawn
// uniformly among the 4n nearest to it in length (ties by set order).
func BucketWindows(set []Molecule, n, crop int, rng *rand.Rand) []Window {
	sm := newSampler(set)
	g, first := sm.drawIndex(rng)
	members := sm.groups[g]
	long := len(set[first].Seq) > 2*crop
	// The group's molecules on the drawn one's side of 2*crop (shallow
	// copies: the windows point at them, with the same data).
	var same []Molecule
	var at int // the drawn molecule's index in same
	for _, i := range members {
		if (len(set[i].Seq) > 2*crop) == long {
			if i == first {
				at = len(same)
			}
			same = append(same, set[i])
		}
	}
	if long {
		return RandomPairWindows(same, n, crop, rng)
	}
	order := make([]int, len(same)) // indices of same by length, then set order
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(same[order[a]].Seq) < len(same[order[b]].Seq) })
	pos := slices.Index(order, at)
	lo := max(0, min(pos-2*n, len(order)-4*n))
	hi := min(len(order), lo+4*n)
	ws := make([]Window, n)
	ws[0] = whole(&same[at])
	for k := 1; k < n; k++ {
		ws[k] = whole(&same[order[lo+rng.IntN(hi-lo)]])
	}
	return ws
}

func whole(m *Molecule) Window { return Window{Mol: m, Len: len(m.Seq)} }

// RandomPairWindows draws n windows of at most 2*crop bases: half of
// them (in expectation) contiguous, as RandomWindows draws them, and the
// others pair crops: a molecule uniformly, or by its Weight (a group
// first, when the set has several), a base uniformly among those
// paired to a partner more than 2*crop bases away, and the two stretches
// of crop bases around the base and its partner, each at a uniform
// offset (a molecule without such a pair gives a contiguous window).
// Contiguous crops teach the short-range pairs and pair crops the
// long-range ones that no contiguous crop of this size holds.
func RandomPairWindows(set []Molecule, n, crop int, rng *rand.Rand) []Window {
	sm := newSampler(set)
	ws := make([]Window, n)
	for k := range ws {
		m := sm.draw(rng)
		long := rng.IntN(2) == 1
		var far []int
		if long {
			for i, p := range m.Partner {
				if p > i+2*crop {
					far = append(far, i)
				}
			}
		}
		if len(far) == 0 {
			l := min(2*crop, len(m.Seq))
			ws[k] = Window{Mol: m, Start: rng.IntN(len(m.Seq) - l + 1), Len: l}
			continue
		}
		i := far[rng.IntN(len(far))]
		j := m.Partner[i]
		// Stretch one covers i and ends before j's stretch can start.
		a := max(0, i-rng.IntN(crop))
		b := min(len(m.Seq)-crop, max(a+crop, j-rng.IntN(crop)))
		ws[k] = Window{Mol: m, Start: a, Len: crop, Start2: b, Len2: crop}
	}
	return ws
}
