package predict_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna/predict"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// An ArchiveII tRNA (H. salinarum tRNA-Ala), not in the database.
const trna = "GGGCUCGUAGAUCAGCGGUAGAUCGCUUCCUUCGCAAGGAAGAGGCCCUGGGUUCAAAUCCCAGCGAGUCCACCA"

// --db with the real nhmmer: the consensus method finds the tRNA's
// homologs and says how many it used; the network method says when a
// template kept the consensus out; --db is refused where no method
// reads it, and the consensus method without it.
func TestRunWithDB(t *testing.T) {
	if _, err := exec.LookPath("nhmmer"); err != nil {
		t.Skip("nhmmer not on PATH (Debian package hmmer)")
	}
	db := filepath.Join("testdata", "trna.db.fasta")
	run := func(method, db string) (predict.Outcome, error) {
		t.Helper()
		cfg := predict.Config{Method: method, DB: db, Out: t.TempDir(), Formats: []ssnet.Format{ssnet.DotBracket}, Workers: 1, Threads: 1,
			Stdin: strings.NewReader(">trna\n" + trna + "\n"), Shipped: shippedRNA}
		out, err := predict.Run(context.Background(), cfg, []string{"-"})
		if err != nil {
			return predict.Outcome{}, err
		}
		if len(out) != 1 {
			t.Fatalf("%d outcomes", len(out))
		}
		return out[0], out[0].Err
	}
	o, err := run(ssnet.MethodConsensus, db)
	if err != nil {
		t.Fatal(err)
	}
	if o.Homologs < 1 || o.Method != "consensus of "+strconv.Itoa(o.Homologs)+" homologs" {
		t.Fatalf("homologs %d, method %q", o.Homologs, o.Method)
	}
	if len(o.Structure.Pairs()) < 15 {
		t.Errorf("a tRNA with %d pairs", len(o.Structure.Pairs()))
	}
	n, err := run("", db)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(n.Method, "consensus of") && !strings.Contains(n.Method, "no consensus (a template") {
		t.Errorf("the network's method %q says nothing of the consensus", n.Method)
	}
	if _, err := run("mfe", db); !errors.Is(err, ssnet.ErrUsage) {
		t.Errorf("--db with mfe: %v", err)
	}
	if _, err := run(ssnet.MethodConsensus, ""); !errors.Is(err, ssnet.ErrUsage) {
		t.Errorf("consensus without --db: %v", err)
	}
	if _, err := run(ssnet.MethodConsensus, filepath.Join(t.TempDir(), "none.fasta")); err == nil || !strings.Contains(err.Error(), "--db") {
		t.Errorf("a database that is not there: %v", err)
	}
}

// rna eval --db adds a consensus row per model and decoder and the
// consensus baseline.
func TestEvalWithDB(t *testing.T) {
	if _, err := exec.LookPath("nhmmer"); err != nil {
		t.Skip("nhmmer not on PATH (Debian package hmmer)")
	}
	dir := t.TempDir()
	m, err := ssnet.NewModel(ssnet.CNN, ssnet.FamiliesEnsemble, 1)
	if err != nil {
		t.Fatal(err)
	}
	modelFile := filepath.Join(dir, "model.scnn")
	if err := m.Save(modelFile); err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(dir, "set.dbn")
	train := filepath.Join(dir, "train.dbn")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(set, ">trna\n"+trna+"\n"+"(((((((..((((.......)))).(((((.......))))).....(((((.......))))))))))))....\n")
	write(train, ">r\nGGGGAAACCCCAUGGCCUUCGGGCCA\n((((...))))...((((....))))\n")
	rep, err := predict.Eval(context.Background(), predict.EvalConfig{Models: []string{modelFile}, Set: set, Train: train,
		Decoders: []ssnet.Decoder{ssnet.Greedy}, Workers: 1, Baselines: true, DB: filepath.Join("testdata", "trna.db.fasta"),
		Shipped: predict.Shipped{Load: loadFile}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rep.Rows {
		names = append(names, r.Name)
	}
	joined := strings.Join(names, "\n")
	if !strings.Contains(joined, "greedy, with the consensus") || !strings.Contains(joined, "baseline: consensus") {
		t.Fatalf("rows:\n%s", joined)
	}
}
