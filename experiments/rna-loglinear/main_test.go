package main

import (
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna/loglinear"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// writeSet writes dot-bracket records to dir/name (gzip).
func writeSet(t *testing.T, dir, name string, recs ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(strings.Join(recs, "\n") + "\n"))
	zw.Close()
	f.Close()
	return path
}

var recs = []string{
	">a", "GGGGAAACCCCAAAGGGCGAAAGCCCUU", "((((...))))...(((.....)))...",
	">b", "GCGCAAAGCGCAGGAAACCUAAA", "((((...))))((...)).....",
	// c: 230 nt, where the zero rule bands (span 200) and the global-600
	// rule does not, so that the two rules' entries differ.
	">c", "GGGGAAACCCC" + strings.Repeat("A", 208) + "GGGGAAACCCC", "((((...))))" + strings.Repeat(".", 208) + "((((...))))",
}

// TestTrainScoreCache runs the three commands on a tiny set: training
// writes its model and log, scoring writes a row per molecule, and the
// cache holds both rules' entries and refuses another model's cache.
func TestTrainScoreCache(t *testing.T) {
	dir := t.TempDir()
	set := writeSet(t, dir, "valid.dbn.gz", recs...)
	ctx := context.Background()
	out := filepath.Join(dir, "run")
	if err := train(ctx, []string{"-set", set, "-min-len", "10", "-sample", "5", "-max-evals", "5", "-out", out}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"model.txt", "log.tsv", "sample.txt"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	model := filepath.Join(out, "model.txt")
	if err := score(ctx, []string{"-model", model, "-name", "T", "-sets", dir, "-threads", "1"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "scores-T.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != "predictor\tname\tlength\tf1\tmcc\tf1_slip" || !strings.HasPrefix(lines[1], "T/mea\ta\t28\t") {
		t.Errorf("scores file:\n%s", b)
	}
	cache1 := filepath.Join(dir, "ll.tsv.gz")
	if err := cache(ctx, []string{"-model", model, "-out", cache1, "-sets", set, "-threads", "1"}); err != nil {
		t.Fatal(err)
	}
	c, err := ssnet.ReadEnsembleCache(cache1)
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range []string{recs[1], recs[4], recs[7]} {
		for _, r := range []ssnet.EnsembleFold{{}, {Global: 600}} {
			if !c.Has(r, seq) {
				t.Errorf("the cache lacks the %d-nt molecule's entry under rule %+v", len(seq), r)
			}
		}
	}
	// Another model: refused.
	other := filepath.Join(dir, "other.txt")
	m := loglinear.NewModel()
	m.Theta[0] = 1
	if err := writeModel(other, m); err != nil {
		t.Fatal(err)
	}
	if err := cache(ctx, []string{"-model", other, "-out", cache1, "-sets", set}); err == nil || !strings.Contains(err.Error(), "another model") {
		t.Errorf("another model's cache: %v", err)
	}
	// A cache without its sidecar (McCaskill's, say): refused.
	os.Remove(cache1 + ".model")
	if err := cache(ctx, []string{"-model", model, "-out", cache1, "-sets", set}); err == nil || !strings.Contains(err.Error(), "without") {
		t.Errorf("a cache without its sidecar: %v", err)
	}
	// The McCaskill cache rna train and rna predict read: refused.
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	def := ssnet.DefaultEnsembleCache()
	if err := cache(ctx, []string{"-model", model, "-out", def, "-sets", set}); err == nil || !strings.Contains(err.Error(), "McCaskill") {
		t.Errorf("the default cache %s: %v", def, err)
	}
	if _, err := os.Stat(def); err == nil {
		t.Errorf("%s was written", def)
	}
}
