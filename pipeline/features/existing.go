package features

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/contactmap/contactmap/pisces"
)

// ErrChangedDirectory: the output directory holds a manifest that the
// run would change beyond resuming it (another split, other labels, other
// chains, another mode), and Config.Force is not set.
var ErrChangedDirectory = errors.New("the output directory holds features made with other settings")

// checkExisting compares the manifest already in cfg.Out (of this shard)
// with what the run would write for mine: the same chains, each in the
// same split and mode, with the same label definition. A run that only
// resumes (or repeats) the earlier one passes; one that would give the
// directory's chains another split or labels, or replace its chain list,
// is refused unless cfg.Force, because models trained on the directory
// would then be evaluated on a changed test split without a word.
func checkExisting(cfg *Config, mine []pisces.Entry) error {
	path := filepath.Join(cfg.Out, "manifest"+cfg.ShardSuffix()+".tsv")
	old, err := ReadManifest(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		if cfg.Force {
			return nil
		}
		return fmt.Errorf("features: %w: %v (--force replaces it)", ErrChangedDirectory, err)
	}
	if cfg.Force || len(old) == 0 {
		return nil
	}
	byID := make(map[string]pisces.Entry, len(mine))
	for _, e := range mine {
		byID[chainID(e)] = e
	}
	wantMode := Mode{MSA: cfg.MSADir != "", SS: cfg.SS != "", Plm: cfg.MSADir != "" && cfg.Plm}
	var diffs []string
	n := 0
	note := func(format string, a ...any) {
		if n++; n <= 3 {
			diffs = append(diffs, fmt.Sprintf(format, a...))
		}
	}
	for _, o := range old {
		e, ok := byID[o.ID]
		switch {
		case !ok:
			note("%s is not in the new chain list", o.ID)
		case cfg.splitOf(e) != o.Split:
			note("%s: split %s, the run would make it %s", o.ID, o.Split, cfg.splitOf(e))
		case o.Mode != wantMode:
			note("%s: features %s, the run would make them %s", o.ID, o.Mode, wantMode)
		}
	}
	if n == 0 {
		// The labels are in the feature files: one of them tells.
		for _, o := range old {
			c, err := ReadFile(filepath.Join(cfg.Out, o.File))
			if err != nil || c.Labels == nil {
				continue
			}
			want := cfg.Labels
			if d := c.Labels.Def; d.Atoms != want.Atoms || float32(d.Cutoff) != float32(want.Cutoff) {
				note("labels %s, the run would write %s", d, want)
			}
			break
		}
	}
	if n == 0 {
		return nil
	}
	more := ""
	if n > len(diffs) {
		more = fmt.Sprintf(" and %d more", n-len(diffs))
	}
	return fmt.Errorf("features: %s: %w: %s%s; models trained on it would be evaluated on changed data: use another --out, or --force to replace them",
		path, ErrChangedDirectory, strings.Join(diffs, "; "), more)
}
