package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/compare"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
	"github.com/contactmap/contactmap/pipeline/predict"
	"github.com/contactmap/contactmap/pipeline/train"
	"github.com/contactmap/contactmap/scnn/loop"
)

func TestFeaturesCommand(t *testing.T) {
	out := t.TempDir()
	err := runFeatures(context.Background(), []string{"--list", "../../pipeline/features/testdata/small.list",
		"--pdb-dir", "../../data/pdb", "--out", out, "--workers", "2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"manifest.tsv", "skipped.tsv", "1ENH_A.feat.zst"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if err := runFeatures(context.Background(), []string{"--list", "x"}); err == nil {
		t.Error("missing flags accepted")
	}
}

// Inputs from standard input ("-"), as in `grep ... | contactmap predict -`;
// a failed input makes the command fail after the others complete.
func TestPredictCommandStdin(t *testing.T) {
	dir := t.TempDir()
	modelPath := filepath.Join(dir, "m.scnn")
	a := model.DefaultArch(model.SCNN)
	a.Mode = features.SeqMode
	m, _ := model.NewModel(a, 1)
	if err := m.Save(modelPath); err != nil {
		t.Fatal(err)
	}
	r, w, _ := os.Pipe()
	w.WriteString("# a comment\n1ENH_A\n\n9ZZZ_A\n")
	w.Close()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	out := filepath.Join(dir, "out")
	err := runPredict(context.Background(), []string{"--model", modelPath, "--pdb-dir", "../../data/pdb", "--out", out, "-"})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 inputs failed") {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "1ENH_A.rr")); err != nil {
		t.Error(err)
	}
}

