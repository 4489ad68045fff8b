package sets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Run builds both sets from a directory of structures, writes the five
// files and says what they hold; a cancelled context stops it.
func TestRun(t *testing.T) {
	files, err := Files("../../pdb/testdata")
	if err != nil {
		t.Fatal(err)
	}
	pool, _ := Scan(files, 20, 0.5, 2, nil)
	var base []Member
	for _, c := range pool {
		if c.ID == "1ENH_A" {
			base = append(base, Member{Chain: c, Split: Validation})
		}
	}
	if len(base) != 1 {
		t.Fatalf("no 1ENH_A in %v", pool)
	}
	stages := map[string]int{}
	o := DefaultOptions
	o.MinLen, o.MaxLen = 25, 60
	o.Progress = func(stage string, done, total int) { stages[stage]++ }
	cfg := Config{Base: base, PDBDir: "../../pdb/testdata", Out: filepath.Join(t.TempDir(), "sets"), MinResolved: 20, MinResolvedFraction: 0.5, Options: o}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"extended.tsv", "extended-excluded.tsv", "long.tsv", "long-excluded.tsv", "skipped.tsv"} {
		if _, err := os.Stat(filepath.Join(cfg.Out, f)); err != nil {
			t.Error(err)
		}
	}
	if res.Pool != len(pool) || len(res.Extended)+len(res.ExtendedOut) < len(pool) || len(stages) == 0 {
		t.Errorf("pool %d of %d, extended %d + %d left out, stages %v", res.Pool, len(pool), len(res.Extended), len(res.ExtendedOut), stages)
	}
	for _, m := range res.Long {
		if len(m.Seq) <= o.MaxLen {
			t.Errorf("%s of length %d in the long set", m.ID, len(m.Seq))
		}
	}
	var w strings.Builder
	res.Summary(&w)
	lines := strings.Split(w.String(), "\n")
	if len(lines) < 5 || !strings.HasPrefix(lines[0], fmt.Sprintf("%d chains read from ../../pdb/testdata (", len(pool))) || !strings.Contains(w.String(), "extended set "+filepath.Join(cfg.Out, "extended.tsv")+": ") ||
		!strings.Contains(w.String(), "length-generalisation set "+filepath.Join(cfg.Out, "long.tsv")+": ") {
		t.Errorf("summary:\n%s", w.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, cfg); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
