package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/predict"
)

// predict --rr-max: the RR file keeps the 5L most probable pairs by
// default, N with --rr-max N, kL with --rr-max kL and every pair with
// --rr-max 0; the .npy is the full map whatever it says; a bad value is a
// usage error (exit 2) naming the flag.
func TestPredictRRMaxFlag(t *testing.T) {
	dir := t.TempDir()
	model := proteinModelFile(t, dir)
	const protein = "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRV" // L = 40: 595 pairs with |i-j| >= 6
	fasta := filepath.Join(dir, "q.fa")
	os.WriteFile(fasta, []byte(">q\n"+protein+"\n"), 0o644)
	l, n := len(protein), predict.CountPairs(len(protein), predict.DefaultRRMinSep)
	var npy []byte
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 5 * l},
		{[]string{"--rr-max", "5L"}, 5 * l},
		{[]string{"--rr-max", "2l"}, 2 * l},
		{[]string{"--rr-max", "100"}, 100},
		{[]string{"--rr-max", "0"}, n},
		{[]string{"--rr-max", "100000"}, n},
		{[]string{"--rr-max=0", "--rr-min-sep", "1"}, l * (l - 1) / 2},
	} {
		out := filepath.Join(dir, strings.Join(append([]string{"out"}, tc.args...), "_"))
		args := append([]string{"predict", "--model", model, "--out", out, "--format", "rr,npy"}, tc.args...)
		code, _, errOut := runCLI(t, append(args, fasta)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		f, err := os.Open(filepath.Join(out, "q.rr"))
		if err != nil {
			t.Fatal(err)
		}
		_, pairs, err := predict.ReadRR(f)
		f.Close()
		if err != nil || len(pairs) != tc.want {
			t.Errorf("%v: %d pairs, want %d (%v)", tc.args, len(pairs), tc.want, err)
		}
		b, _ := os.ReadFile(filepath.Join(out, "q.npy"))
		if npy != nil && string(b) != string(npy) {
			t.Errorf("%v: the .npy differs from the default's", tc.args)
		}
		npy = b
	}
	for _, bad := range []string{"-1", "0L", "5X", "1.5", "L/5", ""} {
		code, _, errOut := runCLI(t, "predict", "--model", model, "--out", filepath.Join(dir, "bad"), "--rr-max", bad, fasta)
		if code != 2 || !strings.Contains(errOut, "-rr-max") || !strings.Contains(errOut, "5L") {
			t.Errorf("--rr-max %q: exit %d, stderr %q; want 2 naming the flag and its syntax", bad, code, errOut)
		}
	}
	if code, out, _ := runCLI(t, "predict", "-h"); code != 0 || !strings.Contains(out, "-rr-max kL|N") || !strings.Contains(out, "(default 5L)") {
		t.Errorf("predict -h does not show --rr-max with its default:\n%s", out)
	}
}

// With no model given, predict uses the shipped default, the distilled
// SCNN: its maps are those of the run file it was copied from; and
// --model ensemble gives the maps of the ten run files it was built from,
// given one by one (the mean of all of them, bit for bit). (The library,
// pipeline/predict, takes its models from the command and does not link
// the shipped ones.)
func TestPredictDefaultIsTheShippedModel(t *testing.T) {
	dir := t.TempDir()
	fasta := filepath.Join(dir, "s.fa")
	os.WriteFile(fasta, []byte(">s1\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ\n"), 0o644)
	members, err := filepath.Glob("../../experiments/compare-ext/*-seed*/model.scnn")
	if err != nil || len(members) != 10 {
		t.Fatalf("members %v, %v", members, err)
	}
	maps := map[string][]byte{}
	for name, specs := range map[string][]string{"default": nil, "file": {"../../experiments/distill/runs/scnn-a0-seed3/model.scnn"},
		"ensemble": {"ensemble"}, "files": members} {
		out := filepath.Join(dir, name)
		args := []string{"predict", "--out", out, "--format", "npy,rr"}
		for _, m := range specs {
			args = append(args, "--model", m)
		}
		if code, _, errOut := runCLI(t, append(args, fasta)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		maps[name], _ = os.ReadFile(filepath.Join(out, "s1.npy"))
		rr, _ := os.ReadFile(filepath.Join(out, "s1.rr"))
		if (name == "ensemble" || name == "files") && !strings.Contains(string(rr), "ensemble of 10 models (5 CNN default + 5 SCNN default") {
			t.Errorf("%s: RR header:\n%s", name, rr[:min(len(rr), 400)])
		}
	}
	if len(maps["default"]) == 0 || !bytes.Equal(maps["default"], maps["file"]) {
		t.Error("the default's map differs from the distilled run file's")
	}
	if len(maps["ensemble"]) == 0 || !bytes.Equal(maps["ensemble"], maps["files"]) {
		t.Error("the ensemble's map differs from the ten run files' mean")
	}
	if bytes.Equal(maps["default"], maps["ensemble"]) {
		t.Error("the default predicts the ensemble's map")
	}
}
