package predict

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/contactmap/contactmap/pdb"
	"github.com/contactmap/contactmap/pipeline/features"
	"github.com/contactmap/contactmap/pipeline/model"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const mirror = "../../data/pdb"

// testModel saves a small untrained model of the given kind in seq mode.
func testModel(t *testing.T, kind model.Kind) string {
	t.Helper()
	a := model.DefaultArch(kind)
	a.Mode = features.SeqMode
	m, err := model.NewModel(a, 5)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), string(kind)+".scnn")
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
	cfg := Config{Models: []string{testModel(t, model.SCNN)}, PDBDir: mirror, Out: out, Formats: []string{"rr", "npy", "tsv", "png"}, Workers: 2}
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
	if l != 54 || len(pairs) != 5*l { // the 5L most probable of the (l-5)*(l-6)/2 pairs with |i-j| >= 6
		t.Fatalf("RR: L=%d, %d pairs", l, len(pairs))
	}
	npy, _ := os.ReadFile(filepath.Join(out, "1ENH_A.npy"))
	p := readNPYShape(t, npy, l)
	for k, q := range pairs {
		if k > 0 && q.P > pairs[k-1].P {
			t.Fatal("RR not sorted by probability")
		}
		if d := q.P - p[q.I*l+q.J]; d > 1e-6 || d < -1e-6 { // RR has 6 decimals
			t.Fatalf("pair (%d,%d): RR %v, npy %v", q.I, q.J, q.P, p[q.I*l+q.J])
		}
		if q.J-q.I < DefaultRRMinSep {
			t.Fatalf("pair (%d,%d) below the minimum separation", q.I, q.J)
		}
	}
	for i := 0; i < l; i++ {
		if p[i*l+i] != 0 {
			t.Fatalf("npy diagonal %d = %v, want 0", i, p[i*l+i])
		}
	}
	head, _ := os.ReadFile(filepath.Join(out, "1ENH_A.rr"))
	if !strings.Contains(string(head), "REMARK Probabilities of contact as the model was trained: C-alpha pairs closer than 8 Angstrom.") {
		t.Errorf("RR header does not say the contact definition:\n%s", head[:300])
	}
}

// readNPYShape reads an L x L float32 .npy file written by WriteNPY.
func readNPYShape(t *testing.T, b []byte, l int) []float32 {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("\x93NUMPY\x01\x00")) {
		t.Fatal("npy magic")
	}
	hl := int(b[8]) | int(b[9])<<8
	if (10+hl)%64 != 0 || !strings.Contains(string(b[10:10+hl]), fmt.Sprintf("'shape': (%d, %d)", l, l)) {
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
	for _, kind := range []model.Kind{model.CNN, model.SCNN} {
		modelPath := testModel(t, kind)
		var prev map[string][]byte
		for _, workers := range []int{1, 3, 1} {
			out := t.TempDir()
			cfg := Config{Models: []string{modelPath}, PDBDir: mirror, Out: out, Formats: []string{"rr", "npy"}, Workers: workers}
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
			for name, b := range cur {
				if !strings.HasSuffix(name, ".npy") {
					continue
				}
				hl := int(b[8]) | int(b[9])<<8
				l := int(math.Sqrt(float64((len(b) - 10 - hl) / 4)))
				p := readNPYShape(t, b, l)
				for i := 0; i < l; i++ {
					for j := 0; j < i; j++ {
						if p[i*l+j] != p[j*l+i] {
							t.Fatalf("%s %s: p[%d,%d] = %v, p[%d,%d] = %v", kind, name, i, j, p[i*l+j], j, i, p[j*l+i])
						}
					}
				}
			}
			prev = cur
		}
	}
}

func TestModeMismatch(t *testing.T) {
	cfg := Config{Models: []string{testModel(t, model.SCNN)}, PDBDir: mirror, Out: t.TempDir(), SS: "../../data/ss/psipred.fasta"}
	if _, err := Run(context.Background(), cfg, []string{"1ENH_A"}); err == nil || !strings.Contains(err.Error(), "trained without PSIPRED secondary structure") {
		t.Errorf("seq model with --ss: %v", err)
	}
}

func TestRRRoundTrip(t *testing.T) {
	p := []float32{0, 0.9, 0.1, 0.9, 0, 0.5, 0.1, 0.5, 0}
	var buf bytes.Buffer
	if err := WriteRR(&buf, RRInfo{Target: "T", Method: "test", Seq: "ACD", MinSep: 1}, p); err != nil {
		t.Fatal(err)
	}
	seq, pairs, err := ReadRR(&buf)
	if err != nil || seq != "ACD" || len(pairs) != 3 || pairs[0] != (Pair{0, 1, 0.9}) || pairs[2] != (Pair{0, 2, 0.1}) {
		t.Errorf("%q %v %v", seq, pairs, err)
	}
}

