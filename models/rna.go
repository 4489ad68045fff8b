package models

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/contactmap/contactmap/internal/modelkind"
	rnapredict "github.com/contactmap/contactmap/rna/predict"
	"github.com/contactmap/contactmap/rna/ssnet"
)

// The shipped RNA models, one line each: the model's name (its file is
// models/NAME.scnn), its reference files and its default decoder.
//
// To ship another RNA model, copy its model.scnn to models/NAME.scnn (NAME
// starting with "rna-", so that the //go:embed pattern of rnaModelFS takes
// it) and add its line here. Refs are its training files exactly as its
// `rna train --train` read them, in that order (its Record.Data;
// TestShippedRNATable checks it), each with an embedded copy in
// rnaRefCopies: a template network's channels must be computed against
// its own training references or its predictions change. Decoder is the
// decoder the selection rule picked, `rna predict`'s default for it. For
// the families network of experiments/rna-families, for example:
//
//	{Name: "rna-scnn-families", Refs: []string{RNARefs16S, RNARefsTR0Dedup}, Decoder: ssnet.Greedy},
//
// What each model is and measures: docs/rna.md ("The shipped networks"
// and "Results that stand"); the runs, the selection rules (fixed before
// any result) and their history: the experiment directories named in
// each line's comment.
var rnaTable = []RNAModel{
	// The default: the mean of the pair probabilities of three seeds of
	// the shipped recipe (families-ensemble, trained as rna-scnn-bpp
	// was: seeds 1-3 of experiments/rna-holdout/ship-runs, rna-scnn-bpp
	// being seed 2), each under rna-scnn-bpp-global's rule. Kept on the
	// second family-held-out split (trial 12: three seeds' mean +0.0017
	// [+0.0004, +0.0030] over the same seeds alone, +0.031 over the
	// centroid) and shipped after one read of the 16S test set and TS0
	// found it within 0.01 of rna-scnn-bpp-global (0.861 and 0.731,
	// against 0.867 and 0.728). Three networks per molecule; the fold,
	// the partition function and the template search run once for all.
	{Name: "rna-scnn-bpp-global-3seeds", Refs: []string{RNARefs16S, RNARefsTR0Dedup}, Decoder: ssnet.Greedy,
		Members: []string{"rna-scnn-bpp-global-seed1", "rna-scnn-bpp-global", "rna-scnn-bpp-global-seed3"}},
	// Seeds 1 and 3 of the shipped recipe under the global rule, the
	// other members of rna-scnn-bpp-global-3seeds (written by
	// -with-global from ship-runs/families-ensemble-scnn-seed1 and 3;
	// their seed pick and test reads: ship-runs/pick.md,
	// experiments/rna-holdout/trials.md). Training logs:
	// rna-scnn-bpp-global-seed1.train_log.tsv, -seed3.train_log.tsv.
	{Name: "rna-scnn-bpp-global-seed1", Refs: []string{RNARefs16S, RNARefsTR0Dedup}, Decoder: ssnet.Greedy},
	{Name: "rna-scnn-bpp-global-seed3", Refs: []string{RNARefs16S, RNARefsTR0Dedup}, Decoder: ssnet.Greedy},
	// The default before rna-scnn-bpp-global-3seeds: rna-scnn-bpp's network, its parameters unchanged,
	// with its ensemble channel from the global partition function of
	// every molecule of at most 600 nt (its record's ensemble_global;
	// rna-scnn-bpp's is banded at a 200-nt span above 200 nt). The rule
	// was selected at inference on the second family-held-out split
	// (split2, whose validation set holds 394 molecules over 200 nt of
	// families absent from training: +0.006 [+0.004, +0.009] over the
	// banded rule, +0.029 over the centroid, judge seeds 3-5 of five;
	// experiments/rna-holdout/trials.md, trial 10), and it was shipped
	// after one read of the 16S test set and TS0 found it within 0.01
	// of rna-scnn-bpp (0.867 and 0.728, against 0.870 and 0.728). It
	// folds the query for its energy channels, computes its partition
	// function for the pair probabilities (global up to 600 nt, span
	// 200 above), and takes a homology template from its references
	// where one reaches its minimum identity. Written from
	// rna-scnn-bpp.scnn by `go run ./experiments/rna-holdout
	// -with-global IN=OUT -ensemble-global 600`. Training log:
	// rna-scnn-bpp-global.train_log.tsv (rna-scnn-bpp's).
	{Name: "rna-scnn-bpp-global", Refs: []string{RNARefs16S, RNARefsTR0Dedup}, Decoder: ssnet.Greedy},
	// The default before rna-scnn-bpp-global: the families-ensemble SCNN (the families SCNN with
	// the McCaskill base-pair probabilities of the Turner 2004 ensemble
	// as a further channel), seed 2 of three trained as rna-scnn was
	// (the 16S training set and bpRNA TR0 less the molecules like a 16S
	// validation or test molecule). Its recipe was selected on the
	// family-held-out validation set (RNA families absent from its
	// training: +0.011 over the families SCNN, +0.031 over the centroid,
	// seeds 6-10; experiments/rna-holdout/trials.md), its seed and
	// decoder by rna-scnn's rule (the mean of the 16S and VL0 validation
	// F1 under its best decoder: greedy, 0.968 and 0.724;
	// experiments/rna-holdout/ship-runs/pick.md), and it was shipped
	// after one read of the 16S test set and TS0 found it within 0.01 of
	// rna-scnn (0.870 and 0.728, against 0.858 and 0.728). It folds the
	// query for its energy channels and computes its partition function
	// (span 200) for the pair probabilities, and takes a homology
	// template from its references where one reaches its minimum
	// identity. Training log: rna-scnn-bpp.train_log.tsv.
	{Name: "rna-scnn-bpp", Refs: []string{RNARefs16S, RNARefsTR0Dedup}, Decoder: ssnet.Greedy},
	// The families SCNN (template and energy channels,
	// trained on the 16S training set and bpRNA TR0 less the molecules
	// like a 16S validation or test molecule), seed 3 of `make
	// train-rna-families`, the default before rna-scnn-bpp: the best
	// mean of the 16S and VL0 validation F1 under each candidate's best
	// decoder (greedy: 0.969 and 0.724; runs and pick:
	// experiments/rna-families). It folds the query (Turner 2004) for its
	// energy channels and takes a homology template from its references
	// where one reaches its minimum identity. Training log:
	// rna-scnn.train_log.tsv.
	{Name: "rna-scnn", Refs: []string{RNARefs16S, RNARefsTR0Dedup}, Decoder: ssnet.Greedy},
	// bprna: the families SCNN best on bpRNA's validation set VL0
	// alone, which is the same network as rna-scnn.
	{Name: "bprna", Refs: []string{RNARefs16S, RNARefsTR0Dedup}, Decoder: ssnet.Greedy, Same: "rna-scnn"},
	// The 16S template-short SCNN, the default before the families
	// network: seed 2 of three of `make train-rna-template`, the best on
	// the 16S validation molecules (F1 0.959, homology transfer 0.954;
	// runs: experiments/rna-template); template channels only, 16S
	// references. Training log: rna-scnn-16s.train_log.tsv.
	{Name: "rna-scnn-16s", Refs: []string{RNARefs16S}, Decoder: ssnet.Greedy},
	// The sequence-only default-protocol SCNN, the shipped model before:
	// the best validation accuracy of seeds 1-5, seed 2 (`contactmap rna
	// train --protocol default --model scnn --seed 2 --workers 1`; runs:
	// experiments/rna-default). It takes no template: its references are
	// its training set, unused. Training log: rna-scnn-seq.train_log.tsv.
	{Name: "rna-scnn-seq", Refs: []string{RNARefs16S}, Decoder: ssnet.Greedy},
}

