package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contactmap/contactmap/rna"
	"github.com/contactmap/contactmap/rna/fold"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// rna predict writes every format for each good record, reports the bad
// one (an invalid letter) and fails after the others complete; a CT input
// is scored against its own structure.
func TestRNAPredictCommand(t *testing.T) {
	dir := t.TempDir()
	m, err := ssnet.NewModel(ssnet.SCNN, ssnet.Default, 1)
	if err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "m.scnn")
	if err := m.Save(modelPath); err != nil {
		t.Fatal(err)
	}
	fasta := filepath.Join(dir, "in.fa")
	os.WriteFile(fasta, []byte(">good one\nGGGAAACCCUUAGCGCUAAGCGCU\n>bad\nGGGAXACCC\n>good\nacgtacgtacgtn\n"), 0o644)
	s, err := rna.New("hairpin", "GGGGAAAACCCC", [][2]int{{0, 11}, {1, 10}, {2, 9}, {3, 8}})
	if err != nil {
		t.Fatal(err)
	}
	ct := filepath.Join(dir, "hairpin.ct")
	f, _ := os.Create(ct)
	rna.WriteCT(f, s)
	f.Close()
	out := filepath.Join(dir, "out")
	err = runRNAPredict(context.Background(), []string{"--model", modelPath, "--out", out, fasta, ct})
	if err == nil || !strings.Contains(err.Error(), "1 of 4 inputs failed") {
		t.Fatalf("error %v, want one failed input", err)
	}
	for _, base := range []string{"good", "good_2", "hairpin"} {
		for _, f := range ssnet.Formats {
			if st, err := os.Stat(filepath.Join(out, base+"."+string(f))); err != nil || st.Size() == 0 {
				t.Errorf("%s.%s: %v", base, f, err)
			}
		}
	}
	// The BPSEQ output reads back as a valid structure of the sequence.
	g, _ := os.Open(filepath.Join(out, "good_2.bpseq"))
	defer g.Close()
	back, err := rna.ReadBPSEQ(g, "good_2.bpseq")
	if err != nil || back.Seq != "ACGUACGUACGUN" {
		t.Errorf("read back %v, %v", back, err)
	}
	if err := runRNAPredict(context.Background(), []string{"--model", "no-such-model", "--out", out, fasta}); err == nil {
		t.Error("an unknown model accepted")
	}
	if err := runRNAPredict(context.Background(), []string{"--model", modelPath, "--format", "pdf", fasta}); err == nil {
		t.Error("unknown format accepted")
	}
}

