package train

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/scnn"
)

// Sample is one chain's features and labels.
type Sample struct {
	ID    string
	Split string
	*features.Chain
}

// LoadSplit reads the chains of a split ("train", "validation", "test" or
// "all") listed in dir/manifest.tsv. All chains must share one
// feature mode, which is returned.
func LoadSplit(dir, split string) ([]*Sample, string, error) {
	switch split {
	case "train", "validation", "test", "all":
	default:
		return nil, "", fmt.Errorf("unknown split %q (train, validation, test or all)", split)
	}
	entries, err := features.ReadManifest(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return nil, "", fmt.Errorf("train: %w", err)
	}
	var out []*Sample
	mode := ""
	for _, e := range entries {
		if split != "all" && e.Split != split {
			continue
		}
		path := filepath.Join(dir, e.File)
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, "", fmt.Errorf("train: %w", err)
		}
		if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != e.SHA256 {
			return nil, "", fmt.Errorf("train: %s: checksum differs from manifest.tsv (file changed after the features run?)", path)
		}
		c, err := features.Read(bytes.NewReader(raw))
		if err != nil {
			return nil, "", fmt.Errorf("train: %s: %w", path, err)
		}
		if !c.HasLabels {
			return nil, "", fmt.Errorf("train: %s has no labels", e.File)
		}
		if mode == "" {
			mode = c.Mode()
		} else if c.Mode() != mode {
			return nil, "", fmt.Errorf("train: %s has feature mode %s, earlier chains %s", e.File, c.Mode(), mode)
		}
		if len(out) > 0 && (c.Def != out[0].Def || c.Cutoff != out[0].Cutoff) {
			return nil, "", fmt.Errorf("train: %s has %v contacts at %g Å, earlier chains %v at %g Å", e.File, c.Def, c.Cutoff, out[0].Def, out[0].Cutoff)
		}
		out = append(out, &Sample{ID: e.ID, Split: e.Split, Chain: c})
	}
	if len(out) == 0 {
		return nil, "", fmt.Errorf("train: no %q chains in %s", split, dir)
	}
	return out, mode, nil
}

// Batch is a padded batch: B chains padded to the longest, L.
type Batch struct {
	IDs     []string
	Lengths []int
	L       int
	X1      *scnn.Tensor // (B, L, 25), zero at padding
	X2      *scnn.Tensor // (B, L, L, 3), packed or row-major, zero at padding
	Labels  []float32    // B x L x L row-major
	Mask    []float32    // B x L x L: 1 for labelled pairs of valid residues
}

// NewBatch pads samples into a batch; packed selects the layout of X2.
func NewBatch(samples []*Sample, packed bool) *Batch {
	b := &Batch{}
	for _, s := range samples {
		b.IDs = append(b.IDs, s.ID)
		b.Lengths = append(b.Lengths, s.L())
		b.L = max(b.L, s.L())
	}
	n, l := len(samples), b.L
	b.X1 = scnn.New(n, l, features.N1D)
	if packed {
		b.X2 = scnn.NewPacked(n, l, features.N2D)
	} else {
		b.X2 = scnn.New(n, l, l, features.N2D)
	}
	b.Labels = make([]float32, n*l*l)
	b.Mask = make([]float32, n*l*l)
	for k, s := range samples {
		ls := s.L()
		copy(b.X1.Data[k*l*features.N1D:], s.OneD)
		p := 0
		for i := 0; i < ls; i++ {
			for j := i; j < ls; j++ {
				for c := 0; c < features.N2D; c++ {
					b.X2.Set(s.TwoD[p*features.N2D+c], k, i, j, c)
					if !packed {
						b.X2.Set(s.TwoD[p*features.N2D+c], k, j, i, c)
					}
				}
				if s.HasLabels && s.Mask[p] == 1 {
					for _, ij := range [][2]int{{i, j}, {j, i}} {
						o := (k*l+ij[0])*l + ij[1]
						b.Mask[o] = 1
						b.Labels[o] = float32(s.Contacts[p])
					}
				}
				p++
			}
		}
	}
	return b
}

// Batches groups sample indices into batches of at most size chains in a
// seeded random order (byLength false), or of similar length (byLength
// true: ordered by length with a random tie-break, cut into consecutive
// batches, batch order shuffled), which keeps padding small. Training uses
// random batches: with length-sorted batches the batchnorm statistics of
// a batch encode its chains' length, which a model can learn to use in
// training but inference (running statistics) cannot provide.
func Batches(samples []*Sample, size int, rng *rand.Rand, byLength bool) [][]int {
	idx := rng.Perm(len(samples))
	if byLength {
		sort.SliceStable(idx, func(a, b int) bool { return samples[idx[a]].L() < samples[idx[b]].L() })
	}
	var out [][]int
	for i := 0; i < len(idx); i += size {
		out = append(out, idx[i:min(i+size, len(idx))])
	}
	rng.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	return out
}
