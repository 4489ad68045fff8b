package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A yeast tRNA-Phe, 76 nt: far below the 16S network's training lengths.
const tRNAPhe = "GCGGAUUUAGCUCAGUUGGGAGAGCGCCAGACUGAAGAUCUGGAGGUCCUGUGUUCGAUCCACAGAAUUCGCACCA"

// A protein given to rna predict is refused as one (it said
// "invalid base Q at position 2", or was folded as RNA when spelt in
// IUPAC letters), the others predicted; the refusal is listed once.
func TestRNAPredictRefusesProtein(t *testing.T) {
	dir := t.TempDir()
	fa := filepath.Join(dir, "in.fa")
	os.WriteFile(fa, []byte(">rna\nGGGGAAAACCCC\n>lysozyme\nKVFGRCELAAAMKRHGLDNYRGYSLGNWVCAAKFESNFNTQATNRNTDGSTDYGILQINSRWWCNDGRTPGSRNLCNIPCSALLSSDITASVNCAKKIVSDGNGMNAWVAWRNRCKGTDVQAWIRGCRL\n>iupac\nMKVRSWDHKKMMRRVVSSDDHHKKAG\n>amb\nGGGRAAYCCC\n"), 0o644)
	code, stdoutText, errOut := runCLI(t, "rna", "predict", "--method", "stacking", "--format", "bpseq", "--out", filepath.Join(dir, "out"), fa)
	for _, want := range []string{
		fa + ": record 2 (lysozyme): this looks like a protein sequence (",
		"% of its letters are not A, C, G, U, T or N): use contactmap predict",
		fa + ": record 3 (iupac): this looks like a protein sequence (92% of its letters",
		"2 of 4 inputs failed",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if code != 1 || strings.Contains(errOut, "invalid base") || strings.Count(errOut, "(lysozyme)") != 1 ||
		!strings.Contains(errOut, "2 molecules predicted") || exists(filepath.Join(dir, "out", "iupac.bpseq")) {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdoutText, errOut)
	}
	// --strict refuses what only warns: the IUPAC codes.
	code, _, errOut = runCLI(t, "rna", "predict", "--method", "stacking", "--strict", "--format", "bpseq", "--out", filepath.Join(dir, "strict"), fa)
	if code != 1 || !strings.Contains(errOut, "amb: 2 IUPAC ambiguity codes (R Y K M S W B D H V) read as N: refused under --strict") || !strings.Contains(errOut, "3 of 4 inputs failed") {
		t.Errorf("--strict: exit %d, %s", code, errOut)
	}
}

// The 16S network on a tRNA says the molecule is outside its
// training lengths and that it predicted no pair (it gave 0 pairs, exit 0
// and no word); --strict refuses the molecule.
func TestRNAPredictOutsideTraining(t *testing.T) {
	dir := t.TempDir()
	fa := filepath.Join(dir, "trna.fa")
	os.WriteFile(fa, []byte(">trna\n"+tRNAPhe+"\n"), 0o644)
	code, _, errOut := runCLI(t, "rna", "predict", "--model", "rna-scnn-16s", "--format", "bpseq", "--out", filepath.Join(dir, "a"), fa)
	for _, want := range []string{
		"warning: trna: length 76 nt is outside the training lengths of rna-scnn-16s (16S rRNA of 612-2,741 nt)",
		"warning: trna: the network predicted no base pair (rna-scnn-16s was trained on 16S rRNA of 612-2,741 nt; try the default rna-scnn-bpp-global-3seeds or --method centroid)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code != 0 || !regexp.MustCompile(`(?m)^trna +76 +0 `).MatchString(errOut) {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	code, _, errOut = runCLI(t, "rna", "predict", "--model", "rna-scnn-16s", "--strict", "--format", "bpseq", "--out", filepath.Join(dir, "b"), fa)
	if code != 1 || !strings.Contains(errOut, "refused under --strict") || exists(filepath.Join(dir, "b", "trna.bpseq")) {
		t.Errorf("--strict: exit %d, %s", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "b", "summary.tsv")); err != nil || !strings.Contains(string(b), "trna\t76\tskipped\t") {
		t.Errorf("summary.tsv %q, %v", b, err)
	}
}

// An --out under a file exits 2 (a usage error naming --out and
// the file) like --out FILE, in every command taking an output directory.
func TestOutUnderAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	fa := filepath.Join(dir, "in.fa")
	os.WriteFile(fa, []byte(">a\nGGGGAAAACCCC\n"), 0o644)
	for _, out := range []string{file, filepath.Join(file, "sub"), filepath.Join(file, "sub", "deeper")} {
		for _, args := range [][]string{
			{"predict", "--out", out, fa},
			{"rna", "predict", "--out", out, fa},
			{"train", "--out", out},
			{"rna", "train", "--out", out},
			{"rec", "train", "--out", out},
			{"features", "--list", fa, "--pdb-dir", dir, "--out", out},
			{"sets", "--out", out},
		} {
			code, _, errOut := runCLI(t, args...)
			if code != 2 || !strings.Contains(errOut, "--out "+out) || !strings.Contains(errOut, file) {
				t.Errorf("%v: exit %d, %s", args, code, errOut)
			}
		}
	}
}

