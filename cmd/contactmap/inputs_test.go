package main

import (
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// predict reads a sequences file record by record: an empty record or one
// with a stop inside fails alone, naming the record; a stray gap in one
// record of sequences of other lengths does not make the file an
// alignment; records of one length without gaps are sequences, with a
// warning that says how to read them as an alignment; a bare sequence,
// in a file or as an argument, is told to be one.
func TestPredictSequenceFiles(t *testing.T) {
	dir := t.TempDir()
	model := proteinModelFile(t, dir)
	out := filepath.Join(dir, "out")
	const p = "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ"
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		name, text string
		code       int
		outputs    []string // written
		stderr     []string // said
	}{
		{"empty record", ">a\n" + p + "\n>empty\n>b\n" + p + "R\n", 1, []string{"a", "b"}, []string{`record 2 ("empty"): empty sequence`, "1 of 3 inputs failed"}},
		{"stop inside", ">a\n" + p + "\n>stop\nMKT*AYI\n", 1, []string{"a"}, []string{`record 2 ("stop"): a stop '*' at position 4`}},
		{"stray gap", ">a\n" + p + "\n>gap\nMKTAYIAKQ-ISF\n", 1, []string{"a"}, []string{"invalid residue '-' at position 10"}},
		{"one length", ">a\n" + p + "\n>b\n" + p[:32] + "W\n", 0, []string{"a", "b"}, []string{"all 2 records have 33 residues and no gaps: read as 2 separate sequences"}},
	}
	for _, c := range cases {
		in := write(strings.ReplaceAll(c.name, " ", "-")+".fa", c.text)
		o := filepath.Join(out, strings.ReplaceAll(c.name, " ", "-"))
		code, _, errOut := runCLI(t, "predict", "--model", model, "--out", o, "--format", "rr", in)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d: %s", c.name, code, c.code, errOut)
		}
		for _, name := range c.outputs {
			if !exists(filepath.Join(o, name+".rr")) {
				t.Errorf("%s: %s not predicted: %s", c.name, name, errOut)
			}
		}
		for _, want := range c.stderr {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s: standard error does not say %q: %s", c.name, want, errOut)
			}
		}
	}
	// IDs renamed to file-safe names: five warnings, then a count.
	var many strings.Builder
	for i := range 8 {
		fmt.Fprintf(&many, ">sp/%d-%d\n%s\n", i, i+40, p[:25+i])
	}
	code, _, errOut := runCLI(t, "predict", "--model", model, "--out", filepath.Join(out, "many"), "--format", "rr", write("many.fa", many.String()))
	if code != 0 || strings.Count(errOut, "is written as") != 5 || !strings.Contains(errOut, "3 more IDs written under other file names") {
		t.Errorf("renamed IDs: exit %d, %s", code, errOut)
	}
	// The same input twice: predicted once, said.
	one := write("once.fa", ">once\n"+p+"\n")
	code, stdoutText, errOut := runCLI(t, "predict", "--model", model, "--out", filepath.Join(out, "twice"), "--format", "rr", one, one)
	if code != 0 || !strings.Contains(errOut, "given 2 times: predicted once") || strings.Contains(errOut, "once_2") || !strings.Contains(errOut, "1 chain predicted") {
		t.Errorf("an input given twice: exit %d, %s %s", code, stdoutText, errOut)
	}
	bare := write("bare.txt", p+"\n")
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", out, bare)
	if code != 1 || !strings.Contains(errOut, "a bare sequence") || strings.Contains(errOut, "no atoms") {
		t.Errorf("bare sequence file: exit %d, %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", out, p)
	if code != 1 || !strings.Contains(errOut, "(33 letters): a sequence, not a file or a PDB ID") || strings.Contains(errOut, p) {
		t.Errorf("sequence as an argument: exit %d, %s", code, errOut)
	}
	// --out naming a file: a usage error, the file kept.
	file := write("afile", "mine")
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", file, write("one.fa", ">a\n"+p+"\n"))
	if b, _ := os.ReadFile(file); code != 2 || !strings.Contains(errOut, "--out "+file+": not a directory") || string(b) != "mine" {
		t.Errorf("--out a file: exit %d, %s", code, errOut)
	}
}

// rna predict reads gzip-compressed input, and dot-bracket files (its own
// .db output included) by extension or by content, scoring them against
// their structures; flags the method does not read are warned of.
func TestRNAPredictInputFormats(t *testing.T) {
	dir := t.TempDir()
	model := rnaModelFile(t, dir)
	gz := filepath.Join(dir, "s.fa.gz")
	f, err := os.Create(gz)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(">zipped\nGGGGAAAACCCCAUGCAUGC\n"))
	zw.Close()
	f.Close()
	db := ">hp\nGGGGAAAACCCC\n((((....))))\n>hp2\nGGGAAAUCCC\n(((....)))\n"
	dbn := filepath.Join(dir, "two.dbn")
	os.WriteFile(dbn, []byte(db), 0o644)
	txt := filepath.Join(dir, "two.txt") // dot-bracket by content
	os.WriteFile(txt, []byte(db), 0o644)
	out := filepath.Join(dir, "out")
	code, _, errOut := runCLI(t, "rna", "predict", "--model", model, "--out", out, gz, dbn)
	if code != 0 || !exists(filepath.Join(out, "zipped.ct")) || !exists(filepath.Join(out, "hp2.ct")) {
		t.Fatalf("gzip and .dbn: exit %d, %s", code, errOut)
	}
	// the structures known: scored (an F1 column with a number)
	if !regexp.MustCompile(`(?m)^hp +12 +\d+ +\d\.\d{3} +\d\.\d{3} +\d\.\d{3} `).MatchString(errOut) {
		t.Errorf("dot-bracket inputs not scored:\n%s", errOut)
	}
	code, _, errOut = runCLI(t, "rna", "predict", "--model", model, "--out", filepath.Join(dir, "out2"), txt, filepath.Join(out, "hp.db"))
	if code != 0 || !exists(filepath.Join(dir, "out2", "hp.ct")) || !exists(filepath.Join(dir, "out2", "hp_2.ct")) {
		t.Errorf("dot-bracket by content and .db: exit %d, %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "rna", "predict", "--method", "stacking", "--model", model, "--decoder", "mea", "--out", filepath.Join(dir, "out3"), txt)
	if code != 0 || !strings.Contains(errOut, "--model is not used by --method stacking") || !strings.Contains(errOut, "--decoder is not used") {
		t.Errorf("unused flags: exit %d, %s", code, errOut)
	}
}
