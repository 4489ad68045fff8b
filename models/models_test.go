package models

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contactmap/contactmap/rna/ssnet"

	"github.com/contactmap/contactmap/pdb"
)

// The embedded models load and record their training lengths; the
// default is the distilled SCNN.
func TestShippedModels(t *testing.T) {
	want := map[string]int{"scnn": 1, "cnn": 1, "distilled": 1, "ensemble": 10, "msa": 1}
	for _, name := range Names() {
		ms, from, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != want[name] || !strings.Contains(from, "shipped") {
			t.Fatalf("%s: %d models from %s, want %d", name, len(ms), from, want[name])
		}
		for _, m := range ms {
			kind := map[string]string{"distilled": "scnn"}[name]
			if kind == "" {
				kind = name
			}
			if want[name] == 1 && ensembles[name] == "" && string(m.Arch.Kind) != kind {
				t.Errorf("%s: kind %s", name, m.Arch.Kind)
			}
			if m.Arch.MinLen == 0 || m.Arch.MaxLen == 0 {
				t.Errorf("%s: training lengths not recorded", name)
			}
		}
	}
	if len(want) != len(Shipped) {
		t.Errorf("shipped %v, tested %v", Names(), want)
	}
	for name := range Shipped {
		if _, single := singles[name]; single == (ensembles[name] != "") {
			t.Errorf("%s: single %v, ensemble directory %q", name, single, ensembles[name])
		}
	}
	if _, ok := Shipped[Default]; !ok {
		t.Errorf("default %q is not shipped", Default)
	}
	if _, _, err := Load("no-such-model.scnn"); err == nil || !strings.Contains(err.Error(), "not a shipped model") {
		t.Errorf("missing file: %v", err)
	}
}

// The ensemble's members are the extended-set runs the validation rule
// picked (experiments/compare-ext), byte for byte, five CNN and five SCNN
// seeds, all trained on the extended set.
func TestEnsembleMembersAreTheSelectedRuns(t *testing.T) {
	names, err := fs.Glob(ensembleFS, "ensemble/*.scnn")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, n := range names {
		run := strings.TrimSuffix(path.Base(n), ".scnn")
		want, err := os.ReadFile(filepath.Join("..", "experiments", "compare-ext", run, "model.scnn"))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := fs.ReadFile(ensembleFS, n)
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from experiments/compare-ext/%s/model.scnn", n, run)
		}
		kind, seed, _ := strings.Cut(run, "-seed")
		kinds[kind]++
		ms, _, err := Load(filepath.Join("..", "experiments", "compare-ext", run, "model.scnn"))
		if err != nil {
			t.Fatal(err)
		}
		if m := ms[0]; string(m.Arch.Kind) != kind || fmt.Sprint(m.Arch.Seed) != seed || m.Arch.Config != "default" {
			t.Errorf("%s: kind %s seed %d config %s", n, m.Arch.Kind, m.Arch.Seed, m.Arch.Config)
		}
	}
	if kinds["cnn"] != 5 || kinds["scnn"] != 5 {
		t.Errorf("members %v, want 5 cnn and 5 scnn", kinds)
	}
}