// RNAModel is a line of the table of shipped RNA models.
type RNAModel struct {
	// Name is the model's name (--model); its file is models/NAME.scnn.
	Name string
	// Refs are the names of its reference files, its training files as
	// training read them, in training's order; each is embedded
	// (RNARefFile).
	Refs []string
	// Decoder decodes its probabilities in `rna predict` unless --decoder
	// is given.
	Decoder ssnet.Decoder
	// Same, when set, names the shipped model whose file this one is: a
	// second name for one network (the file is models/SAME.scnn).
	Same string
	// Members, when set, makes the line an ensemble of these shipped
	// models (the mean of their probabilities, as repeated --model): it
	// has no file of its own, and its members share its references.
	Members []string
}

//go:embed rna-*.scnn
var rnaModelFS embed.FS

// The reference files built into the binary, by the names training read
// them under. Templates are searched among the references in the order
// the files are listed (ssnet.ReadSets), as in training.
const (
	// RNARefs16S is the 16S training set of the RNA models.
	RNARefs16S = "data/rna/16s-finaltrain.txt"
	// RNARefsTR0Dedup is bpRNA TR0 less the molecules like a 16S
	// validation or test molecule (`rna dedup`), the second training
	// file of the families networks (experiments/rna-families).
	RNARefsTR0Dedup = "experiments/rna-families/tr0-dedup.dbn.gz"
)

