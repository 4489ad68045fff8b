package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// rna predict writes every format for each good record, reports the bad
// one (an invalid letter) and fails after the others complete; a CT input
// is scored against its own structure.
func TestRNAPredictCommand(t *testing.T) {
	dir := t.TempDir()
	m, err := ssnet.NewModel(ssnet.SCNN, ssnet.Default, 1)
	if err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "m.scnn")
	if err := m.Save(modelPath); err != nil {
		t.Fatal(err)
	}
	fasta := filepath.Join(dir, "in.fa")
	os.WriteFile(fasta, []byte(">good one\nGGGAAACCCUUAGCGCUAAGCGCU\n>bad\nGGGAXACCC\n>good\nacgtacgtacgtn\n"), 0o644)
	s, err := rna.New("hairpin", "GGGGAAAACCCC", [][2]int{{0, 11}, {1, 10}, {2, 9}, {3, 8}})
	if err != nil {
		t.Fatal(err)
	}
	ct := filepath.Join(dir, "hairpin.ct")
	f, _ := os.Create(ct)
	rna.WriteCT(f, s)
	f.Close()
	out := filepath.Join(dir, "out")
	err = runRNAPredict(context.Background(), []string{"--model", modelPath, "--out", out, fasta, ct})
	if err == nil || !strings.Contains(err.Error(), "1 input(s) failed") {
		t.Fatalf("error %v, want one failed input", err)
	}
	for _, base := range []string{"good", "good_2", "hairpin"} {
		for _, f := range ssnet.Formats {
			if st, err := os.Stat(filepath.Join(out, base+"."+string(f))); err != nil || st.Size() == 0 {
				t.Errorf("%s.%s: %v", base, f, err)
			}
		}
	}
	// The BPSEQ output reads back as a valid structure of the sequence.
	g, _ := os.Open(filepath.Join(out, "good_2.bpseq"))
	defer g.Close()
	back, err := rna.ReadBPSEQ(g, "good_2.bpseq")
	if err != nil || back.Seq != "ACGUACGUACGUN" {
		t.Errorf("read back %v, %v", back, err)
	}
	if err := runRNAPredict(context.Background(), []string{"--model", "no-such-model", "--out", out, fasta}); err == nil {
		t.Error("an unknown model accepted")
	}
	if err := runRNAPredict(context.Background(), []string{"--model", modelPath, "--format", "pdf", fasta}); err == nil {
		t.Error("unknown format accepted")
	}
}

// A run's split is predicted once: the scores are read back from the
// run directory while the model file is unchanged, and computed again
// when it changes.
func TestRunScoresCache(t *testing.T) {
	dir := t.TempDir()
	save := func(seed uint64) *ssnet.Model {
		m, err := ssnet.NewModel(ssnet.SCNN, ssnet.Default, seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Save(filepath.Join(dir, ssnet.ModelFile)); err != nil {
			t.Fatal(err)
		}
		return m
	}
	h1, _ := rna.New("h1", "GGGGAAAACCCCAUGC", [][2]int{{0, 11}, {1, 10}, {2, 9}, {3, 8}})
	h2, _ := rna.New("h2", "GCGCUUUUGCGCAAAA", [][2]int{{0, 11}, {1, 10}})
	set := []ssnet.Molecule{{Structure: h1}, {Structure: h2}}
	m := save(1)
	first, err := runScores(dir, "test", set, m)
	if err != nil || len(first) != 2 {
		t.Fatalf("%v, %v", first, err)
	}
	// Mark the cached scores: a second call must return them as stored.
	cache := filepath.Join(dir, "scores-test.json")
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	marked := strings.Replace(string(b), `"name":"h1"`, `"name":"h1-cached"`, 1)
	os.WriteFile(cache, []byte(marked), 0o644)
	again, err := runScores(dir, "test", set, m)
	if err != nil || again[0].Name != "h1-cached" {
		t.Fatalf("not read from the cache: %+v, %v", again, err)
	}
	// Another model file: predicted again.
	m = save(2)
	fresh, err := runScores(dir, "test", set, m)
	if err != nil || fresh[0].Name != "h1" {
		t.Fatalf("a changed model read stale scores: %+v, %v", fresh, err)
	}
}
