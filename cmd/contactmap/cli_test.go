package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/rec"
	"github.com/contactmap/contactmap/rna/ssnet"
	"github.com/contactmap/contactmap/scnn"
)

// runCLI runs the command line and returns its exit status, standard
// output and standard error.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := run(args, &out, &errOut)
	stdout, stderr = os.Stdout, os.Stderr
	return code, out.String(), errOut.String()
}

// allCommands lists every command and subcommand ("rna predict").
func allCommands() []string {
	var all []string
	for c := range commands {
		if c != "rna" && c != "rec" { // groups: their commands follow
			all = append(all, c)
		}
	}
	for c := range rnaCommands {
		all = append(all, "rna "+c)
	}
	for c := range recCommands {
		all = append(all, "rec "+c)
	}
	sort.Strings(all)
	return all
}

// Numeric flags out of range are usage errors (exit 2) naming the flag,
// before any work: `rec recommend -n -1` panicked, `rec train --epochs -1`
// saved an untrained model, --workers -3 was accepted everywhere.
func TestFlagRanges(t *testing.T) {
	for _, args := range [][]string{
		{"rec", "recommend", "--model", "M", "-n", "-1", "1"},
		{"rec", "recommend", "--model", "M", "-n", "0", "1"},
		{"rec", "train", "--epochs", "-1"},
		{"rec", "train", "--batch", "-1"},
		{"rec", "train", "--lr", "-1"},
		{"rec", "train", "--lr", "NaN"},
		{"rec", "train", "--l2", "-1"},
		{"rec", "train", "--workers", "-3"},
		{"rec", "compare", "--resamples", "0"},
		{"rna", "train", "--workers", "-3"},
		{"rna", "train", "--steps", "-5"},
		{"rna", "eval", "--workers", "-3"},
		{"rna", "compare", "--resamples", "-1"},
		{"rna", "predict", "--workers", "-3", "x.fa"},
		{"predict", "--workers", "-3", "1ENH_A"},
		{"predict", "--workers", "0", "1ENH_A"},
		{"predict", "--rr-min-sep", "-1", "1ENH_A"},
		{"train", "--workers", "-3"},
		{"train", "--epochs", "0"},
		{"train", "--lr", "-0.1"},
		{"train", "--budget", "-1m"},
		{"train", "--teacher", "ensemble", "--label-weight", "2"},
		{"train", "--teacher", "ensemble", "--label-weight", "-0.5"},
		{"features", "--workers", "-3", "--list", "x", "--pdb-dir", "y", "--out", "z"},
		{"features", "--cutoff", "-8", "--list", "x", "--pdb-dir", "y", "--out", "z"},
		{"features", "--min-len", "50", "--max-len", "10", "--list", "x", "--pdb-dir", "y", "--out", "z"},
		{"sets", "--workers", "-3"},
		{"sets", "--max-identity", "2"},
		{"compare", "--resamples", "0"},
	} {
		code, _, errOut := runCLI(t, args...)
		flagName := ""
		for i, a := range args[:len(args)-1] { // the flag before the bad value
			if v := args[i+1]; strings.HasPrefix(a, "-") && (v == "NaN" || strings.HasPrefix(v, "-") && len(v) > 1 && v[1] >= '0' && v[1] <= '9' || v == "0" || v == "2" || v == "10") {
				flagName = strings.TrimLeft(a, "-")
			}
		}
		if code != 2 || !strings.Contains(errOut, "--"+flagName) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --%s", args, code, errOut, flagName)
		}
	}
}

