package train

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/contactmap/contactmap/pipeline/model"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/contactmap/contactmap/pipeline/features"
)

// LoadSplit reads the chains of a split ("train", "validation", "test" or
// "all") listed in dir/manifest.tsv. All chains must share one
// feature mode, which is returned.
func LoadSplit(dir, split string) ([]*model.Sample, features.Mode, error) {
	switch split {
	case "train", "validation", "test", "all":
	default:
		return nil, features.Mode{}, fmt.Errorf("unknown split %q (train, validation, test or all)", split)
	}
	entries, err := features.ReadManifest(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return nil, features.Mode{}, fmt.Errorf("train: %w", err)
	}
	var out []*model.Sample
	var mode features.Mode
	for _, e := range entries {
		if split != "all" && e.Split != split {
			continue
		}
		path := filepath.Join(dir, e.File)
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, features.Mode{}, fmt.Errorf("train: %w", err)
		}
		if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != e.SHA256 {
			return nil, features.Mode{}, fmt.Errorf("train: %s: checksum differs from manifest.tsv (file changed after the features run?)", path)
		}
		c, err := features.Read(bytes.NewReader(raw))
		if err != nil {
			return nil, features.Mode{}, fmt.Errorf("train: %s: %w", path, err)
		}
		if c.Labels == nil {
			return nil, features.Mode{}, fmt.Errorf("train: %s has no labels", e.File)
		}
		if len(out) == 0 {
			mode = c.Mode()
		} else if c.Mode() != mode {
			return nil, features.Mode{}, fmt.Errorf("train: %s has feature mode %s, earlier chains %s", e.File, c.Mode(), mode)
		}
		if len(out) > 0 && c.Labels.Def != out[0].Labels.Def {
			return nil, features.Mode{}, fmt.Errorf("train: %s has labels of %s, earlier chains %s", e.File, c.Labels.Def, out[0].Labels.Def)
		}
		out = append(out, &model.Sample{ID: e.ID, Split: e.Split, Chain: c})
	}
	if len(out) == 0 {
		return nil, features.Mode{}, fmt.Errorf("train: no %q chains in %s", split, dir)
	}
	return out, mode, nil
}

// Batches groups sample indices into batches of at most size chains in a
// seeded random order (byLength false), or of similar length (byLength
// true: ordered by length with a random tie-break, cut into consecutive
// batches, batch order shuffled), which keeps padding small. Training uses
// batches of similar length by default (Options.Random for random ones):
// their batchnorm statistics encode the chains' length, which a model
// could learn to use in training but inference (running statistics)
// cannot provide; the fixed separation channels (model.Arch.SepChannels)
// give both model kinds what they need instead (see docs/protein.md, "Train and evaluate").
func Batches(samples []*model.Sample, size int, rng *rand.Rand, byLength bool) [][]int {
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
