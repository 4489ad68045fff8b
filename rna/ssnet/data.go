package ssnet

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"strings"

	"github.com/contactmap/contactmap/pairnet"
	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/scnn"
)

// Molecule is a structure with the family it belongs to.
type Molecule struct {
	*rna.Structure
	// Family is the folder of the record's source name in the authors'
	// test file ("16s_small", "rnasep", ...), or "" for other records.
	Family string
}

// ReadSet reads a file in the five-line format.
func ReadSet(file string) ([]Molecule, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("ssnet: %w", err)
	}
	defer f.Close()
	ss, err := rna.ReadFiveLine(f, file)
	if err != nil {
		return nil, err
	}
	out := make([]Molecule, len(ss))
	for i, s := range ss {
		out[i] = Molecule{Structure: s, Family: familyOf(s.Name)}
	}
	return out, nil
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

// baseIndex is the one-hot channel of a normalised base: A, C, G, U, N.
func baseIndex(b byte) int {
	switch b {
	case 'A':
		return 0
	case 'C':
		return 1
	case 'G':
		return 2
	case 'U':
		return 3
	}
	return 4
}

// Window is a stretch [Start, Start+Len) of a molecule.
type Window struct {
	Mol        *Molecule
	Start, Len int
}

// Batch is a padded batch of windows: one-hot inputs, pair labels and the
// mask of valid pairs (row-major B x L x L).
type Batch struct {
	In           pairnet.Inputs
	L            int
	Labels, Mask []float32
}

// NewBatch builds the network inputs and labels of windows (a pair is a
// label when both bases lie in its window).
func NewBatch(ws []Window) *Batch {
	l := 0
	for _, w := range ws {
		l = max(l, w.Len)
	}
	b := len(ws)
	seqs := make([]string, b)
	for s, w := range ws {
		seqs[s] = w.Mol.Seq[w.Start : w.Start+w.Len]
	}
	bt := &Batch{L: l, In: OneHot(seqs), Labels: make([]float32, b*l*l), Mask: make([]float32, b*l*l)}
	for s, w := range ws {
		for i := 0; i < w.Len; i++ {
			for j := 0; j < w.Len; j++ {
				bt.Mask[(s*l+i)*l+j] = 1
			}
			if p := w.Mol.Partner[w.Start+i]; p >= w.Start && p < w.Start+w.Len {
				bt.Labels[(s*l+i)*l+p-w.Start] = 1
			}
		}
	}
	return bt
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

// RandomWindows draws n windows of at most crop bases: a molecule
// uniformly, then a start uniformly among those that fit.
func RandomWindows(set []Molecule, n, crop int, rng *rand.Rand) []Window {
	ws := make([]Window, n)
	for k := range ws {
		m := &set[rng.IntN(len(set))]
		l := min(crop, len(m.Seq))
		ws[k] = Window{Mol: m, Start: rng.IntN(len(m.Seq) - l + 1), Len: l}
	}
	return ws
}