// Help exits 0 for the program and every command; unknown commands and
// flags exit 2; version prints the revision.
func TestExitStatus(t *testing.T) {
	var out, errOut strings.Builder
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"predict", "-h"}, {"train", "--help"}, {"eval", "-h"}, {"features", "-h"}, {"predict", "1ENH_A", "-h"}} {
		if code := run(args, &out, &errOut); code != 0 {
			t.Errorf("%v: exit %d, want 0", args, code)
		}
	}
	for _, args := range [][]string{{}, {"bogus"}, {"predict", "--bogus"}, {"predict"}, {"train", "extra"}, {"predict", "--shard", "3/2", "x"}} {
		if code := run(args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	out.Reset()
	if code := run([]string{"--version"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "contactmap ") {
		t.Errorf("--version: %d %q", code, out.String())
	}
}

func TestParseFlagsAnywhere(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	o := fs.String("out", "", "")
	pos, err := parseFlags(fs, []string{"1ENH_A", "--out", "dir", "-", "2O9S_A", "--", "--out"})
	if err != nil || *o != "dir" || strings.Join(pos, " ") != "1ENH_A - 2O9S_A --out" {
		t.Errorf("pos %q out %q err %v", pos, *o, err)
	}
}

func TestErrorLine(t *testing.T) {
	if got := errorLine("predict", errors.New("predict: model: x")); got != "contactmap predict: model: x" {
		t.Errorf("%q", got)
	}
	if got := errorLine("eval", errors.New(`unknown split "bogus" (train, validation, test or all)`)); got != `contactmap eval: unknown split "bogus" (train, validation, test or all)` {
		t.Errorf("%q", got)
	}
}

// From a directory outside the repository, a sequence predicts with the
// model built into the binary; a PDB ID says it needs a mirror.
func TestPredictOutsideRepository(t *testing.T) {
	dir := t.TempDir()
	fasta := filepath.Join(dir, "q.txt")
	os.WriteFile(fasta, []byte(">q1\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n"), 0o644)
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	err := runPredict(context.Background(), []string{fasta, "--format", "rr, npy", "--out", "p"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"p/q1.rr", "p/q1.npy"} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	err = runPredict(context.Background(), []string{"1ENH_A", "--out", "p"})
	if err == nil {
		t.Fatal("PDB ID without a mirror succeeded")
	}
}

// compare --side: two named sets of model files, paired by seed, or each
// scored as one seed ensemble.
func TestCompareSides(t *testing.T) {
	dir := t.TempDir()
	feat := filepath.Join(dir, "features")
	if err := runFeatures(context.Background(), []string{"--list", "../../pipeline/features/testdata/small.list",
		"--pdb-dir", "../../data/pdb", "--out", feat, "--workers", "2"}); err != nil {
		t.Fatal(err)
	}
	params := map[model.Kind]int{}
	for _, kind := range []model.Kind{model.CNN, model.SCNN} {
		for seed := uint64(1); seed <= 2; seed++ {
			a := model.DefaultArch(kind)
			a.Mode, a.Seed = features.SeqMode, seed
			m, err := model.NewModel(a, seed)
			if err != nil {
				t.Fatal(err)
			}
			params[kind] += m.Trainable()
			p := filepath.Join(dir, fmt.Sprintf("%s-seed%d", kind, seed), "model.scnn")
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := m.Save(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	sides := []string{"--side", "cnn=" + filepath.Join(dir, "cnn-seed*", "model.scnn"), "--side", "scnn=" + filepath.Join(dir, "scnn-seed*", "model.scnn")}
	for _, ens := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprint("report-", ens))
		args := append([]string{"--features", feat, "--split", "all", "--out", out, "--resamples", "100", fmt.Sprintf("--ensemble=%v", ens)}, sides...)
		if err := runCompare(context.Background(), args); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var res compare.Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		wantSeeds, wantParams := []int{1, 2}, params[model.CNN]/2
		if ens {
			wantSeeds, wantParams = []int{0}, params[model.CNN]
		}
		if !slices.Equal(res.Seeds, wantSeeds) || res.ParamsA != wantParams || res.KindA != "cnn" || res.KindB != "scnn" || len(res.Rows) == 0 {
			t.Errorf("ensemble %v: seeds %v, params %d (want %v, %d), kinds %s %s", ens, res.Seeds, res.ParamsA, wantSeeds, wantParams, res.KindA, res.KindB)
		}
	}
	if err := runCompare(context.Background(), []string{"--features", feat, "--out", filepath.Join(dir, "x"), sides[0], sides[1]}); err == nil {
		t.Error("one --side accepted")
	}
}

// eval --model ensemble scores the shipped ensemble as one predictor, the
// same as --ensemble over the ten run files it was built from.
func TestEvalShippedEnsemble(t *testing.T) {
	dir := t.TempDir()
	feat := filepath.Join(dir, "features")
	if err := runFeatures(context.Background(), []string{"--list", "../../pipeline/features/testdata/small.list",
		"--pdb-dir", "../../data/pdb", "--out", feat, "--workers", "2"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	err := runEval(context.Background(), []string{"--features", feat, "--split", "all", "--baselines=false", "--out", out,
		"--model", "ensemble", "--ensemble", "../../experiments/compare-ext/*-seed*/model.scnn"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var rep train.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].Name != "ensemble (shipped; mean of 10 models)" || rep.Rows[0].Kind != "mixed" {
		t.Fatalf("rows %+v", rep.Rows)
	}
	a, f := rep.Rows[0], rep.Rows[1]
	if a.Params != f.Params || !reflect.DeepEqual(a.Summary, f.Summary) {
		t.Errorf("shipped ensemble %+v\nrun files %+v", a, f)
	}
}

// Library errors name no flag; the command line adds the flags that
// address them, keeps the error's identity, and leaves other errors as
// they are.
func TestFlagHint(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&predict.ModeError{Input: predict.InputSS, Missing: true}, "give --ss"},
		{&predict.ModeError{Input: predict.InputSS}, "drop --ss"},
		{&predict.ModeError{Input: predict.InputMSA, Missing: true}, "give --msa-dir"},
		{&predict.ModeError{Input: predict.InputMSA}, "drop --msa-dir"},
		{fmt.Errorf("x: %w", predict.ErrNoMirror), "give --pdb-dir"},
		{predict.ErrNoMSANetwork, "use --model msa or --method plm"},
		{predict.ErrNeedAlignment, "--msa-dir"},
		{features.ErrNoChainInRange, "--min-len, --max-len"},
		{fmt.Errorf("train: %w", loop.ErrRunExists), "--resume or replace it with --force"},
		{loop.ErrNoCheckpoint, "start without --resume"},
	} {
		got := flagHint(c.err)
		if !strings.Contains(got.Error(), c.want) || !errors.Is(got, c.err) && !errors.As(got, new(*predict.ModeError)) {
			t.Errorf("%v: %v, want a hint %q keeping the error", c.err, got, c.want)
		}
		if strings.Contains(c.err.Error(), "--") {
			t.Errorf("library error %q names a flag", c.err)
		}
	}
	other := errors.New("disk full")
	if flagHint(other) != other || flagHint(nil) != nil {
		t.Error("an unknown error was changed")
	}
}