// The predict commands share their flags with one meaning:
// --ids, --shard, --workers (inputs at once; rna predict's goroutines per
// convolution are --threads), --model repeated, --strict; both write
// summary.tsv, a table on standard output (none when nothing was
// predicted) and one failure list.
func TestRNAPredictSharedFlags(t *testing.T) {
	dir := t.TempDir()
	model := rnaModelFile(t, dir)
	fa := filepath.Join(dir, "in.fa")
	os.WriteFile(fa, []byte(">a\nGGGGAAAACCCCAUGC\n>b\nGGGAAAUCCCUUAGC\n>c\nGCGCAAAAGCGCAA\n>d\nACGUACGUACGU\n"), 0o644)
	ids := filepath.Join(dir, "ids.txt")
	os.WriteFile(ids, []byte("# inputs\n"+fa+"\n"), 0o644)
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
		}
		return string(b)
	}
	// --workers 2 (molecules at once) writes what --workers 1 writes.
	// The table is on standard error, with the warnings and failures.
	code, _, one := runCLI(t, "rna", "predict", "--model", model, "--format", "bpseq,db", "--workers", "1", "--threads", "1", "--out", filepath.Join(dir, "w1"), "--ids", ids)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, one)
	}
	code, _, two := runCLI(t, "rna", "predict", "--model", model, "--format", "bpseq,db", "--workers", "2", "--out", filepath.Join(dir, "w2"), "--ids", ids)
	if code != 0 || strings.ReplaceAll(two, "w2", "w1") != one {
		t.Fatalf("--workers 2: exit %d:\n%s\nwant\n%s", code, two, one)
	}
	for _, m := range []string{"a", "b", "c", "d"} {
		if read(filepath.Join(dir, "w1", m+".bpseq")) != read(filepath.Join(dir, "w2", m+".bpseq")) {
			t.Errorf("%s: --workers 2 differs", m)
		}
	}
	if !regexp.MustCompile(`(?m)^molecule +L +pairs +PPV +sensitivity +F1 +outputs\n`).MatchString(one) || strings.Contains(one, "|") {
		t.Errorf("not predict's table:\n%s", one)
	}
	sum := read(filepath.Join(dir, "w1", "summary.tsv"))
	if !strings.HasPrefix(sum, "name\tlength\tstatus\toutputs\tmethod\tenergy\terror\n") || !strings.Contains(sum, "a\t16\tok\ta.bpseq,a.db\tnetwork "+model+"\t\t\n") {
		t.Errorf("summary.tsv:\n%s", sum)
	}
	// --shard 1/2: the second and fourth molecules.
	code, _, errOut := runCLI(t, "rna", "predict", "--model", model, "--format", "bpseq", "--shard", "1/2", "--out", filepath.Join(dir, "s"), fa)
	if code != 0 || exists(filepath.Join(dir, "s", "a.bpseq")) || !exists(filepath.Join(dir, "s", "b.bpseq")) || !exists(filepath.Join(dir, "s", "d.bpseq")) ||
		!exists(filepath.Join(dir, "s", "summary.shard-1-of-2.tsv")) {
		t.Errorf("--shard 1/2: exit %d, %s", code, errOut)
	}
	// --model twice: an ensemble of the two, the mean of their
	// probabilities.
	code, _, errOut = runCLI(t, "rna", "predict", "--model", model, "--model", model, "--format", "bpseq", "--out", filepath.Join(dir, "ens"), fa)
	if code != 0 || !strings.Contains(errOut, "an ensemble of 2 networks") || read(filepath.Join(dir, "ens", "a.bpseq")) != read(filepath.Join(dir, "w1", "a.bpseq")) {
		t.Errorf("--model twice: exit %d, %s", code, errOut)
	}
	// Energies in the summary of a fold.
	code, _, errOut = runCLI(t, "rna", "predict", "--method", "mfe", "--format", "bpseq", "--out", filepath.Join(dir, "mfe"), fa)
	if code != 0 || !regexp.MustCompile(`(?m)^a\t16\tok\ta.bpseq\tmfe\t-?\d+\.\d\d\t$`).MatchString(read(filepath.Join(dir, "mfe", "summary.tsv"))) {
		t.Errorf("mfe: exit %d, %s\n%s", code, errOut, read(filepath.Join(dir, "mfe", "summary.tsv")))
	}
	// Nothing predicted: no table; each failure listed once.
	code, stdoutText, errOut := runCLI(t, "rna", "predict", "--model", model, "--format", "bpseq,db", "--out", filepath.Join(dir, "w1"), fa)
	if code != 1 || regexp.MustCompile(`(?m)^molecule +L`).MatchString(errOut) || stdoutText != "" || strings.Count(errOut, "a.bpseq exists") != 1 || !strings.Contains(errOut, "failed:\n  ") || !strings.Contains(errOut, "4 of 4 inputs failed") {
		t.Errorf("nothing predicted: exit %d\nstdout %s\nstderr %s", code, stdoutText, errOut)
	}
	// The summary keeps the rows of the run that wrote the outputs.
	if sum := read(filepath.Join(dir, "w1", "summary.tsv")); strings.Count(sum, "\tok\t") != 4 || strings.Contains(sum, "\tskipped\t") {
		t.Errorf("summary.tsv:\n%s", sum)
	}
	// The same shared flags in both commands' -h.
	_, ph, _ := runCLI(t, "predict", "-h")
	_, rh, _ := runCLI(t, "rna", "predict", "-h")
	for _, f := range []string{"out", "force", "workers", "ids", "shard", "strict", "format", "model"} {
		re := regexp.MustCompile(`(?m)^  -` + f + `\b`)
		if !re.MatchString(ph) || !re.MatchString(rh) {
			t.Errorf("-%s is not in both commands' -h", f)
		}
	}
	if !strings.Contains(ph, "chains predicted in parallel") || !strings.Contains(rh, "molecules predicted in parallel") || !strings.Contains(rh, "-threads") {
		t.Error("--workers does not mean inputs at once in both")
	}
}