// Records with the same name, names that would escape --out or be empty,
// and two inputs holding the same chain all get their own files inside
// --out, with a warning; nothing is overwritten.
func TestOutputNamesUniqueAndInside(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	fasta := filepath.Join(dir, "seqs.txt") // FASTA recognised by content
	os.WriteFile(fasta, []byte(">dup\nMKTAYIAKQRQISFVKSHFSRQ\n>dup\nMKTAYIAKQRQISFVKSHFSRQLEE\n>DUP\nMKTAY\n>..\nMKTAYIAK\n>\nMKTA\n"), 0o644)
	enh, _ := filepath.Glob(mirror + "/*/*1enh*")
	if len(enh) != 1 {
		t.Fatalf("1ENH in the mirror: %v", enh)
	}
	cfg := Config{Models: []string{testModel(t, model.SCNN)}, PDBDir: mirror, Out: out, Formats: []string{"rr"}}
	outs, err := Run(context.Background(), cfg, []string{fasta, "1ENH_A", enh[0]})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.rr"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	sort.Strings(names)
	want := []string{"1ENH_A.rr", "1ENH_A_2.rr", "DUP_3.rr", "_..rr", "dup.rr", "dup_2.rr", "unnamed.rr"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", names, want)
	}
	if outside, _ := filepath.Glob(filepath.Join(dir, "*.rr")); len(outside) != 0 {
		t.Errorf("written outside --out: %v", outside)
	}
	warned := 0
	for _, o := range outs {
		if o.Err != nil {
			t.Errorf("%s: %v", o.ID, o.Err)
		}
		if strings.Contains(o.Naming, "is taken by") || strings.Contains(o.Naming, "is written as") {
			warned++
		}
	}
	if warned != 5 { // dup, DUP, "..", "", the second 1ENH_A
		t.Errorf("%d naming warnings, want 5", warned)
	}
}

// Clear messages for a missing path, a directory, a missing mirror; an
// unwritable --out fails before any prediction.
func TestInputMessages(t *testing.T) {
	dir := t.TempDir()
	for arg, want := range map[string]string{
		filepath.Join(dir, "nope.fasta"): "no such file, and not a PDB ID",
		dir:                              "is a directory",
	} {
		if _, err := Resolve(arg, mirror); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
	if _, err := Resolve("1ENH_A", filepath.Join(dir, "data/pdb")); err == nil || !strings.Contains(err.Error(), "need a local PDB mirror") {
		t.Errorf("no mirror: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	started := false
	cfg := Config{Models: []string{testModel(t, model.SCNN)}, PDBDir: mirror, Out: filepath.Join(file, "out"), OnStart: func(int) { started = true }}
	if _, err := Run(context.Background(), cfg, []string{"1ENH_A"}); err == nil || started {
		t.Errorf("unwritable --out: err %v, started %v", err, started)
	}
}

// Shards split the targets of one FASTA file between them, each target
// once; non-standard residues and lengths outside the training range are
// reported as warnings with the outputs written.
func TestShardsSplitTargetsAndWarn(t *testing.T) {
	dir := t.TempDir()
	fasta := filepath.Join(dir, "s.fa")
	var b strings.Builder
	for k := 0; k < 5; k++ {
		fmt.Fprintf(&b, ">s%d\nMKTAYIAKQRQISFVKSHFSRQUEERLGLIEV\n", k)
	}
	os.WriteFile(fasta, []byte(b.String()), 0o644)
	a := model.DefaultArch(model.SCNN)
	a.Mode, a.MinLen, a.MaxLen = features.SeqMode, 40, 100
	m, _ := model.NewModel(a, 5)
	model := filepath.Join(dir, "m.scnn")
	if err := m.Save(model); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for shard := 0; shard < 3; shard++ {
		outs, err := Run(context.Background(), Config{Models: []string{model}, Out: filepath.Join(dir, "out"), Formats: []string{"rr"}, Shard: shard, Shards: 3}, []string{fasta})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			seen[o.ID]++
			w := strings.Join(o.Warnings, "\n")
			if o.Err != nil || !strings.Contains(w, "U at 23 read as C") || !strings.Contains(w, "outside the model's training lengths 40-100") {
				t.Errorf("%s: %v, warnings %q", o.ID, o.Err, o.Warnings)
			}
		}
	}
	if len(seen) != 5 {
		t.Errorf("targets predicted: %v", seen)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s predicted by %d shards", id, n)
		}
	}
}

// FuzzReadRR: accepted RR files give pairs i < j with probabilities in
// [0, 1].
func FuzzReadRR(f *testing.F) {
	var buf bytes.Buffer
	WriteRR(&buf, RRInfo{Target: "T", Method: "m", Labels: "C-alpha pairs closer than 8 Å", Seq: "MKTAYIAKQRQ", MinSep: 1},
		[]float32{0, .9, .1, .2, .3, .4, .5, .6, .7, .8, .9, .9, 0, .1, .2, .3, .4, .5, .6, .7, .8, .9, .1, .1, 0, .2, .3, .4, .5, .6, .7, .8, .9,
			.2, .2, .2, 0, .3, .4, .5, .6, .7, .8, .9, .3, .3, .3, .3, 0, .4, .5, .6, .7, .8, .9, .4, .4, .4, .4, .4, 0, .5, .6, .7, .8, .9,
			.5, .5, .5, .5, .5, .5, 0, .6, .7, .8, .9, .6, .6, .6, .6, .6, .6, .6, 0, .7, .8, .9, .7, .7, .7, .7, .7, .7, .7, .7, 0, .8, .9,
			.8, .8, .8, .8, .8, .8, .8, .8, .8, 0, .9, .9, .9, .9, .9, .9, .9, .9, .9, .9, .9, 0})
	f.Add(buf.Bytes())
	f.Add([]byte("PFRMAT RR\nMKT\n1 2 0 8 1.5\nEND\n"))
	f.Add([]byte("1 3 0 8 0.5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, pairs, err := ReadRR(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, p := range pairs {
			if p.I < 0 || p.J <= p.I || !(p.P >= 0 && p.P <= 1) {
				t.Fatalf("accepted pair %+v", p)
			}
		}
	})
}

