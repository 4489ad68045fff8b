package predict

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/pipeline/train"
)

const mirror = "../../data/pdb"

// testModel saves a small untrained model of the given kind in seq mode.
func testModel(t *testing.T, kind string) string {
	t.Helper()
	a := train.DefaultArch(kind)
	a.Mode = "seq"
	m, err := train.NewModel(a, 5)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), kind+".scnn")
	if err := m.Save(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseID(t *testing.T) {
	for _, tc := range []struct{ in, code, chain string }{
		{"1ENH_A", "1ENH", "A"}, {"1ENHA", "1ENH", "A"}, {"1enh", "1ENH", ""}, {"6uhg_AAA", "6UHG", "AAA"},
	} {
		c, ch, err := ParseID(tc.in)
		if err != nil || c != tc.code || ch != tc.chain {
			t.Errorf("%q: %q %q %v", tc.in, c, ch, err)
		}
	}
	for _, bad := range []string{"ENH", "0ENH_A", "1EN!_A", "1ENH_", ""} {
		if _, _, err := ParseID(bad); !errors.Is(err, ErrInput) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
}

// End to end: a bundled PDB ID to an RR file that parses back to the same
// pairs and probabilities as the .npy matrix; failures are reported per
// input and the other inputs complete.
func TestPredictEndToEnd(t *testing.T) {
	out := t.TempDir()
	fasta := filepath.Join(t.TempDir(), "seqs.fasta")
	os.WriteFile(fasta, []byte(">good\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDEDRLSPLHSVYVDQWDWERVMGDGERQFSTLKSTVEAIWAGIKATEAAVSEEFGLAPFLPDQIHFVHSQELLSRYPDLDAKGRERAIAKDLGAVFLVGIGGKLSDGHRHDVRAPDYDDWUAIGLG\n>bad\nMKT1AY\n"), 0o644)
	cfg := Config{ModelPath: testModel(t, train.SCNN), PDBDir: mirror, Out: out, Formats: []string{"rr", "npy", "tsv", "png"}, Workers: 2}
	outs, err := Run(context.Background(), cfg, []string{"1ENH_A", "9ZZZ", "1ENH_Q", fasta})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Outcome{}
	var failed []string
	for _, o := range outs {
		if o.Err != nil {
			failed = append(failed, o.Arg+" "+o.ID)
		}
		byID[o.ID] = o
	}
	if len(failed) != 3 {
		t.Errorf("failures %q: want 9ZZZ, 1ENH_Q and the bad sequence", failed)
	}
	if o := byID["1ENH_A"]; o.Err != nil || o.Metrics == nil || len(o.Files) != 4 {
		t.Fatalf("1ENH_A: %+v", o)
	}
	if o := byID["good"]; o.Err != nil || o.Metrics != nil {
		t.Errorf("sequence input: %+v", o)
	}
	if o := byID["bad"]; !errors.Is(o.Err, ErrInput) || !strings.Contains(o.Err.Error(), "invalid residue") {
		t.Errorf("invalid residue: %v", o.Err)
	}
	rr, _ := os.Open(filepath.Join(out, "1ENH_A.rr"))
	defer rr.Close()
	seq, pairs, err := ReadRR(rr)
	if err != nil {
		t.Fatal(err)
	}
	l := len(seq)
	if l != 54 || len(pairs) != l*(l-1)/2 {
		t.Fatalf("RR: L=%d, %d pairs", l, len(pairs))
	}
	npy, _ := os.ReadFile(filepath.Join(out, "1ENH_A.npy"))
	p := readNPY(t, npy, l)
	for k, q := range pairs {
		if k > 0 && q.P > pairs[k-1].P {
			t.Fatal("RR not sorted by probability")
		}
		if d := q.P - p[q.I*l+q.J]; d > 1e-6 || d < -1e-6 { // RR has 6 decimals
			t.Fatalf("pair (%d,%d): RR %v, npy %v", q.I, q.J, q.P, p[q.I*l+q.J])
		}
	}
}

func readNPY(t *testing.T, b []byte, l int) []float32 {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("\x93NUMPY\x01\x00")) {
		t.Fatal("npy magic")
	}
	hl := int(b[8]) | int(b[9])<<8
	if (10+hl)%64 != 0 || !strings.Contains(string(b[10:10+hl]), "'shape': (54, 54)") {
		t.Fatalf("npy header %q", b[10:10+hl])
	}
	data := b[10+hl:]
	if len(data) != 4*l*l {
		t.Fatalf("npy data %d bytes", len(data))
	}
	p := make([]float32, l*l)
	for i := range p {
		u := uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
		p[i] = math.Float32frombits(u)
	}
	return p
}

// The .npy file loads in NumPy with the right shape and values.
func TestNPYLoadsInNumPy(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("python3-numpy not installed (Debian python3-numpy); .ci/run installs it")
	}
	p := []float32{0, 0.25, 0.5, 0.25, 0, 1, 0.5, 1, 0}
	f := filepath.Join(t.TempDir(), "m.npy")
	var buf bytes.Buffer
	WriteNPY(&buf, p, 3)
	os.WriteFile(f, buf.Bytes(), 0o644)
	out, err := exec.Command(py, "-c", "import numpy as np,sys; a=np.load(sys.argv[1]); print(a.shape, a.dtype, a[0,1], a[2,1], (a==a.T).all())", f).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "(3, 3) float32 0.25 1.0 True" {
		t.Errorf("numpy says %q", got)
	}
}

// The same inputs give identical files across runs and worker counts, for
// both kinds of model; SCNN and CNN outputs are symmetric matrices.
func TestPredictDeterministic(t *testing.T) {
	for _, kind := range []string{train.CNN, train.SCNN} {
		model := testModel(t, kind)
		var prev map[string][]byte
		for _, workers := range []int{1, 3, 1} {
			out := t.TempDir()
			cfg := Config{ModelPath: model, PDBDir: mirror, Out: out, Formats: []string{"rr", "npy"}, Workers: workers}
			if _, err := Run(context.Background(), cfg, []string{"1ENH_A", "1ctf", "2O9S_A", "1A2X_B"}); err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(out, "*"))
			cur := map[string][]byte{}
			for _, f := range files {
				cur[filepath.Base(f)], _ = os.ReadFile(f)
			}
			if len(cur) != 8 {
				t.Fatalf("%d files", len(cur))
			}
			for name, b := range prev {
				if !bytes.Equal(b, cur[name]) {
					t.Errorf("%s %s differs with %d workers", kind, name, workers)
				}
			}
			prev = cur
		}
	}
}

func TestModeMismatch(t *testing.T) {
	cfg := Config{ModelPath: testModel(t, train.SCNN), PDBDir: mirror, Out: t.TempDir(), SS: "../../data/ss/psipred.fasta"}
	if _, err := Run(context.Background(), cfg, []string{"1ENH_A"}); err == nil || !strings.Contains(err.Error(), "drop --ss") {
		t.Errorf("seq model with --ss: %v", err)
	}
}

func TestRRRoundTrip(t *testing.T) {
	p := []float32{0, 0.9, 0.1, 0.9, 0, 0.5, 0.1, 0.5, 0}
	var buf bytes.Buffer
	if err := WriteRR(&buf, "T", "test", "ACD", p); err != nil {
		t.Fatal(err)
	}
	seq, pairs, err := ReadRR(&buf)
	if err != nil || seq != "ACD" || len(pairs) != 3 || pairs[0] != (Pair{0, 1, 0.9}) || pairs[2] != (Pair{0, 2, 0.1}) {
		t.Errorf("%q %v %v", seq, pairs, err)
	}
}
