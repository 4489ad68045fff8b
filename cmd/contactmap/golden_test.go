package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenOutputs are the SHA-256 sums of what every shipped model
// predicts for two PDB chains (protein: .npy, the full map, and .rr) and
// a 5S rRNA (RNA: BPSEQ, CT, dot-bracket, PNG) with the AVX-512 kernels
// and one worker: refactoring must leave every shipped model's
// predictions byte-identical. The sums of rna-scnn-16s and rna-scnn-seq
// were written by the code before the shared training loop (1a0c71c)
// (rna-scnn-16s's as rna-scnn's then), rna-scnn's when the families
// network shipped; the protein ones by the inference by halves whose row
// and column terms are GEMMs, whose maps agree
// with the materialised pair maps' within 1e-6
// (TestShippedModelsMatchMaterialised; the RNA models'
// probabilities across kernel sets: models'
// TestShippedRNAModelsAgreeAcrossKernelSets). The scnn and ensemble
// sums since, by the direct forward pass that folds an spConv's tap
// pairs: their maps still agree with the
// materialised ones within 1e-6 (3.6e-7 at most); the RNA models'
// outputs did not change. The RNA PNGs' sums since the arc diagram of
// the structures under the map: a picture changed, no
// prediction (the BPSEQ, CT and dot-bracket sums are the same).
var goldenOutputs = map[string]string{
	"cnn/1ENH_A.npy":                      "195999f5a7c59d7378383014ac3262b5318a65c09bc6c8ecf6949fb713bb92c9",
	"cnn/1ENH_A.rr":                       "2e2b0dcb37838105717acf8e2409a43b5addc33d6e966b027b54b64129067956",
	"cnn/2O9S_A.npy":                      "9e0a1f2da883eb536f8dfdf41fc3fb6cff061af049b4b7f02d07cd075c931341",
	"cnn/2O9S_A.rr":                       "816039d32088e35cfb795c900d5e1c1dae1a32ddeb6c35692bd1e06581993762",
	"ensemble/1ENH_A.npy":                 "7496eb42b0778220068340dd77f74a90e279d7246fcc879a04a19ab6f0bbdc99",
	"ensemble/1ENH_A.rr":                  "6ead4e6ac4c9416d1671a49ae7990081e0f4e80835c0761e71e631ce7ead1a6d",
	"ensemble/2O9S_A.npy":                 "f54ac12665d2e6710bea9569cf3c23e922189aa2678611f3bb90c78e4f0eef11",
	"ensemble/2O9S_A.rr":                  "bcc3f9fddb459b57aa3d5755527862753e57de6f4c2a64ccbfab5431899f35b0",
	"scnn/1ENH_A.npy":                     "a0c0898dbf83e35be664d84ac22ca3c51f1ede7513045a5c279cdd6b31692ca4",
	"scnn/1ENH_A.rr":                      "83506e798ee5e98ae38ab272eb7137eb64a48b9724414e4dfbcb563cdaf2a0f1",
	"scnn/2O9S_A.npy":                     "4c5b6e6eedb56883dcf1c6e96396e66a7b236c85e5245e61df797f5c18a17440",
	"scnn/2O9S_A.rr":                      "c039fa114e0243ba84962d87b85411cde267a3c267ef23ef2beeb679c1c44f41",
	"rna-scnn-seq/d.5.e.M.fossilis.bpseq": "5457559011d50d2a86b43f1da0da2cd7c58e39839f89cbaa026fc1d0725d816a",
	"rna-scnn-seq/d.5.e.M.fossilis.ct":    "1799c82d956bff9e4513ca3f0be98c711a7e0a491ecc27597a0e89e6974f9974",
	"rna-scnn-seq/d.5.e.M.fossilis.db":    "a334d4771141408b481b43869987c14416640c2b39634756d3868a9eab2aac7f",
	"rna-scnn-seq/d.5.e.M.fossilis.png":   "99b0e3b70b9c6b841f59ecff9066c835a7d77183c0bd4e0fafa9870fec515f45",
	"rna-scnn/d.5.e.M.fossilis.bpseq":     "7f1082c8f86a5be97a2dd2888650ea1fd5dd87b9f0e647238187ddd87541d529",
	"rna-scnn/d.5.e.M.fossilis.ct":        "2e4136422101875ca901274fe9423c5aece5f36650cb4486ec23f035fc7da060",
	"rna-scnn/d.5.e.M.fossilis.db":        "e534ebc6ed56b1f608671962466ea52735e4c2f88f27b74e02ffa9e1154b2dc4",
	"rna-scnn/d.5.e.M.fossilis.png":       "80fa2bedf6a66e6259ac5cd54ddb9823c861381643ed549507263984c2491404",
	"rna-scnn-16s/d.5.e.M.fossilis.bpseq": "70bea52bae0202840ad41e05c3b693310cd262a5718a84fab6e4999e215aaea4",
	"rna-scnn-16s/d.5.e.M.fossilis.ct":    "ee89dd4a16c2504aef414afa45d64725a9e91dfbf8f1a2e7fc89a9bd9e7376a2",
	"rna-scnn-16s/d.5.e.M.fossilis.db":    "c28956df24d24e68cf5f7f2180bdf0b6bbb2fdd91facfae8973f3d3d054840d4",
	"rna-scnn-16s/d.5.e.M.fossilis.png":   "3752bebcbe6bf0c7983396343dee59c21626174ab6e1bf0be3d46cb57eefd52b",
}

