// Package models holds the shipped contact models, embedded in every
// binary so that prediction from a sequence works from any directory.
// What each is, how it was picked and what it measures on test:
// docs/protein.md ("The shipped models"). Each pick was made on
// validation by a rule fixed before any result; the runs, the rules and
// their history are in the experiment directories named below.
//
//   - distilled (the default): one default-configuration SCNN trained on
//     the ensemble's contact probabilities (`train --teacher ensemble`),
//     seed 3 of three: the highest validation long-range top-L/5 (0.137),
//     which lies inside the ensemble's interval [0.114, 0.180], so it
//     ships the ensemble's precision at one model's time and memory.
//     distilled.scnn is byte for byte
//     experiments/distill/runs/scnn-a0-seed3/model.scnn (tested).
//   - ensemble (the default before): the default-configuration CNN and
//     SCNN, seeds 1-5 each, trained on the extended set (`make
//     compare-ext`): the best on validation among the runs and their
//     ensembles (long-range top-L/5 0.147, the best single run 0.141);
//     its prediction is the mean of the ten members' contact
//     probabilities. The members in ensemble/ are byte for byte the
//     model.scnn files of experiments/compare-ext/KIND-seedN (tested).
//   - scnn and cnn: the default-configuration SCNN and CNN of `make train`
//     on the PISCES split (docs/protein.md, "Results of `make train`"),
//     the defaults before.
//   - msa (AlignmentDefault): the network for alignment files: the
//     default-configuration SCNN, seed 2, trained on the plmDCA features
//     (mode msa+plm) of 89 protein families' alignments; C-beta contacts.
//     The best of three seeds of each kind and their ensembles on 21
//     validation families (long-range top-L/5 0.765, plmDCA alone 0.707),
//     hence predict's default for alignment files when no model is named
//     (docs/protein.md, "From an alignment"; runs and pick:
//     experiments/msa-net). msa/ holds it, byte for byte the run's
//     model.scnn (tested).
//
// Each file records its architecture, training data, labels, seed and
// code revision.
package models

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"

	"github.com/contactmap/contactmap/internal/modelkind"
	"github.com/contactmap/contactmap/pipeline/model"
)

var (
	//go:embed scnn.scnn
	scnnFile []byte
	//go:embed cnn.scnn
	cnnFile []byte
	//go:embed distilled.scnn
	distilledFile []byte
	//go:embed ensemble/*.scnn
	ensembleFS embed.FS
	//go:embed msa/*.scnn
	msaFS embed.FS
)

// Default is the name of the shipped model used when none is given.
const Default = "distilled"

// AlignmentDefault is the shipped model that predicts alignment files
// when no model is given, where it is shipped.
const AlignmentDefault = "msa"

// Shipped maps the name of each shipped model to where its files are in
// the repository: a model file, or the directory of an ensemble's
// members.
var Shipped = map[string]string{
	"distilled": "models/distilled.scnn",
	"ensemble":  "models/ensemble",
	"msa":       "models/msa",
	"scnn":      "models/scnn.scnn",
	"cnn":       "models/cnn.scnn",
}

// RepoFile is where spec's model lies when run in the repository: a
// shipped model's file (Shipped, beside its training log), else spec
// itself (a model file).
func RepoFile(spec string) string {
	if file, ok := Shipped[spec]; ok {
		return file
	}
	return spec
}

// Names lists the shipped models.
func Names() []string {
	var n []string
	for k := range Shipped {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Load returns the models of spec: the shipped model of that name (see
// Names; an ensemble gives all its members) or else the model file spec,
// and a description of where they came from. Several models are one seed
// ensemble: the prediction is the mean of their contact probabilities.
func Load(spec string) ([]*model.Model, string, error) {
	file, ok := Shipped[spec]
	if !ok {
		if _, err := os.Stat(spec); err != nil {
			if _, rerr := ShippedRNA(spec); rerr == nil { // a shipped model of the other kind
				return nil, "", &modelkind.WrongKindError{Name: "shipped model " + spec, Holds: modelkind.RNA, Want: modelkind.Protein}
			}
			return nil, "", fmt.Errorf("model %q: not a shipped model (%v) and %w", spec, Names(), err)
		}
		m, err := model.LoadModel(spec)
		if err != nil {
			return nil, "", err
		}
		return []*model.Model{m}, spec, nil
	}
	from := "shipped " + spec + " (" + file + ")"
	if data, ok := singles[spec]; ok {
		m, err := model.ReadModel(bytes.NewReader(data), from)
		if err != nil {
			return nil, "", err
		}
		return []*model.Model{m}, from, nil
	}
	ms, err := readEnsemble(ensembleFSs[spec], ensembles[spec], file)
	if err != nil {
		return nil, "", err
	}
	return ms, fmt.Sprintf("%s, %d members", from, len(ms)), nil
}

var (
	// singles holds the shipped single models' files.
	singles = map[string][]byte{"scnn": scnnFile, "cnn": cnnFile, "distilled": distilledFile}
	// ensembles maps each shipped ensemble to its directory in ensembleFS.
	ensembles = map[string]string{"ensemble": "ensemble", "msa": "msa"}
	// ensembleFSs holds each shipped ensemble's files.
	ensembleFSs = map[string]fs.FS{"ensemble": ensembleFS, "msa": msaFS}
)

// readEnsemble reads every .scnn file of dir in fsys, in name order; repo
// is where they are in the repository, for error messages.
func readEnsemble(fsys fs.FS, dir, repo string) ([]*model.Model, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.scnn"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("models: %s: no member files", repo)
	}
	sort.Strings(names)
	var ms []*model.Model
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		m, err := model.ReadModel(bytes.NewReader(data), path.Join(repo, path.Base(n)))
		if err != nil {
			return nil, err
		}
		if len(ms) > 0 && (m.Arch.Labels != ms[0].Arch.Labels || m.Arch.Mode != ms[0].Arch.Mode) {
			return nil, fmt.Errorf("models: %s: %s predicts %s from %s features, %s %s from %s: an ensemble's members must agree",
				repo, path.Base(n), m.Arch.Labels, m.Arch.Mode, path.Base(names[0]), ms[0].Arch.Labels, ms[0].Arch.Mode)
		}
		ms = append(ms, m)
	}
	return ms, nil
}
