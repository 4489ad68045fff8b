package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenOutputs are the SHA-256 sums of what every shipped model
// predicts for two PDB chains (protein: .npy, the full map, and .rr) and
// a 5S rRNA (RNA: BPSEQ, CT, dot-bracket, PNG), written by the code
// before the shared training loop (1a0c71c) with the AVX-512 kernels and
// one worker: refactoring must leave every shipped model's predictions
// byte-identical.
var goldenOutputs = map[string]string{
	"cnn/1ENH_A.npy":                      "baa7a1209a8e4eb4d36f2b47d0b2a621b98d5bd26cb846b0b1166f0f9920c157",
	"cnn/1ENH_A.rr":                       "d97ab0d302b1e3511c5c477c605197762c6bec8866908b2a1360d43853ef048a",
	"cnn/2O9S_A.npy":                      "da9018393d3563c62a593daa5aef047146764f797bdee35965f2f97ed0f32679",
	"cnn/2O9S_A.rr":                       "8064c0507393a3e337c275ad77f77301ade68df589fad113a12b420d40f35bb6",
	"ensemble/1ENH_A.npy":                 "9e38129ef27fa19f50209316a8efb8f7a6e249690b2c5fe830047f0346f75a59",
	"ensemble/1ENH_A.rr":                  "18661cfb96bf49295fdc597a4cbc44eef6e16c0d59069a745d963bc928fb693e",
	"ensemble/2O9S_A.npy":                 "eedbb0bb4a483898204d699332bb0b30bdc0be426e204a441095821533b906f5",
	"ensemble/2O9S_A.rr":                  "a4b3c311042b7803c1d27038afab8b9daef8b40bc71a11c49f93be7397e43c75",
	"scnn/1ENH_A.npy":                     "7c6a4a4b52de35809fed4aaeaf0350f0cbf98226e97d4e339fc35d8c9c6b102b",
	"scnn/1ENH_A.rr":                      "0d2daa990f580c957c3493fe513b44673efcca01ccd6265cf007fbfaaf7ff9e3",
	"scnn/2O9S_A.npy":                     "a4fde2aae97e38d22241d896372405dbe179fafbed6e06dc0034dd4ccc6be4cc",
	"scnn/2O9S_A.rr":                      "ab39810f59abc55f0306fd933a17793ca206262166f4086ddebcc55bfe437eb0",
	"rna-scnn-seq/d.5.e.M.fossilis.bpseq": "5457559011d50d2a86b43f1da0da2cd7c58e39839f89cbaa026fc1d0725d816a",
	"rna-scnn-seq/d.5.e.M.fossilis.ct":    "1799c82d956bff9e4513ca3f0be98c711a7e0a491ecc27597a0e89e6974f9974",
	"rna-scnn-seq/d.5.e.M.fossilis.db":    "a334d4771141408b481b43869987c14416640c2b39634756d3868a9eab2aac7f",
	"rna-scnn-seq/d.5.e.M.fossilis.png":   "9318ca66a32d5f1717db87b0cd1e29ae4389d5cd1f0bf96232de11f072a6cd69",
	"rna-scnn/d.5.e.M.fossilis.bpseq":     "70bea52bae0202840ad41e05c3b693310cd262a5718a84fab6e4999e215aaea4",
	"rna-scnn/d.5.e.M.fossilis.ct":        "ee89dd4a16c2504aef414afa45d64725a9e91dfbf8f1a2e7fc89a9bd9e7376a2",
	"rna-scnn/d.5.e.M.fossilis.db":        "c28956df24d24e68cf5f7f2180bdf0b6bbb2fdd91facfae8973f3d3d054840d4",
	"rna-scnn/d.5.e.M.fossilis.png":       "4b0b1e51ad527791d0e31056b3425a173237ca139a28745f2dcca788209457e0",
}

// Issue 26: every shipped model predicts byte-identically to the code
// before the refactoring (goldenOutputs). Other kernels than AVX-512
// round differently: there the test skips.
func TestShippedModelsPredictGolden(t *testing.T) {
	if !strings.Contains(version(), "avx512 kernels") {
		t.Skipf("the golden sums are of the AVX-512 kernels; this build: %s", version())
	}
	dir := t.TempDir()
	for _, m := range []string{"scnn", "cnn", "ensemble"} {
		if code, _, errOut := runCLI(t, "predict", "--model", m, "--pdb-dir", "../../data/pdb", "--format", "npy,rr",
			"--out", filepath.Join(dir, m), "--workers", "1", "1ENH_A", "2O9S_A"); code != 0 {
			t.Fatalf("predict --model %s: %s", m, errOut)
		}
	}
	for _, m := range []string{"rna-scnn", "rna-scnn-seq"} {
		if code, _, errOut := runCLI(t, "rna", "predict", "--model", m, "--out", filepath.Join(dir, m), "--workers", "1",
			"../../data/rna/test/5S/d.5.e.M.fossilis.nopct"); code != 0 {
			t.Fatalf("rna predict --model %s: %s", m, errOut)
		}
	}
	for name, want := range goldenOutputs {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: sha256 %s, want %s (the shipped model's prediction changed)", name, got, want)
		}
	}
}