// rna-refs-16s.txt.gz is the 16S training set of the RNA models
// (data/rna/16s-finaltrain.txt, gzip-compressed; the authors' data set,
// LGPL-3.0, see data/rna/README.md).
//
// rna-refs-tr0-dedup.dbn.gz is experiments/rna-families/tr0-dedup.dbn.gz
// byte for byte: bpRNA TR0 (10,814 RNAs of every Rfam family, the
// training split of the bpRNA-1m benchmark) less the 23 molecules at 80%
// identity or more to a 16S validation or test molecule, 10,791
// dot-bracket records (`contactmap rna dedup`,
// experiments/rna-families/dedup.md). Structures from the bpRNA database
// (Danaee et al., Nucleic Acids Res. 46:5381, 2018; sources CRW, Rfam,
// tmRNA, SRP, SPR, RNP, PDB), split by Singh et al. (SPOT-RNA, Nat.
// Commun. 10:5407, 2019); TR0 as copied from the public repository
// marc-harary/kirigami (MIT licence), data/TR0.dbn; see docs/data.md.
//
// Both are the references of homology transfer and of the template
// networks' channels, so that both work from any directory.
//
//go:embed rna-refs-16s.txt.gz rna-refs-tr0-dedup.dbn.gz
var rnaRefFS embed.FS

// rnaRefCopies maps a reference file's training name to its embedded copy
// in rnaRefFS.
var rnaRefCopies = map[string]string{
	RNARefs16S:      "rna-refs-16s.txt.gz",
	RNARefsTR0Dedup: "rna-refs-tr0-dedup.dbn.gz",
}

// RNARefsName names the 16S training set, the references of a model file
// and of homology transfer unless others are given.
const RNARefsName = RNARefs16S

// DefaultRNA is the RNA model used when none is given.
const DefaultRNA = "rna-scnn-bpp-global-3seeds"

// errNotShippedRNA marks a name that is not a shipped RNA model.
var errNotShippedRNA = errors.New("not a shipped RNA model")

// ShippedRNA returns the line of the shipped RNA model of that name; an
// error for another name.
func ShippedRNA(name string) (RNAModel, error) {
	for _, m := range rnaTable {
		if m.Name == name {
			return m, nil
		}
	}
	return RNAModel{}, fmt.Errorf("RNA model %q: %w (%s)", name, errNotShippedRNA, strings.Join(RNANames(), ", "))
}

// File returns the embedded model file (models/NAME.scnn, or
// models/SAME.scnn).
func (m RNAModel) File() ([]byte, error) {
	if len(m.Members) > 0 {
		return nil, fmt.Errorf("models: shipped RNA model %s is an ensemble of %s, with no file of its own", m.Name, strings.Join(m.Members, ", "))
	}
	name := m.Name
	if m.Same != "" {
		name = m.Same
	}
	b, err := fs.ReadFile(rnaModelFS, name+".scnn")
	if err != nil {
		return nil, fmt.Errorf("models: shipped RNA model %s: %w", m.Name, err)
	}
	return b, nil
}

// RNARefFile returns the embedded copy of a reference file by its
// training name (RNARefs16S, RNARefsTR0Dedup), as the file's bytes, and
// the copy's path in the repository.
func RNARefFile(name string) ([]byte, string, error) {
	copyName, ok := rnaRefCopies[name]
	if !ok {
		return nil, "", fmt.Errorf("models: no embedded copy of the RNA reference file %s", name)
	}
	b, err := fs.ReadFile(rnaRefFS, copyName)
	if err != nil {
		return nil, "", fmt.Errorf("models: embedded RNA references %s: %w", name, err)
	}
	return b, "models/" + copyName, nil
}