// Every shipped model predicts byte-identically to the
// recorded outputs (goldenOutputs). Other kernels than AVX-512
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
	for _, m := range []string{"rna-scnn", "rna-scnn-16s", "rna-scnn-seq"} {
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

// materialisedSums are the SHA-256 sums of testdata/materialised: the
// protein models' maps of the two chains written by the code that
// materialised the pair maps (before pairnet's forwardCartesian; the
// sums goldenOutputs held then).
var materialisedSums = map[string]string{
	"cnn/1ENH_A.npy":      "baa7a1209a8e4eb4d36f2b47d0b2a621b98d5bd26cb846b0b1166f0f9920c157",
	"cnn/2O9S_A.npy":      "da9018393d3563c62a593daa5aef047146764f797bdee35965f2f97ed0f32679",
	"ensemble/1ENH_A.npy": "9e38129ef27fa19f50209316a8efb8f7a6e249690b2c5fe830047f0346f75a59",
	"ensemble/2O9S_A.npy": "eedbb0bb4a483898204d699332bb0b30bdc0be426e204a441095821533b906f5",
	"scnn/1ENH_A.npy":     "7c6a4a4b52de35809fed4aaeaf0350f0cbf98226e97d4e339fc35d8c9c6b102b",
	"scnn/2O9S_A.npy":     "a4fde2aae97e38d22241d896372405dbe179fafbed6e06dc0034dd4ccc6be4cc",
}

// Inference by halves (pairnet's forwardCartesian, which leaves out the
// pair maps) predicts what the materialised pair maps predicted, to 1e-6
// in probability, for every shipped protein model, on any kernel set.
func TestShippedModelsMatchMaterialised(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []string{"scnn", "cnn", "ensemble"} {
		if code, _, errOut := runCLI(t, "predict", "--model", m, "--pdb-dir", "../../data/pdb", "--format", "npy",
			"--out", filepath.Join(dir, m), "--workers", "1", "1ENH_A", "2O9S_A"); code != 0 {
			t.Fatalf("predict --model %s: %s", m, errOut)
		}
	}
	for name, sum := range materialisedSums {
		ref, err := os.ReadFile(filepath.Join("testdata", "materialised", name))
		if err != nil {
			t.Fatal(err)
		}
		if s := sha256.Sum256(ref); hex.EncodeToString(s[:]) != sum {
			t.Fatalf("testdata/materialised/%s is not the recorded file", name)
		}
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		a, b := npyFloats(t, ref), npyFloats(t, got)
		if len(a) != len(b) {
			t.Fatalf("%s: %d values, the materialised map %d", name, len(b), len(a))
		}
		worst := 0.0
		for k := range a {
			worst = max(worst, math.Abs(float64(a[k])-float64(b[k])))
		}
		t.Logf("%s: max |difference| %.2g", name, worst)
		if worst > 1e-6 {
			t.Errorf("%s: differs from the materialised prediction by %g", name, worst)
		}
	}
}

// npyFloats reads the float32 values of a .npy file (a header whose
// length is at bytes 8-9, then the little-endian data).
func npyFloats(t *testing.T, b []byte) []float32 {
	t.Helper()
	if len(b) < 10 || string(b[1:6]) != "NUMPY" {
		t.Fatal("not a .npy file")
	}
	data := b[10+int(binary.LittleEndian.Uint16(b[8:10])):]
	out := make([]float32, len(data)/4)
	for k := range out {
		out[k] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*k:]))
	}
	return out
}
