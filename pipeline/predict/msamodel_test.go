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
	aln, err := features.ReadAlignment(alnPath)
	if err != nil {
		t.Fatal(err)
	}
	seqs := filepath.Join(dir, "query.fasta")
	os.WriteFile(seqs, []byte(">1CTF_A\n"+aln.Query()+"\n>other\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n"), 0o644)

	run := func(name string, cfg Config, args ...string) map[string]Outcome {
		t.Helper()
		cfg.Models = []string{spec}
		return runNPY(t, filepath.Join(dir, name), cfg, args...)
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

// With models trained without alignments (the shipped default) and
// AlignmentModels (the shipped MSA model, for the CLI), an alignment file
// is predicted by the alignment models, byte for byte as they predict it
// alone, with a note saying so; a sequence in the same run is predicted by
// the sequence model. An alignment model trained without alignments is
// refused before anything runs.
func TestAlignmentModelsForAlignmentFiles(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, mode features.Mode, seed uint64) string {
		a := model.DefaultArch(model.SCNN)
		a.Mode = mode
		m, err := model.NewModel(a, seed)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := m.Save(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seqModel := save("seq.scnn", features.Mode{}, 3)
	msaModel := save("msa.scnn", features.MSAPlmMode, 7)
	const aln = "../msa/testdata/1CTF_A.a3m" // A3M: an alignment by content
	seqs := filepath.Join(dir, "q.fasta")
	os.WriteFile(seqs, []byte(">short\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n"), 0o644)
	run := func(name string, cfg Config, args ...string) map[string]Outcome {
		t.Helper()
		return runNPY(t, filepath.Join(dir, name), cfg, args...)
	}
	both := run("both", Config{Models: []string{seqModel}, AlignmentModels: []string{msaModel}}, aln, seqs)
	alone := run("alone", Config{Models: []string{msaModel}}, aln)
	seqAlone := run("seq", Config{Models: []string{seqModel}}, seqs)
	o := both["1CTF_A"] // an alignment file's ID is its stem
	if o.Err != nil || len(o.Files) != 1 || len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "alignment model") {
		t.Fatalf("alignment file with AlignmentModels: %+v", o)
	}
	for _, c := range []struct {
		id      string
		a, b    map[string]Outcome
		against string
	}{{"1CTF_A", both, alone, "the alignment model alone"}, {"short", both, seqAlone, "the sequence model alone"}} {
		b1, err1 := os.ReadFile(c.a[c.id].Files[0])
		b2, err2 := os.ReadFile(c.b[c.id].Files[0])
		if err1 != nil || err2 != nil || !bytes.Equal(b1, b2) {
			t.Errorf("%s: predicted differently from %s (%v, %v)", c.id, c.against, err1, err2)
		}
	}
	_, err := Run(context.Background(), Config{Models: []string{seqModel}, AlignmentModels: []string{seqModel}, Out: filepath.Join(dir, "bad"), Workers: 1}, []string{aln})
	if err == nil || !strings.Contains(err.Error(), "trained on alignments") {
		t.Errorf("a sequence model as the alignment model: %v", err)
	}
}

// runNPY runs cfg on args with .npy outputs into out, one worker, and
// returns the outcomes by chain ID.
func runNPY(t *testing.T, out string, cfg Config, args ...string) map[string]Outcome {
	t.Helper()
	cfg.Out = out
	cfg.Formats = []string{"npy"}
	cfg.Workers = 1
	outs, err := Run(context.Background(), cfg, args)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	byID := map[string]Outcome{}
	for _, o := range outs {
		byID[o.ID] = o
	}
	return byID
}