// Several models predict as a seed ensemble: each probability is the mean
// of the members' (a CNN and an SCNN here), the RR header says so, and
// members that predict different contacts are refused.
func TestEnsemblePrediction(t *testing.T) {
	dir := t.TempDir()
	fasta := filepath.Join(dir, "s.fa")
	os.WriteFile(fasta, []byte(">s1\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ\n"), 0o644)
	cnn, scnn := testModel(t, model.CNN), testModel(t, model.SCNN)
	predictWith := func(specs ...string) ([]float32, string) {
		t.Helper()
		out := filepath.Join(dir, fmt.Sprint(len(specs), filepath.Base(specs[0])))
		outs, err := Run(context.Background(), Config{Models: specs, Out: out, Formats: []string{"npy", "rr"}}, []string{fasta})
		if err != nil || len(outs) != 1 || outs[0].Err != nil {
			t.Fatalf("%v: %v %+v", specs, err, outs)
		}
		npy, _ := os.ReadFile(filepath.Join(out, "s1.npy"))
		rr, _ := os.ReadFile(filepath.Join(out, "s1.rr"))
		return readNPYShape(t, npy, outs[0].L), string(rr)
	}
	a, _ := predictWith(cnn)
	b, _ := predictWith(scnn)
	mean, rr := predictWith(cnn, scnn)
	differ := false
	for i := range mean {
		want := float32((float64(a[i]) + float64(b[i])) / 2)
		if mean[i] != want {
			t.Fatalf("entry %d: ensemble %v, members %v and %v", i, mean[i], a[i], b[i])
		}
		differ = differ || a[i] != b[i]
	}
	if !differ {
		t.Fatal("the two members predict the same map: the test shows nothing")
	}
	if !strings.Contains(rr, "ensemble of 2 models (1 CNN default + 1 SCNN default") {
		t.Errorf("RR header does not name the ensemble:\n%s", rr[:min(len(rr), 300)])
	}
	// A C-beta member with a C-alpha one is refused.
	am := model.DefaultArch(model.SCNN)
	am.Mode, am.Labels = features.SeqMode, pdb.ContactDef{Atoms: pdb.CBeta, Cutoff: pdb.ContactCutoff}
	m, _ := model.NewModel(am, 5)
	cb := filepath.Join(dir, "cb.scnn")
	if err := m.Save(cb); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Config{Models: []string{scnn, cb}, Out: filepath.Join(dir, "mixed")}, []string{fasta}); err == nil || !strings.Contains(err.Error(), "same contacts") {
		t.Errorf("C-alpha and C-beta members: %v", err)
	}
}
