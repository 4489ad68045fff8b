package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/msa"
	"github.com/contactmap/contactmap/pipeline/potts"
	"github.com/contactmap/contactmap/pipeline/predict"
)

// msaTestdata is the alignment readers' test data: 1CTF_A (10 Pfam
// records, L = 68) as aligned FASTA, A3M and Stockholm, each also
// gzipped; 1brfA's first 12 PSICOV rows (see its README).
const msaTestdata = "../../pipeline/msa/testdata"

func readNPY(t *testing.T, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	data := b[10+hl:]
	v := make([]float32, len(data)/4)
	for k := range v {
		v[k] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*k:]))
	}
	return v
}

// An alignment file, in any supported format and compressed
// or not, recognised by content, predicts its query's contacts with
// plmDCA: the outputs of a sequence input named by the file's stem, the
// RR file under --rr-max, the same map from every format, and that map is
// potts.Predict's scores through predict.PlmProbabilities; Neff/L < 1
// gets a warning. Without --method the shipped MSA model predicts it.
func TestPredictAlignmentFile(t *testing.T) {
	dir := t.TempDir()
	a, want := plm1CTF(t)
	l := a.L()
	for k, name := range []string{"1CTF_A.fasta", "1CTF_A.a3m", "1CTF_A.sto", "1CTF_A.fasta.gz", "1CTF_A.a3m.gz", "1CTF_A.sto.gz"} {
		// A name that says nothing of the format: content decides.
		in := filepath.Join(dir, "in", strings.Repeat("x", k), "1CTF_A.txt")
		os.MkdirAll(filepath.Dir(in), 0o755)
		data, _ := os.ReadFile(filepath.Join(msaTestdata, name))
		os.WriteFile(in, data, 0o644)
		out := filepath.Join(dir, "out", name)
		args := []string{"predict", "--out", out, "--format", "rr,npy,tsv,png", "--method", "plm", in}
		code, stdout, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		if strings.Contains(errOut, "note:") {
			t.Errorf("%s: a note under --method plm:\n%s", name, errOut)
		}
		if !strings.Contains(errOut, "warning: 1CTF_A: msa: "+in+": few effective sequences") || !strings.Contains(errOut, "Neff/L") {
			t.Errorf("%s: no Neff/L warning:\n%s", name, errOut)
		}
		if !strings.Contains(errOut, "1CTF_A  68") {
			t.Errorf("%s: stdout:\n%s", name, stdout)
		}
		for _, ext := range []string{"rr", "npy", "tsv", "png"} {
			if _, err := os.Stat(filepath.Join(out, "1CTF_A."+ext)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		got := readNPY(t, filepath.Join(out, "1CTF_A.npy"))
		if len(got) != l*l {
			t.Fatalf("%s: %d values, want %d", name, len(got), l*l)
		}
		for k := range got {
			if got[k] != want[k] {
				t.Fatalf("%s: map[%d] = %g, want %g (potts.Predict through PlmProbabilities)", name, k, got[k], want[k])
			}
		}
		f, _ := os.Open(filepath.Join(out, "1CTF_A.rr"))
		seq, pairs, err := predict.ReadRR(f)
		f.Close()
		if err != nil || seq != a.Query() || len(pairs) != 5*l {
			t.Errorf("%s: RR: %d pairs (want 5L = %d), sequence %q, %v", name, len(pairs), 5*l, seq, err)
		}
	}
	// Without --method an alignment file goes to the shipped MSA model,
	// with a note, and the plmDCA fit's Neff/L warning; a named model
	// trained without alignments leaves it to plmDCA, with a note.
	in := filepath.Join(msaTestdata, "1CTF_A.a3m")
	code, _, errOut := runCLI(t, "predict", "--out", filepath.Join(dir, "default"), "--format", "npy", in)
	if code != 0 || !strings.Contains(errOut, "note: 1CTF_A: an alignment: predicted with the alignment model msa") ||
		!strings.Contains(errOut, "warning: 1CTF_A: msa: "+in+": few effective sequences") {
		t.Errorf("alignment file, no --method: exit %d:\n%s", code, errOut)
	}
	if got := readNPY(t, filepath.Join(dir, "default", "1CTF_A.npy")); len(got) != l*l || got[1] == want[1] {
		t.Errorf("alignment file, no --method: %d values, map[1] %g (plmDCA's %g): not the network's", len(got), got[1], want[1])
	}
	model := proteinModelFile(t, dir)
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", filepath.Join(dir, "named"), "--format", "npy", in)
	if code != 0 || !strings.Contains(errOut, "note: 1CTF_A: an alignment, and the model reads none: predicted with plmDCA") {
		t.Errorf("alignment file with a sequence model named: exit %d:\n%s", code, errOut)
	}
	if got := readNPY(t, filepath.Join(dir, "named", "1CTF_A.npy")); len(got) != l*l || got[1] != want[1] {
		t.Errorf("alignment file with a sequence model named: not plmDCA's map")
	}
	// A FASTA file without gaps, no --method: sequences, one chain each.
	code, stdout, errOut := runCLI(t, "predict", "--model", model, "--out", filepath.Join(dir, "seqs"), filepath.Join(msaTestdata, "1CTF_A.fasta"))
	if code != 0 || !strings.Contains(errOut, "10 chains predicted") {
		t.Errorf("gapless FASTA without --method: exit %d, %s%s", code, stdout, errOut)
	}
	// --method plm: no note; --rr-max as for sequences.
	out := filepath.Join(dir, "rrmax")
	code, _, errOut = runCLI(t, "predict", "--method", "plm", "--rr-max", "10", "--out", out, "--format", "rr", filepath.Join(msaTestdata, "1brfA.aln.gz"))
	if code != 0 || strings.Contains(errOut, "note:") {
		t.Fatalf("--method plm: exit %d: %s", code, errOut)
	}
	f, _ := os.Open(filepath.Join(out, "1brfA.rr"))
	_, pairs, err := predict.ReadRR(f)
	f.Close()
	if err != nil || len(pairs) != 10 {
		t.Errorf("--rr-max 10: %d pairs, %v", len(pairs), err)
	}
}

// --method: an unknown value is a usage error naming the flag; network
// on an alignment says no MSA network is shipped, naming the file; plm
// on a sequence says it needs an alignment. The other inputs go on.
func TestPredictMethodFlag(t *testing.T) {
	dir := t.TempDir()
	aln := filepath.Join(msaTestdata, "1brfA.aln")
	fasta := filepath.Join(dir, "q.fa")
	os.WriteFile(fasta, []byte(">q\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRV\n"), 0o644)
	if code, _, errOut := runCLI(t, "predict", "--method", "dca", "--out", dir, aln); code != 2 || !strings.Contains(errOut, "-method") || !strings.Contains(errOut, "plm, network") {
		t.Errorf("--method dca: exit %d, stderr %q", code, errOut)
	}
	model := proteinModelFile(t, dir)
	code, _, errOut := runCLI(t, "predict", "--method", "network", "--model", model, "--out", filepath.Join(dir, "net"), aln, fasta)
	if code != 1 || !strings.Contains(errOut, "1brfA.aln") || !strings.Contains(errOut, "trained without alignments") || !strings.Contains(errOut, "1 of 2 inputs failed") {
		t.Errorf("--method network on an alignment: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "net", "q.rr")); err != nil {
		t.Errorf("the sequence was not predicted: %v", err)
	}
	code, _, errOut = runCLI(t, "predict", "--method", "plm", "--out", filepath.Join(dir, "plm"), fasta, aln)
	if code != 1 || !strings.Contains(errOut, "an alignment needs at least two") || !strings.Contains(errOut, "q.fa") {
		t.Errorf("--method plm on a one-record FASTA: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "plm", "1brfA.rr")); err != nil {
		t.Errorf("the alignment was not predicted: %v", err)
	}
	// A PDB ID under --method plm without --msa-dir.
	code, _, errOut = runCLI(t, "predict", "--method", "plm", "--pdb-dir", "../../data/pdb", "--out", filepath.Join(dir, "id"), "1ENH_A")
	if code != 1 || !strings.Contains(errOut, "plmDCA predicts from an alignment") {
		t.Errorf("--method plm on a PDB ID without --msa-dir: exit %d, stderr %q", code, errOut)
	}
}

// Bad alignments fail with the file and the row.
func TestPredictAlignmentErrors(t *testing.T) {
	dir := t.TempDir()
	ragged := filepath.Join(dir, "ragged.aln")
	os.WriteFile(ragged, []byte("ACDEFGHIK\nACDEFGHIK\nACDEFGH\n"), 0o644)
	letter := filepath.Join(dir, "letter.fasta")
	os.WriteFile(letter, []byte(">q\nACDEFGHIK\n>s\nACD-FG*IK\n"), 0o644)
	for path, want := range map[string][]string{
		ragged: {"ragged.aln line 3 (sequence 3)", "ragged row"},
		letter: {"letter.fasta line 3 (sequence 2)", "unknown letter"},
	} {
		code, _, errOut := runCLI(t, "predict", "--out", filepath.Join(dir, "out"), path)
		for _, w := range want {
			if code != 1 || !strings.Contains(errOut, w) {
				t.Errorf("%s: exit %d, stderr %q, want %q", filepath.Base(path), code, errOut, w)
			}
		}
	}
}

// Before a fit, its memory is estimated from L, N and the optimiser; a
// fit estimated not to fit in the memory available is refused with the
// estimate, the memory available and the fit's size, and predicted
// anyway under --force.
func TestPredictPlmMemoryRefusal(t *testing.T) {
	dir := t.TempDir()
	aln := filepath.Join(msaTestdata, "1brfA.aln")
	need := predict.Config{}.PlmEstimate(53, 12, 1)
	fakeMemory(t, need/4)
	code, _, errOut := runCLI(t, "predict", "--method", "plm", "--out", filepath.Join(dir, "a"), aln)
	for _, w := range []string{"1brfA.aln (plmDCA fit of 12 sequences x 53 columns", "parameters, L-BFGS)", "needs about", "is available (cgroup v2 /sys/fs/cgroup/test/memory.max)", "skipped (--force tries anyway)"} {
		if code != 1 || !strings.Contains(errOut, w) {
			t.Errorf("exit %d, stderr %q; want %q", code, errOut, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "1brfA.rr")); err == nil {
		t.Error("refused, but wrote outputs")
	}
	code, _, errOut = runCLI(t, "predict", "--method", "plm", "--force", "--out", filepath.Join(dir, "b"), aln)
	if code != 0 || !strings.Contains(errOut, "predicting it anyway") {
		t.Errorf("--force: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", "1brfA.rr")); err != nil {
		t.Error(err)
	}
}

// --method plm with a PDB ID and --msa-dir: the chain's alignment is
// fitted and the map scored against the structure (C-beta contacts);
// an alignment whose query is not the chain's sequence is refused.
func TestPredictPlmMSADir(t *testing.T) {
	dir := t.TempDir()
	ts, err := predict.Resolve("1ENH_A", "../../data/pdb")
	if err != nil {
		t.Fatal(err)
	}
	seq := ts[0].Seq
	var b strings.Builder
	b.WriteString(seq + "\n")
	for k := 0; k < 30; k++ {
		row := []byte(randomProtein(len(seq), int64(k)))
		copy(row[:len(seq)/2], seq[:len(seq)/2])
		b.Write(row)
		b.WriteByte('\n')
	}
	os.MkdirAll(filepath.Join(dir, "msa"), 0o755)
	os.WriteFile(filepath.Join(dir, "msa", "1ENH_A.aln"), []byte(b.String()), 0o644)
	code, stdout, errOut := runCLI(t, "predict", "--method", "plm", "--pdb-dir", "../../data/pdb", "--msa-dir", filepath.Join(dir, "msa"), "--out", filepath.Join(dir, "out"), "1ENH_A")
	if code != 0 || !strings.Contains(errOut, "1ENH_A") || strings.Contains(errOut, "  -  ") {
		t.Errorf("exit %d, stdout %q, stderr %q: want metrics", code, stdout, errOut)
	}
	rr, _ := os.ReadFile(filepath.Join(dir, "out", "1ENH_A.rr"))
	if !strings.Contains(string(rr), "C-beta pairs closer than 8 Angstrom") || !strings.Contains(string(rr), "plmDCA") {
		t.Errorf("RR header:\n%s", rr[:min(len(rr), 600)])
	}
	os.WriteFile(filepath.Join(dir, "msa", "1ENH_A.aln"), []byte("ACDEFGHIK\nACDEFGHIK\n"), 0o644)
	code, _, errOut = runCLI(t, "predict", "--method", "plm", "--force", "--pdb-dir", "../../data/pdb", "--msa-dir", filepath.Join(dir, "msa"), "--out", filepath.Join(dir, "out"), "1ENH_A")
	if code != 1 || !strings.Contains(errOut, "is not the chain's sequence") {
		t.Errorf("mismatched query: exit %d, stderr %q", code, errOut)
	}
}

// plm1CTF returns the alignment 1CTF_A.fasta and the map of a plmDCA fit
// of every row of it (potts.Predict through PlmProbabilities).
func plm1CTF(t *testing.T) (*msa.Alignment, []float32) {
	t.Helper()
	a, err := msa.ReadFile(filepath.Join(msaTestdata, "1CTF_A.fasta"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := potts.Predict(a, potts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a, predict.PlmProbabilities(r.Scores, a.L())
}

// plmDCA is fitted on the rows of at most 90% identity by default
// (--plm-max-identity 0.9): an alignment of 1CTF_A's rows and, after
// them, a near-copy of each (one residue changed of 68) gives the map of
// 1CTF_A's rows alone, and the METHOD line says so; --plm-max-identity 0
// fits every row and gives another map.
func TestPredictPlmRedundancyFilter(t *testing.T) {
	dir := t.TempDir()
	a, want := plm1CTF(t)
	var b strings.Builder
	for k, row := range a.Rows {
		fmt.Fprintf(&b, ">row%d\n%s\n", k, row)
	}
	for k, row := range a.Rows {
		c := []byte(string(row))
		c[k%len(c)] = map[bool]byte{true: 'W', false: 'C'}[c[k%len(c)] != 'W']
		fmt.Fprintf(&b, ">copy%d\n%s\n", k, c)
	}
	in := filepath.Join(dir, "1CTF_A.fasta")
	os.WriteFile(in, []byte(b.String()), 0o644)
	for _, c := range []struct {
		flags []string
		same  bool
		rows  string
	}{
		{nil, true, fmt.Sprintf("%d of %d sequences, filtered for redundancy at 90%% identity", a.N(), 2*a.N())},
		{[]string{"--plm-max-identity", "0"}, false, fmt.Sprintf("%d sequences,", 2*a.N())},
	} {
		out := filepath.Join(dir, fmt.Sprint(len(c.flags)))
		args := append([]string{"predict", "--method", "plm", "--out", out, "--format", "npy,rr"}, c.flags...)
		if code, _, errOut := runCLI(t, append(args, in)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.flags, code, errOut)
		}
		got := readNPY(t, filepath.Join(out, "1CTF_A.npy"))
		same := len(got) == len(want)
		for k := 0; same && k < len(got); k++ {
			same = got[k] == want[k]
		}
		if same != c.same {
			t.Errorf("%v: the map of 1CTF_A's rows alone: %v, want %v", c.flags, same, c.same)
		}
		rr, _ := os.ReadFile(filepath.Join(out, "1CTF_A.rr"))
		if !strings.Contains(string(rr), c.rows) {
			t.Errorf("%v: the RR's METHOD line does not say %q:\n%.400s", c.flags, c.rows, rr)
		}
	}
}
