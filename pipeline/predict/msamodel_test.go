package predict

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
)

// A model trained on alignments (mode msa+plm, untrained weights here)
// predicts an alignment file from the alignment itself, byte for byte as
// it predicts the alignment's query given as a sequence with the
// alignment in Config.MSADir; an input without an alignment fails alone
// with a ModeError, the other inputs go on.
func TestMSAModelOnAlignmentFile(t *testing.T) {
	a := model.DefaultArch(model.SCNN)
	a.Mode = features.MSAPlmMode
	m, err := model.NewModel(a, 7)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "msa.scnn")
	if err := m.Save(spec); err != nil {
		t.Fatal(err)
	}
	const src = "../../data/msa/1CTF_A.fasta"
	alnData, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	msaDir := filepath.Join(dir, "msa")
	os.Mkdir(msaDir, 0o755)
	alnPath := filepath.Join(msaDir, "1CTF_A.fasta")
	os.WriteFile(alnPath, alnData, 0o644)
	aln, err := features.ReadMSA(alnPath)
	if err != nil {
		t.Fatal(err)
	}
	seqs := filepath.Join(dir, "query.fasta")
	os.WriteFile(seqs, []byte(">1CTF_A\n"+aln.Query()+"\n>other\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n"), 0o644)

	run := func(name string, cfg Config, args ...string) map[string]Outcome {
		t.Helper()
		cfg.Models = []string{spec}
		cfg.Out = filepath.Join(dir, name)
		cfg.Formats = []string{"npy"}
		cfg.Workers = 1
		outs, err := Run(context.Background(), cfg, args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		byID := map[string]Outcome{}
		for _, o := range outs {
			byID[o.ID] = o
		}
		return byID
	}
	fromFile := run("file", Config{}, alnPath)
	if o := fromFile["1CTF_A"]; o.Err != nil || len(o.Files) != 1 || len(o.Notes) != 0 {
		t.Fatalf("alignment file: %+v", o)
	}
	fromDir := run("dir", Config{MSADir: msaDir}, seqs)
	if o := fromDir["1CTF_A"]; o.Err != nil || len(o.Files) != 1 {
		t.Fatalf("query with --msa-dir: %+v", o)
	}
	if o := fromDir["other"]; o.Err == nil || !strings.Contains(o.Err.Error(), "no alignment in") {
		t.Errorf("a sequence without an alignment in --msa-dir: %v", o.Err)
	}
	b1, err1 := os.ReadFile(fromFile["1CTF_A"].Files[0])
	b2, err2 := os.ReadFile(fromDir["1CTF_A"].Files[0])
	if err1 != nil || err2 != nil || !bytes.Equal(b1, b2) {
		t.Errorf("the alignment file and the query with its alignment in --msa-dir predict differently (%v, %v)", err1, err2)
	}
	// Without --msa-dir, an input without an alignment fails with a
	// ModeError (and the alignment file above was read as one without
	// gaps: FASTA files are alignments for such a model).
	byID := run("id", Config{PDBDir: mirror}, "1ENH_A")
	var me *ModeError
	if o := byID["1ENH_A"]; !errors.As(o.Err, &me) || !me.Missing || me.Input != InputMSA {
		t.Errorf("a PDB ID without --msa-dir: %v, want a ModeError", o.Err)
	}
}