// rna compare reports SCNN against CNN and each kind against the
// model-free baselines (stacking, homology transfer from --train), on all
// molecules and on those without a near-identical training molecule,
// under the decoder asked for; the scores are cached per decoder.
func TestRNACompareWithBaselines(t *testing.T) {
	dir := t.TempDir()
	all, err := ssnet.ReadSet("../../data/rna/16s-finalvalid.txt")
	if err != nil {
		t.Fatal(err)
	}
	cut := func(m ssnet.Molecule, n int) *rna.Structure {
		p := append([]int(nil), m.Partner[:n]...)
		for i, q := range p {
			if q >= n {
				p[i] = rna.Unpaired
			}
		}
		return &rna.Structure{Name: m.Name, Seq: m.Seq[:n], Partner: p}
	}
	write := func(name string, ss []*rna.Structure) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := rna.WriteFiveLine(f, ss); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// The evaluated molecules are cut copies of two training ones and a
	// third not in training.
	train := write("train.txt", []*rna.Structure{cut(all[0], 150), cut(all[1], 150), cut(all[2], 150)})
	set := write("set.txt", []*rna.Structure{cut(all[0], 120), cut(all[1], 140), cut(all[5], 130)})
	trainSet, _ := ssnet.ReadSet(train)
	valid, _ := ssnet.ReadSet(set)
	runs := filepath.Join(dir, "runs")
	p := ssnet.Default
	p.Steps, p.EvalEvery, p.Batch, p.Crop = 2, 2, 2, 32
	for _, k := range []ssnet.Kind{ssnet.CNN, ssnet.SCNN} {
		for seed := uint64(1); seed <= 2; seed++ {
			o := ssnet.TrainOptions{Train: trainSet, Valid: valid, Out: filepath.Join(runs, fmt.Sprintf("%s-seed%d", k, seed)), Kind: k, Protocol: p, Seed: seed, Workers: 1}
			if _, _, err := ssnet.Train(context.Background(), o); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := filepath.Join(dir, "report")
	code, stdout, errOut := runCLI(t, "rna", "compare", "--runs", runs, "--set", set, "--train", train, "--split", "x", "--decoder", "mea", "--resamples", "50", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Decoder: mea.", "SCNN vs CNN", "SCNN vs HOMOLOGY", "CNN vs STACKING", "SCNN vs MFE"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"report.md", "report-disjoint.md", "report-vs-scnn-homology.md", "report-disjoint-vs-cnn-stacking.json", "runs/scnn-seed1/scores-x-mea.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	b, err := os.ReadFile(out + "-vs-scnn-homology.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"kind_a": "homology"`) {
		t.Errorf("baseline comparison json: %.300s", b)
	}
	// --against: the SCNN runs of a second directory (a longer recipe)
	// against the first's, paired by seed; its CNN has no partner there.
	runsB := filepath.Join(dir, "longer")
	p.Steps = 4
	for seed := uint64(1); seed <= 2; seed++ {
		o := ssnet.TrainOptions{Train: trainSet, Valid: valid, Out: filepath.Join(runsB, fmt.Sprintf("scnn-seed%d", seed)), Kind: ssnet.SCNN, Protocol: p, Seed: seed, Workers: 1}
		if _, _, err := ssnet.Train(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	out = filepath.Join(dir, "ab")
	code, stdout, errOut = runCLI(t, "rna", "compare", "--runs", runsB, "--against", runs, "--set", set, "--train", train, "--split", "x", "--resamples", "50", "--out", out)
	if code != 0 {
		t.Fatalf("--against: exit %d: %s", code, errOut)
	}
	for _, f := range []string{"ab-scnn.md", "ab-disjoint-scnn.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ab-cnn.md")); err == nil {
		t.Error("a CNN comparison without CNN runs on one side")
	}
	if b, err = os.ReadFile(out + "-scnn.json"); err != nil || !strings.Contains(string(b), `"kind_a": "scnn (runs)"`) || !strings.Contains(string(b), `"kind_b": "scnn (longer)"`) {
		t.Errorf("--against json: %v %.400s\n%s", err, b, stdout)
	}
}

// rna predict --method homology copies the pairs of the nearest
// reference (--refs): a molecule cut from a reference gets exactly its
// pairs back; --method stacking and a template network predict too.
func TestRNAPredictMethods(t *testing.T) {
	dir := t.TempDir()
	all, err := ssnet.ReadSet("../../data/rna/16s-finalvalid.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := all[3]
	n := 200
	p := append([]int(nil), m.Partner[:n]...)
	for i, q := range p {
		if q >= n {
			p[i] = rna.Unpaired
		}
	}
	ref := &rna.Structure{Name: "ref", Seq: m.Seq[:n], Partner: p}
	refs := filepath.Join(dir, "refs.txt")
	f, _ := os.Create(refs)
	rna.WriteFiveLine(f, []*rna.Structure{ref, all[7].Structure})
	f.Close()
	ct := filepath.Join(dir, "query.ct")
	g, _ := os.Create(ct)
	rna.WriteCT(g, &rna.Structure{Name: "query", Seq: ref.Seq, Partner: ref.Partner})
	g.Close()
	code, stdout, errOut := runCLI(t, "rna", "predict", "--method", "homology", "--refs", refs, "--out", filepath.Join(dir, "h"), ct)
	if code != 0 || !regexp.MustCompile(`1\.000 +1\.000 +1\.000 `).MatchString(errOut) {
		t.Fatalf("homology: exit %d\n%s\n%s", code, stdout, errOut)
	}
	for _, method := range []string{"stacking", "mfe"} {
		code, _, errOut = runCLI(t, "rna", "predict", "--method", method, "--out", filepath.Join(dir, method), ct)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", method, code, errOut)
		}
	}
	// The MFE structure written is RNAfold's (rna/fold's golden tests):
	// here, that the BPSEQ holds a valid nested structure of the query.
	h, err := os.Open(filepath.Join(dir, "mfe", "query.bpseq"))
	if err != nil {
		t.Fatal(err)
	}
	mfe, err := rna.ReadBPSEQ(h, "query.bpseq")
	h.Close()
	if err != nil || mfe.Seq != ref.Seq || len(mfe.Pairs()) == 0 {
		t.Fatalf("mfe output %v, %v", mfe, err)
	}
	// The ensemble's structures are RNAfold -p's (rna/fold's golden
	// tests): here, that each is the decoder's of the same ensemble,
	// written as a valid structure of the query.
	e, err := fold.Partition(ref.Seq)
	if err != nil {
		t.Fatal(err)
	}
	cen, _ := e.Centroid()
	mea, _, err := e.MEA(1)
	if err != nil {
		t.Fatal(err)
	}
	for method, want := range map[string]*rna.Structure{"centroid": cen, "mea-pf": mea} {
		code, _, errOut = runCLI(t, "rna", "predict", "--method", method, "--out", filepath.Join(dir, method), ct)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", method, code, errOut)
		}
		h, err := os.Open(filepath.Join(dir, method, "query.bpseq"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := rna.ReadBPSEQ(h, "query.bpseq")
		h.Close()
		if err != nil || !slices.Equal(got.Partner, want.Partner) || len(got.Pairs()) == 0 {
			t.Fatalf("%s output %v, %v; want the pairs of %v", method, got, err, want)
		}
	}
	tm, err := ssnet.NewModel(ssnet.SCNN, ssnet.Template, 1)
	if err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(dir, "t.scnn")
	if err := tm.Save(mp); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, "rna", "predict", "--model", mp, "--refs", refs, "--decoder", "mea", "--out", filepath.Join(dir, "t"), ct)
	if code != 0 || !strings.Contains(errOut, "2 reference molecules") {
		t.Fatalf("template network: exit %d: %s", code, errOut)
	}
	if code, _, _ = runCLI(t, "rna", "predict", "--method", "fold", ct); code != 2 {
		t.Errorf("unknown method: exit %d, want 2", code)
	}
}

// rna dedup drops the molecules identical to, or fragments of, a
// molecule of --against (identity over the shorter sequence), keeps an
// unrelated one, writes the kept ones as dot-bracket records that read
// back as the same structures, and does not overwrite its output.
func TestRNADedup(t *testing.T) {
	dir := t.TempDir()
	const long = "GGGCGCAAGCCUUCGGGCUAUCCGAUUACGGAUCAAGCUAGCUAGGCAUCGAUCGUAGCUAGCUAGGCGCGAAUUCGC"
	set := filepath.Join(dir, "set.dbn")
	os.WriteFile(set, []byte(">copy\n"+long+"\n"+strings.Repeat(".", len(long))+"\n"+
		">fragment\n"+long[10:50]+"\n"+strings.Repeat(".", 40)+"\n"+
		">other\nAUAUAUAUAUGGGGAAAACCCCAUAUAUACCGGUUAACCGGUAUAUA\n..........((((....))))......((((....)))).......\n"), 0o644)
	against := filepath.Join(dir, "against.dbn")
	os.WriteFile(against, []byte(">ref\n"+long+"\n"+strings.Repeat(".", len(long))+"\n"), 0o644)
	out := filepath.Join(dir, "kept.dbn.gz")
	code, stdout, errOut := runCLI(t, "rna", "dedup", "--against", against, "--out", out, set)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "| copy | ref | 1.000 |") || !strings.Contains(stdout, "| fragment | ref | 1.000 |") || !strings.Contains(stdout, "kept 1 of 3") {
		t.Fatalf("report:\n%s", stdout)
	}
	kept, err := ssnet.ReadSet(out)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := ssnet.ReadSet(set)
	if len(kept) != 1 || !rna.Equal(kept[0].Structure, orig[2].Structure) {
		t.Fatalf("kept %d molecules, want the unrelated one as it was", len(kept))
	}
	if code, _, errOut := runCLI(t, "rna", "dedup", "--against", against, "--out", out, set); code != 1 || !strings.Contains(errOut, "exists") {
		t.Fatalf("an existing output: exit %d, %s", code, errOut)
	}
	if code, _, _ := runCLI(t, "rna", "dedup", "--against", against, "--out", filepath.Join(dir, "x.txt"), set); code != 2 {
		t.Fatalf("a non-dbn output: exit %d, want 2", code)
	}
}

// rna predict with a shipped model takes the model's own references (for
// rna-scnn the built-in 16S training set: the same outputs as --refs of
// the training file, other outputs with other references) and its own
// decoder unless --decoder is given; a model file and --method homology
// take the 16S set and greedy decoding.
func TestRNAPredictShippedDefaults(t *testing.T) {
	dir := t.TempDir()
	all, err := ssnet.ReadSet("../../data/rna/16s-finalvalid.txt")
	if err != nil {
		t.Fatal(err)
	}
	// The shortest validation molecule (670 nt) has a template among the
	// 16S training molecules (identity 0.78).
	fasta := filepath.Join(dir, "q.fa")
	if err := os.WriteFile(fasta, []byte(">q\n"+all[5].Seq+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.txt")
	f, err := os.Create(other)
	if err != nil {
		t.Fatal(err)
	}
	hairpin, err := rna.New("hairpin", "GGGGAAAACCCC", [][2]int{{0, 11}, {1, 10}, {2, 9}, {3, 8}})
	if err != nil {
		t.Fatal(err)
	}
	rna.WriteFiveLine(f, []*rna.Structure{hairpin})
	f.Close()
	predict := func(out string, args ...string) string {
		t.Helper()
		args = append(append([]string{"rna", "predict", "--workers", "1", "--out", filepath.Join(dir, out)}, args...), fasta)
		code, _, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return errOut
	}
	read := func(out, ext string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, out, "q."+ext))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const builtIn16S = "550 reference molecules from data/rna/16s-finaltrain.txt (built in)"
	const builtInBoth = "11341 reference molecules from data/rna/16s-finaltrain.txt, experiments/rna-families/tr0-dedup.dbn.gz (built in)"
	if e := predict("families", "--model", "rna-scnn"); !strings.Contains(e, builtInBoth+"; decoder greedy") {
		t.Errorf("rna-scnn: %s", e)
	}
	if e := predict("default", "--model", "rna-scnn-16s"); !strings.Contains(e, builtIn16S+"; decoder greedy") {
		t.Errorf("rna-scnn-16s: %s", e)
	}
	predict("explicit", "--model", "rna-scnn-16s", "--refs", "../../data/rna/16s-finaltrain.txt", "--decoder", "greedy")
	predict("other", "--model", "rna-scnn-16s", "--refs", other)
	for _, ext := range []string{"bpseq", "ct", "db", "png"} {
		if !slices.Equal(read("default", ext), read("explicit", ext)) {
			t.Errorf("q.%s: the built-in references differ from the training file's", ext)
		}
	}
	if slices.Equal(read("default", "png"), read("other", "png")) {
		t.Error("the references change nothing")
	}
	if e := predict("mea", "--model", "rna-scnn-16s", "--decoder", "mea"); !strings.Contains(e, builtIn16S+"; decoder mea") {
		t.Errorf("--decoder mea: %s", e)
	}
	if e := predict("seq", "--model", "rna-scnn-seq"); strings.Contains(e, "reference molecules") || !strings.Contains(e, "decoder greedy") {
		t.Errorf("rna-scnn-seq: %s", e)
	}
	if e := predict("homology", "--method", "homology"); !strings.Contains(e, builtIn16S) || strings.Contains(e, "decoder") {
		t.Errorf("homology: %s", e)
	}
	tm, err := ssnet.NewModel(ssnet.SCNN, ssnet.Template, 1)
	if err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(dir, "t.scnn")
	if err := tm.Save(mp); err != nil {
		t.Fatal(err)
	}
	if e := predict("file", "--model", mp); !strings.Contains(e, builtIn16S+"; decoder greedy") {
		t.Errorf("a model file: %s", e)
	}
	if code, _, _ := runCLI(t, "rna", "predict", "--decoder", "best", "--out", filepath.Join(dir, "bad"), fasta); code != 2 {
		t.Errorf("--decoder best: exit %d, want 2", code)
	}
}
