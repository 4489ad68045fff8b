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