// Members that predict different contacts do not make an ensemble, and an
// empty directory is no ensemble.
func TestReadEnsembleChecksMembers(t *testing.T) {
	ca, _ := fs.ReadFile(ensembleFS, "ensemble/cnn-seed1.scnn")
	same, err := os.ReadFile(filepath.Join("..", "experiments", "compare-ext", "cnn-seed1", "model.scnn"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readEnsemble(fstest.MapFS{}, "e", "models/e"); err == nil || !strings.Contains(err.Error(), "no member files") {
		t.Errorf("empty: %v", err)
	}
	ms, err := readEnsemble(fstest.MapFS{"e/a.scnn": {Data: ca}, "e/b.scnn": {Data: same}}, "e", "models/e")
	if err != nil || len(ms) != 2 {
		t.Fatalf("two good members: %d, %v", len(ms), err)
	}
	m := ms[1]
	m.Arch.Labels = pdb.ContactDef{Atoms: pdb.CBeta, Cutoff: pdb.ContactCutoff}
	cbFile := filepath.Join(t.TempDir(), "cb.scnn")
	if err := m.Save(cbFile); err != nil {
		t.Fatal(err)
	}
	cbData, err := os.ReadFile(cbFile)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readEnsemble(fstest.MapFS{"e/a.scnn": {Data: ca}, "e/b.scnn": {Data: cbData}}, "e", "models/e")
	if err == nil || !strings.Contains(err.Error(), "b.scnn") {
		t.Errorf("mixed labels: %v", err)
	}
}

// The shipped RNA models load from the binary, are the SCNNs their
// records say (the default: the families-ensemble SCNN, taking
// templates, energy channels and the ensemble's pair probabilities;
// rna-scnn: the families SCNN, templates and energy channels; rna-scnn-16s: the template-short SCNN; rna-scnn-seq:
// the sequence-only default-protocol one), and predict a symmetric
// probability map, the template networks with and without a template.
func TestShippedRNAModel(t *testing.T) {
	seqModel, _, err := LoadRNA("rna-scnn-seq")
	if err != nil {
		t.Fatal(err)
	}
	if seqModel.Record.Protocol != "default" || seqModel.Record.UsesTemplates() {
		t.Fatalf("rna-scnn-seq: record %+v", seqModel.Record)
	}
	for name, protocol := range map[string]string{"rna-scnn-bpp-global": "families-ensemble", "rna-scnn": "families", "rna-scnn-16s": "template-short"} {
		m, from, err := LoadRNA(name)
		if err != nil {
			t.Fatal(err)
		}
		energy := protocol != "template-short"
		if m.Record.Kind != "scnn" || m.Record.Protocol != protocol || !m.Record.UsesTemplates() || m.Record.UsesEnergy() != energy ||
			m.Record.Inputs2D().Ensemble != (protocol == "families-ensemble") ||
			m.Record.Step == 0 || !strings.Contains(from, "shipped") {
			t.Fatalf("%s: record %+v", from, m.Record)
		}
		predictsWithTemplate(t, m)
	}
	if _, _, err := LoadRNA("no-such-model"); err == nil {
		t.Error("an unknown name loaded")
	}
}

// predictsWithTemplate checks that a template network's map of the
// shortest 16S training molecule changes with its template (found among
// the other molecules) and is symmetric.
func predictsWithTemplate(t *testing.T, m *ssnet.Model) {
	t.Helper()
	refs, err := RNARefs()
	if err != nil {
		t.Fatal(err)
	}
	// The shortest training molecule (612 nt), its template from the
	// others.
	k := 0
	for i := range refs {
		if len(refs[i].Seq) < len(refs[k].Seq) {
			k = i
		}
	}
	seq := refs[k].Seq
	others := append(slices.Clone(refs[:k]), refs[k+1:]...)
	tm := ssnet.TemplateRefs(others).Search(seq, nil)
	if tm.Ref == nil || len(tm.Pairs) == 0 || tm.Identity < m.Record.MinIdentity {
		t.Fatalf("template of a training molecule among the others: identity %.3f, %d pairs", tm.Identity, len(tm.Pairs))
	}
	withT, err := m.ProbabilitiesWith(seq, &tm, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.ProbabilitiesWith(seq, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(p, withT) {
		t.Fatal("the template changes nothing")
	}
	l := len(seq)
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			if p[i*l+j] != p[j*l+i] {
				t.Fatalf("p[%d,%d] != p[%d,%d]", i, j, j, i)
			}
		}
	}
}

// The embedded RNA references are the bundled 16S training set, molecule
// for molecule.
func TestRNARefsAreTheTrainingSet(t *testing.T) {
	got, err := RNARefs()
	if err != nil {
		t.Fatal(err)
	}
	want, err := ssnet.ReadSet("../" + RNARefsName)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) != 550 {
		t.Fatalf("%d references, the training file has %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Seq != want[i].Seq || !slices.Equal(got[i].Partner, want[i].Partner) {
			t.Fatalf("reference %d (%s) differs from the training file's", i, got[i].Name)
		}
	}
}

// The shipped MSA model's members are the runs of experiments/msa-net
// that its README's rule picked (pick.md there), byte for byte: networks
// trained on alignments (mode msa+plm), predicting C-beta contacts.
func TestMSAMembersAreThePickedRuns(t *testing.T) {
	names, err := fs.Glob(msaFS, "msa/*.scnn")
	if err != nil || len(names) == 0 {
		t.Fatalf("no members (%v)", err)
	}
	for _, n := range names {
		run := strings.TrimSuffix(path.Base(n), ".scnn")
		want, err := os.ReadFile(filepath.Join("..", "experiments", "msa-net", "runs", run, "model.scnn"))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := fs.ReadFile(msaFS, n)
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from experiments/msa-net/runs/%s/model.scnn", n, run)
		}
	}
	ms, _, err := Load(AlignmentDefault)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if !m.Arch.Mode.MSA || !m.Arch.Mode.Plm || m.Arch.Labels.Atoms != pdb.CBeta {
			t.Errorf("member seed %d: mode %s, labels %s; want msa+plm features and C-beta contacts", m.Arch.Seed, m.Arch.Mode, m.Arch.Labels)
		}
	}
}

// The default is the distilled pick of experiments/distill, byte for
// byte, and it names its teacher.
func TestDistilledIsThePickedRun(t *testing.T) {
	if Default != "distilled" {
		t.Fatalf("the default is %q", Default)
	}
	run, err := os.ReadFile("../experiments/distill/runs/scnn-a0-seed3/model.scnn")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(run, distilledFile) {
		t.Error("models/distilled.scnn is not experiments/distill/runs/scnn-a0-seed3/model.scnn")
	}
	ms, _, err := Load(Default)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Arch.Kind != "scnn" || !strings.Contains(ms[0].Arch.Teacher, "10 models") {
		t.Errorf("the default: %d models, kind %s, teacher %q", len(ms), ms[0].Arch.Kind, ms[0].Arch.Teacher)
	}
}

// A shipped model lies in the repository under its file; a model file is
// itself.
func TestRepoFile(t *testing.T) {
	if got := RepoFile("scnn"); got != "models/scnn.scnn" {
		t.Errorf("scnn: %q", got)
	}
	if got := RepoFile("runs/a/model.scnn"); got != "runs/a/model.scnn" {
		t.Errorf("a model file: %q", got)
	}
}