// The search stage's flags of features without --db are usage errors
// that name the flag; so is a bad tool with it.
func TestFeaturesSearchFlagsNeedDB(t *testing.T) {
	base := []string{"features", "--list", "x", "--pdb-dir", "y", "--out", t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--search", "mmseqs"}, "--search is for the search stage: give --db too"},
		{[]string{"--search-threads", "2"}, "--search-threads is for the search stage: give --db too"},
		{[]string{"--db-index", "d"}, "--db-index is for the search stage"},
		{[]string{"--db", "x.fasta", "--search", "blast"}, "--search: unknown search tool"},
		{[]string{"--search-threads", "-1", "--db", "x.fasta"}, "--search-threads"},
	} {
		code, _, errOut := runCLI(t, append(base, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// --label-weight weighs the labels against a teacher: alone it is a
// usage error.
func TestLabelWeightNeedsTeacher(t *testing.T) {
	code, _, errOut := runCLI(t, "train", "--label-weight", "0.5")
	if code != 2 || !strings.Contains(errOut, "--teacher") {
		t.Errorf("exit %d, stderr %q; want 2 naming --teacher", code, errOut)
	}
}

// Every command's -h says what it does, its inputs and one example; the
// groups' too.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range allCommands() {
		args := append(strings.Fields(c), "-h")
		code, out, _ := runCLI(t, args...)
		if code != 0 || strings.Contains(out, "Usage of") || !strings.HasPrefix(out, "usage: contactmap "+c) {
			t.Errorf("%s -h: exit %d, output %q", c, code, out)
			continue
		}
		about, _, ok := strings.Cut(out[strings.Index(out, "\n\n")+2:], "\n\nExample:\n  contactmap "+c)
		if !ok || len(strings.TrimSpace(about)) < 80 {
			t.Errorf("%s -h: no description and example: %q", c, out)
		}
	}
	for _, g := range []string{"rna", "rec"} {
		if code, out, _ := runCLI(t, g, "-h"); code != 0 || !strings.Contains(out, "Example") {
			t.Errorf("%s -h: exit %d, %q", g, code, out)
		}
	}
}

// Every command and group takes --version, as `contactmap version`.
func TestVersionEverywhere(t *testing.T) {
	want := version() + "\n"
	for _, c := range append(allCommands(), "rna", "rec") {
		args := append(strings.Fields(c), "--version")
		if code, out, errOut := runCLI(t, args...); code != 0 || out != want {
			t.Errorf("%s --version: exit %d, %q %q; want %q", c, code, out, errOut, want)
		}
	}
}

// A bad --format is a usage error (2) in predict as in rna predict.
func TestFormatIsUsageError(t *testing.T) {
	for _, args := range [][]string{{"predict", "--format", "pdf", "1ENH_A"}, {"rna", "predict", "--format", "pdf", "x.fa"}} {
		if code, _, errOut := runCLI(t, args...); code != 2 || !strings.Contains(errOut, "pdf") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// recData writes a tiny ratings file (u.data) in dir and returns its data
// set.
func recData(t *testing.T, dir string) *rec.Dataset {
	t.Helper()
	var b strings.Builder
	ts := 1
	for u := 1; u <= 3; u++ {
		for k := 0; k < 12; k++ {
			fmt.Fprintf(&b, "%d\t%d\t4\t%d\n", u, 1+(u*3+k)%10, ts)
			ts++
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "u.data"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ratings, err := rec.ReadRatingsFile(filepath.Join(dir, "u.data"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := rec.NewDataset(ratings)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// recModel saves an untrained small model of d's users and items.
func recModel(t *testing.T, d *rec.Dataset, path string) {
	t.Helper()
	m, err := rec.NewModel(rec.Config{Kind: rec.SCosRec, Users: d.Users, Items: d.Items, L: 5, D: 4, Blocks: []int{6, 5}, FC: 7, Dropout: 0.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path, rec.Record{Seed: 1, UserRaw: d.UserRaw, ItemRaw: d.ItemRaw}); err != nil {
		t.Fatal(err)
	}
}

// rec recommend tells a user ID that is not a number from one not in the
// data; rec train without the data says how to give it and where it comes
// from.
func TestRecMessages(t *testing.T) {
	dir := t.TempDir()
	d := recData(t, dir)
	model := filepath.Join(dir, "m.scnn")
	recModel(t, d, model)
	code, out, errOut := runCLI(t, "rec", "recommend", "--model", model, "--data", dir, "-n", "3", "abc", "99", "1")
	if code != 1 || !strings.Contains(errOut, `user "abc": not a number`) || !strings.Contains(errOut, "user 99: not in") || !strings.Contains(out, "user 1 ") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "rec", "train", "--data", filepath.Join(dir, "no-such-dir"))
	if code != 1 || !strings.Contains(errOut, "--data") || !strings.Contains(errOut, "grouplens.org") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// rec compare names a run whose checkpoint or model cannot be read and
// fails, before evaluating; --skip-bad compares the others.
func TestRecCompareBadRun(t *testing.T) {
	dir := t.TempDir()
	d := recData(t, dir)
	runs := filepath.Join(dir, "runs")
	for _, seed := range []uint64{1, 2} {
		for _, k := range []scnn.Kind{rec.CosRec, rec.SCosRec} {
			cfg := rec.Config{Kind: k, Users: d.Users, Items: d.Items, L: 5, D: 4, Blocks: []int{6, 5}, FC: 7, Dropout: 0.5}
			_, err := rec.Train(t.Context(), rec.TrainOptions{Data: d, Out: filepath.Join(runs, fmt.Sprintf("%s-seed%d", rec.KindName(k), seed)), Kind: k, Seed: seed,
				Epochs: 1, Batch: 8, Workers: 1, Config: &cfg})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	bad := filepath.Join(runs, "broken")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, rec.CheckpointFile), []byte("not a checkpoint"), 0o644)
	badModel := filepath.Join(runs, "badmodel")
	os.MkdirAll(badModel, 0o755)
	b, _ := os.ReadFile(filepath.Join(runs, "cosrec-seed1", rec.CheckpointFile))
	os.WriteFile(filepath.Join(badModel, rec.CheckpointFile), b, 0o644)
	os.WriteFile(filepath.Join(badModel, rec.ModelFile), []byte("truncated"), 0o644)
	out := filepath.Join(dir, "report")
	code, _, errOut := runCLI(t, "rec", "compare", "--runs", runs, "--data", dir, "--resamples", "10", "--out", out)
	if code != 1 || !strings.Contains(errOut, "run broken cannot be read") || !strings.Contains(errOut, "run badmodel cannot be read") || !strings.Contains(errOut, "--skip-bad") {
		t.Errorf("exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(out + ".md"); err == nil {
		t.Error("a report was written with runs missing")
	}
	code, _, errOut = runCLI(t, "rec", "compare", "--runs", runs, "--data", dir, "--resamples", "10", "--out", out, "--skip-bad")
	if code != 0 || !strings.Contains(errOut, "broken") {
		t.Errorf("--skip-bad: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(out + ".md"); err != nil {
		t.Error(err)
	}
}

// rna compare names a run whose checkpoint cannot be read and fails.
func TestRNACompareBadRun(t *testing.T) {
	runs := t.TempDir()
	bad := filepath.Join(runs, "scnn-seed1")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "checkpoint.scnn"), []byte("not a checkpoint"), 0o644)
	os.MkdirAll(filepath.Join(runs, "notes"), 0o755) // not a run: no checkpoint, no model
	wd, _ := os.Getwd()
	os.Chdir("../..") // the bundled data
	defer os.Chdir(wd)
	code, _, errOut := runCLI(t, "rna", "compare", "--runs", runs, "--resamples", "10")
	if code != 1 || !strings.Contains(errOut, "run scnn-seed1 cannot be read") || strings.Contains(errOut, "notes") {
		t.Errorf("exit %d, %s", code, errOut)
	}
}

// A model of another kind says what the file holds and which command
// takes it.
func TestWrongModelKind(t *testing.T) {
	dir := t.TempDir()
	rnaModel := filepath.Join(dir, "rna.scnn")
	m, err := ssnet.NewModel(ssnet.SCNN, ssnet.Default, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(rnaModel); err != nil {
		t.Fatal(err)
	}
	protein := filepath.Join(dir, "protein.scnn")
	a := model.DefaultArch(model.SCNN)
	a.Mode = features.SeqMode
	pm, _ := model.NewModel(a, 1)
	if err := pm.Save(protein); err != nil {
		t.Fatal(err)
	}
	fasta := filepath.Join(dir, "q.fa")
	os.WriteFile(fasta, []byte(">q\nGGGAAACCC\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--model", rnaModel, "--out", dir, fasta}, rnaModel + " holds an RNA secondary-structure model; use `contactmap rna predict`"},
		{[]string{"rna", "predict", "--model", protein, "--out", dir, fasta}, protein + " holds a protein contact model; use `contactmap predict`"},
		{[]string{"rec", "recommend", "--model", protein, "1"}, protein + " holds a protein contact model; use `contactmap predict`"},
		// the shipped models by name, each given to the other kind's command
		{[]string{"predict", "--model", "rna-scnn", "--out", dir, fasta}, "shipped model rna-scnn holds an RNA secondary-structure model; use `contactmap rna predict`"},
		{[]string{"rna", "predict", "--model", "distilled", "--out", dir, fasta}, "shipped model distilled holds a protein contact model; use `contactmap predict`"},
		{[]string{"rna", "eval", "--set", "../../data/rna/test/testdata.txt", "--train", "../../data/rna/16s-finalvalid.txt", "--model", protein}, protein + " holds a protein contact model; use `contactmap eval`"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// withStdin runs f with standard input reading content.
func withStdin(t *testing.T, content string, f func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.WriteString(content); w.Close() }()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old; r.Close() }()
	f()
}

// rnaModelFile saves an untrained default SCNN in dir.
func rnaModelFile(t *testing.T, dir string) string {
	t.Helper()
	m, err := ssnet.NewModel(ssnet.SCNN, ssnet.Default, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rna.scnn")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// rna predict: an empty file or standard input is an error naming it (it
// said "0 molecules" and exit 0); the other inputs are predicted and the
// failures listed at the end; existing outputs are not overwritten without
// --force; IUPAC codes read as N are counted in a warning.
func TestRNAPredictInputsAndOutputs(t *testing.T) {
	dir := t.TempDir()
	model := rnaModelFile(t, dir)
	empty := filepath.Join(dir, "empty.fa")
	os.WriteFile(empty, []byte("\n  \n"), 0o644)
	good := filepath.Join(dir, "good.fa")
	os.WriteFile(good, []byte(">amb some words\nGGGRAAYCCCkm\n>plain\nGGGAAACCC\n"), 0o644)
	out := filepath.Join(dir, "out")
	code, stdoutText, errOut := runCLI(t, "rna", "predict", "--model", model, "--out", out, "--format", "bpseq,db", empty, good)
	if code != 1 || !strings.Contains(errOut, empty+": empty input") || !strings.Contains(errOut, "amb: 4 IUPAC ambiguity codes") ||
		strings.Contains(errOut, "plain: 0") || !strings.Contains(errOut, "2 molecules predicted") || !strings.Contains(errOut, "failed:\n  "+empty) || strings.Count(errOut, empty+": empty input") != 1 {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdoutText, errOut)
	}
	withStdin(t, "", func() {
		code, _, errOut = runCLI(t, "rna", "predict", "--model", model, "--out", filepath.Join(dir, "o2"), "-")
	})
	if code != 1 || !strings.Contains(errOut, "standard input: empty input") {
		t.Errorf("empty stdin: exit %d, %s", code, errOut)
	}
	// Again into the same --out: refused per molecule, naming the file.
	before, _ := os.ReadFile(filepath.Join(out, "plain.db"))
	os.WriteFile(filepath.Join(out, "plain.db"), []byte("mine"), 0o644)
	code, _, errOut = runCLI(t, "rna", "predict", "--model", model, "--out", out, "--format", "bpseq,db", good)
	if code != 1 || !strings.Contains(errOut, filepath.Join(out, "amb.bpseq")+" exists") || !strings.Contains(errOut, "--force") {
		t.Errorf("existing outputs: exit %d, %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "plain.db")); string(b) != "mine" {
		t.Error("an existing output was overwritten")
	}
	code, _, errOut = runCLI(t, "rna", "predict", "--model", model, "--out", out, "--format", "bpseq,db", "--force", good)
	if b, _ := os.ReadFile(filepath.Join(out, "plain.db")); code != 0 || string(b) != string(before) {
		t.Errorf("--force: exit %d, %s; plain.db %q", code, errOut, b)
	}
}

// proteinModelFile saves an untrained sequence-only SCNN in dir.
func proteinModelFile(t *testing.T, dir string) string {
	t.Helper()
	a := model.DefaultArch(model.SCNN)
	a.Mode = features.SeqMode
	m, err := model.NewModel(a, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "protein.scnn")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// predict: FASTA on standard input; an empty file or standard input is an
// error naming it (it said "no atoms"), the other inputs still predicted;
// existing outputs refused before any work unless --force; a nucleotide
// record warned of, refused under --strict.
func TestPredictInputsAndOutputs(t *testing.T) {
	dir := t.TempDir()
	model := proteinModelFile(t, dir)
	out := filepath.Join(dir, "out")
	const protein = "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ"
	var code int
	var stdoutText, errOut string
	withStdin(t, ">q1 from stdin\n"+protein+"\n", func() {
		code, stdoutText, errOut = runCLI(t, "predict", "--model", model, "--out", out, "--format", "rr", "-")
	})
	if code != 0 || !exists(filepath.Join(out, "q1.rr")) {
		t.Errorf("FASTA on stdin: exit %d, %s %s", code, stdoutText, errOut)
	}
	withStdin(t, " \n", func() {
		code, _, errOut = runCLI(t, "predict", "--model", model, "--out", out, "-")
	})
	if code != 1 || !strings.Contains(errOut, "standard input: empty input") {
		t.Errorf("empty stdin: exit %d, %s", code, errOut)
	}
	empty := filepath.Join(dir, "empty.pdb")
	os.WriteFile(empty, nil, 0o644)
	good := filepath.Join(dir, "good.fa")
	os.WriteFile(good, []byte(">q2\n"+protein+"\n"), 0o644)
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", out, "--format", "rr", empty, good)
	if code != 1 || !strings.Contains(errOut, empty+": empty input") || strings.Contains(errOut, "no atoms") || !exists(filepath.Join(out, "q2.rr")) {
		t.Errorf("empty file: exit %d, %s", code, errOut)
	}
	// Existing outputs: refused before any work, naming the file.
	os.WriteFile(filepath.Join(out, "q2.rr"), []byte("mine"), 0o644)
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", out, "--format", "rr", good)
	if b, _ := os.ReadFile(filepath.Join(out, "q2.rr")); code != 1 || string(b) != "mine" || !strings.Contains(errOut, filepath.Join(out, "q2.rr")+" exists") {
		t.Errorf("existing output: exit %d, %s, file %q", code, errOut, b)
	}
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", out, "--format", "rr", "--force", good)
	if b, _ := os.ReadFile(filepath.Join(out, "q2.rr")); code != 0 || string(b) == "mine" {
		t.Errorf("--force: exit %d, %s", code, errOut)
	}
	dna := filepath.Join(dir, "dna.fa")
	os.WriteFile(dna, []byte(">gene\nATGGCGTACGTTAGCNNACGTAGCTAGCTAGGCTA\n"), 0o644)
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", filepath.Join(dir, "o2"), "--format", "rr", dna)
	if code != 0 || !strings.Contains(errOut, "warning: gene: 100% of its letters are A, C, G, T, U or N") {
		t.Errorf("nucleotide record: exit %d, %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "predict", "--model", model, "--out", filepath.Join(dir, "o3"), "--format", "rr", "--strict", dna)
	if code != 1 || !strings.Contains(errOut, "refused under --strict") || exists(filepath.Join(dir, "o3", "gene.rr")) {
		t.Errorf("--strict: exit %d, %s", code, errOut)
	}
}