// readRNARefs reads embedded reference files, named as in training, into
// one set by training's reader (ssnet.ReadSets): the same molecules, in
// the same order and groups, as training read from the files.
func readRNARefs(names []string) ([]ssnet.Molecule, error) {
	return ssnet.ReadSetsWith(names, func(name string) ([]ssnet.Molecule, error) {
		b, copyName, err := RNARefFile(name)
		if err != nil {
			return nil, err
		}
		mols, err := ssnet.ReadSetFrom(bytes.NewReader(b), name)
		if err != nil {
			return nil, fmt.Errorf("models: %s (the embedded copy of %s): %w", copyName, name, err)
		}
		return mols, nil
	})
}

// RNARefsFor returns the reference molecules of an RNA model (the
// references of its template channels) and a description naming their
// files: a shipped model's own (RNAModel.Refs, in order); for any other
// name (a model file; "" for homology transfer without a model) the 16S
// training set.
func RNARefsFor(name string) ([]ssnet.Molecule, string, error) {
	names := []string{RNARefs16S}
	if m, err := ShippedRNA(name); err == nil {
		names = m.Refs
	}
	mols, err := readRNARefs(names)
	if err != nil {
		return nil, "", err
	}
	return mols, strings.Join(names, ", ") + " (built in)", nil
}

// RNARefs returns the embedded 16S training set (RNARefsFor of a model
// file).
func RNARefs() ([]ssnet.Molecule, error) {
	mols, _, err := RNARefsFor("")
	return mols, err
}

// RNADefaultDecoder is the decoder of a model's probabilities unless
// another is asked for: a shipped model's own (RNAModel.Decoder), greedy
// (the paper's) for any other name.
func RNADefaultDecoder(name string) ssnet.Decoder {
	if m, err := ShippedRNA(name); err == nil {
		return m.Decoder
	}
	return ssnet.Greedy
}

// RNANames lists the shipped RNA models.
func RNANames() []string {
	var n []string
	for _, m := range rnaTable {
		n = append(n, m.Name)
	}
	sort.Strings(n)
	return n
}

// LoadRNA returns the shipped RNA model of that name or else reads spec as
// a model file, and a description of where it came from.
func LoadRNA(spec string) (*ssnet.Model, string, error) {
	sm, err := ShippedRNA(spec)
	if err != nil {
		if _, serr := os.Stat(spec); serr != nil {
			if _, ok := Shipped[spec]; ok { // a shipped model of the other kind
				return nil, "", &modelkind.WrongKindError{Name: "shipped model " + spec, Holds: modelkind.Protein, Want: modelkind.RNA}
			}
			return nil, "", fmt.Errorf("RNA model %q: not a shipped model (%v) and %w", spec, RNANames(), serr)
		}
		m, err := ssnet.Load(spec)
		return m, spec, err
	}
	if len(sm.Members) > 0 {
		return nil, "", fmt.Errorf("RNA model %s is an ensemble of %s: give it alone as --model, or its members", spec, strings.Join(sm.Members, ", "))
	}
	data, err := sm.File()
	if err != nil {
		return nil, "", err
	}
	file := spec
	if sm.Same != "" {
		file = sm.Same
	}
	from := "shipped " + spec + " (models/" + file + ".scnn)"
	m, err := ssnet.ReadModel(bytes.NewReader(data), from)
	return m, from, err
}

// RNAShipped is the shipped RNA models as package rna/predict takes them
// (rna/predict.Config.Shipped, EvalConfig.Shipped): the default, the
// names, the loader, each model's references, training files and
// decoder, and what the training files hold.
func RNAShipped() rnapredict.Shipped {
	return rnapredict.Shipped{Default: DefaultRNA, Names: RNANames(), Load: LoadRNA, Refs: RNARefsFor, Decoder: RNADefaultDecoder,
		TrainingFiles: func(name string) ([]string, bool) { m, err := ShippedRNA(name); return m.Refs, err == nil },
		Members: func(name string) ([]string, bool) {
			m, err := ShippedRNA(name)
			return m.Members, err == nil && len(m.Members) > 0
		},
		Describe: map[string]rnapredict.TrainingFile{RNARefs16S: {What: "16S rRNA"}, RNARefsTR0Dedup: {What: "bpRNA TR0", Families: true}}}
}