// predict writes summary.tsv too, and prints no table when no chain was
// predicted.
func TestPredictSummary(t *testing.T) {
	dir := t.TempDir()
	model := proteinModelFile(t, dir)
	fa := filepath.Join(dir, "p.fa")
	os.WriteFile(fa, []byte(">p1\nMKVLAAGIVGLLLAGCSSHKEEAPKTEVKAEQPAAEVKPA\n"), 0o644)
	out := filepath.Join(dir, "out")
	code, stdoutText, errOut := runCLI(t, "predict", "--model", model, "--format", "rr", "--out", out, fa, "9ZZZ_A")
	if code != 1 || !strings.Contains(errOut, "chain  L") || !strings.Contains(errOut, "1 of 2 inputs failed") {
		t.Fatalf("exit %d\n%s\n%s", code, stdoutText, errOut)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.tsv"))
	if err != nil || !strings.HasPrefix(string(b), "name\tlength\tstatus\toutputs\tmethod\terror\n") ||
		!strings.Contains(string(b), "p1\t40\tok\tp1.rr\tnetwork "+model+"\t\n") || !strings.Contains(string(b), "9ZZZ_A\t-\tfailed\t\t\tbad input: 9ZZZ_A") {
		t.Errorf("summary.tsv %q, %v", b, err)
	}
	code, stdoutText, errOut = runCLI(t, "predict", "--model", model, "--format", "rr", "--out", out, fa)
	if code != 1 || strings.Contains(stdoutText, "chain  L") || !strings.Contains(errOut, "p1.rr exists") {
		t.Errorf("nothing predicted: exit %d\n%s\n%s", code, stdoutText, errOut)
	}
	// The earlier summary is merged, not lost: p1's row of the run that
	// wrote its outputs stays, and so does the failed input's.
	if b, _ := os.ReadFile(filepath.Join(out, "summary.tsv")); !strings.Contains(string(b), "p1\t40\tok\tp1.rr\t") ||
		!strings.Contains(string(b), "9ZZZ_A\t-\tfailed") || strings.Count(string(b), "\n") != 3 {
		t.Errorf("summary.tsv after a run that only skipped: %q", b)
	}
}
